"""Calibration: the maths, the file's round trip, re-running, the start-up warning, and
the guided command on a simulated panel (MCP3008 sliders on the Pi, and the
co-processor's ADC through the real serial link to an emulated board)."""

from __future__ import annotations

from pathlib import Path

import pytest

from panel.hardware import calibration as cal
from panel.tools.cli import main
from panel.core.errors import ConfigError
from panel.hardware.map import load_map

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "panel" / "maps" / "small.toml"
REFERENCE = ROOT / "panel" / "maps" / "reference.toml"
POS = ("0", "1", "2", "3", "4")


def test_fit_takes_the_median_and_refuses_a_slider_that_does_not_move():
    sc = cal.fit([0.04, 0.03, 0.9, 0.035], [0.96, 0.95, 0.955])
    assert (sc.low, sc.high) == (0.0375, 0.955)  # one wild sample does not move an end
    with pytest.raises(ValueError, match="hardly changes the reading"):
        cal.fit([0.40], [0.55])


def test_check_pass_names_a_position_that_reads_as_another():
    sc = cal.SliderCalibration(0.0, 1.0)
    good = {p: [(i + 0.5) / 5] for i, p in enumerate(POS)}
    assert cal.check_positions(sc, POS, good) == {}
    bad = dict(good, **{"3": [0.5]})
    assert cal.check_positions(sc, POS, bad) == {"3": "2"}
    # A reversed slider (wired the other way round) calibrates and reads right too.
    rev = cal.SliderCalibration(0.97, 0.02)
    assert cal.position_of(rev, POS, 0.9) == "0" and cal.position_of(rev, POS, 0.05) == "4"


def test_round_trip_is_exact_and_atomic(tmp_path):
    c = cal.Calibration("Small build", {"slider.blue": cal.SliderCalibration(0.031, 0.962, ("0", "1"))},
                        {"knob.main": "1"})
    f = tmp_path / "state" / "calibration.toml"
    cal.save(c, f)
    assert cal.load(f) == c
    assert [p.name for p in f.parent.iterdir()] == ["calibration.toml"]  # no temporary file left
    cal.save(cal.Calibration("Small build"), f)  # saving again replaces it whole
    assert cal.load(f) == cal.Calibration("Small build")


def test_apply_puts_the_ends_into_the_map():
    hmap = load_map(SMALL)
    c = cal.Calibration(sliders={"slider.red": cal.SliderCalibration(0.1, 0.8)})
    out = c.apply(hmap)
    assert out.controls["slider.red"].calibration == (0.1, 0.8)
    assert out.controls["slider.blue"].calibration == hmap.controls["slider.blue"].calibration
    assert hmap.controls["slider.red"].calibration == (0.01, 0.99)  # the map itself is untouched


def test_missing_calibration_is_reported_with_the_command_that_fixes_it(tmp_path):
    hmap = load_map(SMALL)
    f = tmp_path / "c.toml"
    got, warning = cal.status_at_start(hmap, f, map_arg="small")
    assert got is None
    assert warning == (f"no calibration ({f} is missing) for knob.main, slider.blue, slider.red: "
                       f"run `penguin-panel calibrate small --file {f}`")
    cal.save(cal.Calibration(sliders={"slider.blue": cal.SliderCalibration(0, 1)}), f)
    got, warning = cal.status_at_start(hmap, f, map_arg="small")
    assert got is not None and "lacks knob.main, slider.red" in warning
    assert warning.endswith(f"run `penguin-panel calibrate small --file {f}`")


def test_a_damaged_file_names_the_key(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('format = 1\n[sliders."slider.blue"]\nlow = 0.5\nhigh = "x"\n')
    with pytest.raises(ConfigError) as e:
        cal.load(f)
    assert "sliders.slider.blue" in str(e.value.problems[0]) and "between 0.0 and 1.0" in str(e.value.problems[0])


def test_calibrate_sim_writes_the_file_and_rerunning_one_control_keeps_the_rest(tmp_path, capsys, monkeypatch):
    f = tmp_path / "c.toml"
    assert main(["calibrate", str(SMALL), "--sim", "--file", str(f)]) == 0
    first = cal.load(f)
    assert set(first.sliders) == {"slider.blue", "slider.red"} and first.knobs == {"knob.main": "1"}
    for sc in first.sliders.values():
        assert (sc.low, sc.high) == (0.035, 0.955)   # the simulated sliders' real ends, found
        assert sc.checked == POS
    assert (tmp_path / "knob.main.json").is_file()  # the knob's home, where the service keeps its state
    # Re-run one control with a hand-edited value for the other: it survives.
    edited = cal.Calibration(first.map, dict(first.sliders, **{"slider.red": cal.SliderCalibration(0.2, 0.7)}),
                             first.knobs)
    cal.save(edited, f)
    assert main(["calibrate", str(SMALL), "--sim", "--file", str(f), "--only", "slider.blue"]) == 0
    again = cal.load(f)
    assert again.sliders["slider.red"] == cal.SliderCalibration(0.2, 0.7)
    assert again.sliders["slider.blue"] == first.sliders["slider.blue"]
    out = capsys.readouterr().out
    assert "slide slider.blue all the way to its 0 end" in out and "saved" in out


def test_calibrate_sim_through_the_coprocessor(tmp_path):
    f = tmp_path / "c.toml"
    assert main(["calibrate", str(REFERENCE), "--sim", "--file", str(f), "--only", "slider.red"]) == 0
    sc = cal.load(f).sliders["slider.red"]
    # 12-bit readings of the board: within a count or two of the real ends.
    assert abs(sc.low - 0.035) < 0.003 and abs(sc.high - 0.955) < 0.003 and len(sc.checked) == 5


def test_only_names_a_control_that_is_not_calibrated(tmp_path, capsys):
    assert main(["calibrate", str(SMALL), "--sim", "--file", str(tmp_path / "c.toml"), "--only", "cross.up"]) == 2
    err = capsys.readouterr().err
    assert "cross.up: not a slider or knob" in err and not (tmp_path / "c.toml").exists()
