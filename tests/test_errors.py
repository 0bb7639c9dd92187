"""What the TOML reader cannot take reaches a person as one line naming the file and key,
through every config reader (layout, hardware map, deck, scenario, settings, calibration),
never as the generic "error: RecursionError ..." line."""

from __future__ import annotations

from pathlib import Path

import pytest

from panel.tools.cli import main
from panel.core.errors import ConfigError
from panel.core.toml_file import read_toml

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "panel" / "maps" / "small.toml"

DEEP = "[" * 3000 + "]" * 3000
LONG = "9" * 5000


def argv_for(tmp_path, what: str, text: str) -> list[str]:
    """The command line that reads `text` as a file of kind `what`."""
    f = tmp_path / f"{what}.toml"
    f.write_text(text)
    argv = {
        "layout": ["layout", "show", "--layout", str(f)],
        "map": ["hardware", "check", str(f)],
        "deck": ["deck", "check", str(f)],
        "scenario": ["replay", str(f)],
        "settings": ["play", "--sim", "--port", "0", "--settings", str(f)],
        "calibration": ["calibrate", str(SMALL), "--sim", "--file", str(f)],
    }[what]
    return argv


# Each reader's file with the bad value under a key of a table it reads.
CASES = {
    "layout": ('name = "x"\n[cockpit]\nflip = {}\n', "cockpit.start"),
    "map": ('name = "x"\n[controls.cockpit]\nflip = { gpio = 5 }\n', "controls.cockpit.start"),
    "deck": ('side = "blue"\n[[cards]]\nkind = "simple"\n', "cards.press"),
    "scenario": ('# a scenario\n[match]\nteams = []\n', "match.turn_seconds"),
    "settings": ('# settings\n[service]\nport = 8080\n', "service.host"),
    "calibration": ('format = 1\n[sliders."slider.blue"]\nlow = 0.1\n', 'sliders."slider.blue".high'),
}


@pytest.mark.parametrize("what", sorted(CASES))
@pytest.mark.parametrize("value, words", [(DEEP, "arrays or tables nested too deeply (line 4)"),
                                          (LONG, "a number of 5000 digits is too long (line 4)")])
def test_too_deep_and_too_long_are_named_by_file_and_key(tmp_path, capsys, what, value, words):
    head, key = CASES[what]
    text = head + f"{key.rsplit('.', 1)[-1]} = {value}\n"
    argv = argv_for(tmp_path, what, text)
    assert main(argv) == 2
    err = capsys.readouterr().err.splitlines()
    f = tmp_path / f"{what}.toml"
    assert err == [f"error: {f}: {key.replace(chr(34), '')}: {words}"]


def test_a_deep_value_on_a_later_line_names_its_own_key(tmp_path):
    f = tmp_path / "x.toml"
    f.write_text('a = 1\n[t]\nb = [\n  1,\n]\nc = [' + "[" * 3000 + "]" * 3000 + "]\n")
    with pytest.raises(ConfigError) as e:
        read_toml(f)
    assert [str(p) for p in e.value.problems] == [f"{f}: t.c: arrays or tables nested too deeply (line 6)"]


def test_a_bus_that_is_not_a_name_is_named(tmp_path, capsys):
    f = tmp_path / "map.toml"
    f.write_text('buses = [["spi0"]]\n[controls.cockpit]\nflip = { gpio = 5 }\n')
    assert main(["hardware", "check", str(f)]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.startswith("error: ")]
    assert err == [f"error: {f}: buses[0]: ['spi0'] is not a bus (i2c, spi0, spi1, uart)"]


def test_unreadable_files_are_one_line(tmp_path):
    for name, text, words in (("bad.toml", "a = [", "not valid TOML"), ("bin.toml", None, "not UTF-8 text")):
        f = tmp_path / name
        if text is None:
            f.write_bytes(b"a = '\xff'\n")
        else:
            f.write_text(text)
        with pytest.raises(ConfigError) as e:
            read_toml(f)
        assert len(e.value.problems) == 1 and words in str(e.value.problems[0])
