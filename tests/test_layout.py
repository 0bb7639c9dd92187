"""The layout format, the default panel, and the loader's messages."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from panel.tools.cli import main
from panel.core.errors import ConfigError
from panel.core.layout_file import default_layout_path, load_layout


def test_default_layout_holds_what_the_rulebook_names():
    base = load_layout()
    full = load_layout(expansion=True)
    assert len(base.modules) == 9 and len(full.modules) == 12
    assert sum(m.expansion for m in full.modules.values()) == 3
    kinds = sorted(t.token_kind for t in base.tokens.values())
    assert kinds == sorted(["knob"] + ["switch"] * 3 + ["click"] * 3 + ["lever"] + ["slider"] * 2 + ["round_lever"] * 3)
    assert {t.colour for t in base.tokens.values() if t.token_kind == "click"} == {"red", "blue", "white"}
    assert {t.colour for t in base.tokens.values() if t.token_kind == "round_lever"} == {"red", "blue", "white"}
    assert all(t.positions == ("0", "1", "2") for t in base.tokens.values() if t.token_kind == "round_lever")
    assert {t.colour for t in base.tokens.values() if t.token_kind == "slider"} == {"blue", "red"}
    cross = base.sections["cross"]
    assert {"up", "down", "left", "right", "ok"} <= set(cross.roles)
    assert base.buttons["cross.red"].shape == "big-round"
    assert all(base.buttons[b].colour == "white" and base.buttons[b].shape == "square" for b in base.sections["grid"].buttons)
    assert full.sections["keypad"].kind == "keypad" and full.buttons["keypad.ok"].shape == "square"
    assert any("roman" in s.label.lower() or "roman" in s.id for s in full.sections.values() if s.kind == "coordinates")
    assert "keypad.f" not in base and "keypad.f" in full


def test_control_ids_are_stable_lowercase_section_dot_name():
    full = load_layout(expansion=True)
    for c in full.controls():
        assert re.fullmatch(r"[a-z0-9_-]+\.[a-z0-9_-]+", c.id), c.id
        assert c.id.split(".")[0] == c.section


def test_the_two_sides_differ_in_colour_but_not_in_ids():
    blue = load_layout(side="blue", expansion=True)
    gray = load_layout(side="gray", expansion=True)
    assert list(blue.buttons) == list(gray.buttons)
    assert blue.buttons["cross.up"].colour != gray.buttons["cross.up"].colour


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "layout.toml"
    p.write_text(text)
    return p


GOOD_MODULE = '''
[[modules]]
id = "m"
[[modules.sections]]
id = "seq"
kind = "sequence"
buttons = [{ name = "up", role = "up" }, { name = "down", role = "down" }, { name = "ok", role = "ok" }]
'''


@pytest.mark.parametrize("text, expected", [
    (GOOD_MODULE + '\n[[modules]]\nid = "n"\n[[modules.sections]]\nid = "seq"\nkind = "buttons"\nbuttons = [{ name = "a" }]\n',
     "modules[1].sections[0].id: duplicate section id 'seq'"),
    ('[[modules]]\nid = "m"\n[[modules.sections]]\nid = "s"\nkind = "buttons"\nbuttons = [{ name = "a" }, { name = "a" }]\n',
     "modules[0].sections[0].buttons[1]: duplicate control id 's.a'"),
    ('[[modules]]\nid = "m"\n[[modules.sections]]\nid = "seq"\nkind = "sequence"\nbuttons = [{ name = "u", role = "up" }, { name = "d", role = "down" }]\n',
     "sequence section 'seq' has no OK button"),
    ('[[modules]]\nid = "m"\n[[modules.sections]]\nid = "t"\nkind = "tokens"\ntokens = [{ name = "x", kind = "switch", positions = ["on"] }]\n',
     "a token needs at least 2 positions, this one has 1"),
    ('[[modules]]\nid = "m"\n[[modules.sections]]\nid = "k"\nkind = "keypad"\nbuttons = [{ name = "a", role = "A" }, { name = "b", role = "A" }, { name = "ok", role = "ok" }]\n',
     "keypad letter 'A' appears twice in section 'k'"),
    ('[[modules]]\nid = "m"\n[[modules.sections]]\nid = "t"\nkind = "tokens"\ntokens = [{ name = "x", kind = "wheel", positions = ["a", "b"] }]\n',
     "'wheel' is not a token kind"),
    ('[[modules]]\nid = "m"\n[[modules.sections]]\nid = "s"\nkind = "buttons"\nbuttons = [{ name = "a", colour = { blue = "red" } }]\n',
     "needs exactly the keys 'blue' and 'gray'"),
    ('[[modules]]\nid = "M"\n[[modules.sections]]\nid = "s"\nkind = "buttons"\nbuttons = [{ name = "a" }]\n',
     "modules[0].id: 'M' must be lowercase"),
    ('this is = not toml [', "not valid TOML"),
    ('name = "x"\n', "modules: a layout needs at least one module"),
])
def test_bad_layouts_are_rejected_with_file_key_and_reason(tmp_path, text, expected):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_layout(path)
    assert any(expected in str(p) for p in err.value.problems), err.value.problems
    assert all(str(path) in str(p) for p in err.value.problems)


def test_every_problem_is_reported_at_once(tmp_path):
    path = write(tmp_path, '[[modules]]\nid = "m"\n[[modules.sections]]\nid = "t"\nkind = "tokens"\n'
                           'tokens = [{ name = "x", kind = "switch", positions = ["on"] }, '
                           '{ name = "y", kind = "dial", positions = ["a", "b"] }]\n')
    with pytest.raises(ConfigError) as err:
        load_layout(path)
    assert len(err.value.problems) == 2


def test_layout_show_json_lists_every_control(capsys):
    assert main(["layout", "show", "--json", "--expansion", "--side", "gray"]) == 0
    data = json.loads(capsys.readouterr().out)
    by_id = {c["id"]: c for c in data["controls"]}
    assert data["side"] == "gray" and len(by_id) == 77 + 13 + 2
    assert by_id["cross.ok"]["role"] == "ok" and by_id["cross.up"]["role"] == "up"
    assert by_id["keypad.f"]["role"] == "F" and by_id["coords.a1"]["role"] == "A1"
    assert by_id["slider.blue"] == {**by_id["slider.blue"], "kind": "token", "section": "slider",
                                    "colour": "blue", "positions": ["0", "1", "2", "3", "4"]}
    assert by_id["cockpit.flip"]["role"] == "flip"


def test_layout_show_bad_file_prints_one_line_and_no_traceback(tmp_path):
    path = write(tmp_path, '[[modules]]\nid = "m"\n[[modules.sections]]\nid = "t"\nkind = "tokens"\n'
                           'tokens = [{ name = "x", kind = "switch", positions = ["on"] }]\n')
    r = subprocess.run([sys.executable, "-m", "panel", "layout", "show", "--json", "--layout", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr
    assert f"{path}: modules[0].sections[0].tokens[0].positions" in lines[0]


def test_default_layout_file_is_shipped_with_the_package():
    assert default_layout_path().name == "penguin-airlines.toml" and default_layout_path().exists()
