"""The self-test on a simulated panel: gpiozero mock pins for the Pi's controls, the real
firmware loop on an emulated board for the co-processor's, read through the real serial
link. Wires are swapped, contacts stuck and chattering, and the report names each."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path


from panel.tools.cli import main
from panel.hardware.map import load_map
from panel.core.layout_file import load_layout
from panel.hardware.selftest import CHATTER, NEVER, NOT_WIRED, OK, STUCK, SWAPPED
from panel.hardware.selftest_runner import Faults
from panel.tools.selftest_sim import run_sim

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "panel" / "maps" / "reference.toml"
SMALL = ROOT / "panel" / "maps" / "small.toml"


def run(path, faults=None):
    hmap = load_map(path)
    layout = load_layout(None, expansion=hmap.expansion)
    return hmap, layout, asyncio.run(run_sim(hmap, layout, faults=faults))


def verdict_of(report):
    return {v.control: v for v in report.verdicts}


def test_sim_report_lists_every_control_of_the_layout(capsys, tmp_path, monkeypatch):
    """Done when: `penguin-panel check --sim --report` lists every control of the layout."""
    monkeypatch.setenv("PENGUIN_PANEL_CALIBRATION", str(tmp_path / "none.toml"))
    assert main(["check", str(REFERENCE), "--sim", "--report"]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    layout = load_layout(None, expansion=True)
    assert sorted(c["control"] for c in report["controls"]) == sorted(c.id for c in layout.controls())
    assert {c["verdict"] for c in report["controls"]} == {OK}
    assert report["ok"] is True and report["summary"] == {OK: len(list(layout.controls()))}
    cp = report["coprocessor"]
    assert cp["status"] == "connected" and cp["firmware"] and cp["frame_errors"] == 0
    # No calibration yet: said at the start, with the command that fixes it.
    assert report["calibration"].startswith("no calibration") and "penguin-panel calibrate" in report["calibration"]
    assert out.err.startswith("warning: no calibration")
    hmap = load_map(REFERENCE)
    assert [o["output"] for o in report["outputs"]] == \
        [f"pixel {i}" for i in range(hmap.neopixel.count)] + ["buzzer A4", "buzzer C5", "buzzer E5", "buzzer A5"]
    # The progress indicator went to stderr, one line per step, so the JSON stays clean.
    progress = [l for l in out.err.splitlines() if l.startswith("[")]
    assert len(progress) == len(report["controls"]) and progress[-1].split()[1] == f"{len(progress)}/{len(progress)}"


def test_small_build_lists_unwired_controls_and_prints_a_table(capsys):
    assert main(["check", str(SMALL), "--sim"]) == 0
    out = capsys.readouterr().out
    layout = load_layout(None)
    hmap = load_map(SMALL)
    for c in layout.controls():
        line = next(l for l in out.splitlines() if l.startswith(layout.plain_name(c.id) + "  ") and f" {c.id} " in l)
        assert (OK if c.id in hmap.controls else NOT_WIRED) in line
    assert "14 ok" in out and "all good" in out
    assert f"outputs: {hmap.neopixel.count + 4} driven" in out  # every pixel, 4 tones


def test_swapped_stuck_and_chattering_on_the_pi_are_named():
    faults = Faults(swapped=(("cross.up", "cross.down"),), stuck=("cockpit.flip",),
                    chattering=("cockpit.start", "lever.big"), dead=("cross.ok",))
    _, _, report = run(SMALL, faults)
    v = verdict_of(report)
    assert (v["cross.up"].verdict, v["cross.up"].other) == (SWAPPED, "cross.down")
    assert (v["cross.down"].verdict, v["cross.down"].other) == (SWAPPED, "cross.up")
    assert v["cockpit.flip"].verdict == STUCK
    assert v["cockpit.start"].verdict == CHATTER and v["cockpit.start"].events == 3
    assert v["lever.big"].verdict == CHATTER
    assert v["cross.ok"].verdict == NEVER
    bad = {c for c, x in v.items() if x.verdict not in (OK, NOT_WIRED)}
    assert bad == {"cross.up", "cross.down", "cockpit.flip", "cockpit.start", "lever.big", "cross.ok"}
    assert report.ok is False


def test_faults_on_the_coprocessor_matrix_are_named():
    faults = Faults(swapped=(("grid.r1c1", "grid.r1c2"), ("alarm.red", "cockpit.flip")),
                    stuck=("keypad.a",), chattering=("coords.ok",))
    _, _, report = run(REFERENCE, faults)
    v = verdict_of(report)
    assert (v["grid.r1c1"].verdict, v["grid.r1c1"].other) == (SWAPPED, "grid.r1c2")
    assert (v["grid.r1c2"].verdict, v["grid.r1c2"].other) == (SWAPPED, "grid.r1c1")
    # One wire on the Pi, one on the Pico's matrix: still a pair, both named.
    assert (v["alarm.red"].verdict, v["alarm.red"].other) == (SWAPPED, "cockpit.flip")
    assert v["keypad.a"].verdict == STUCK
    assert v["coords.ok"].verdict == CHATTER
    bad = {c for c, x in v.items() if x.verdict != OK}
    assert bad == {"grid.r1c1", "grid.r1c2", "alarm.red", "cockpit.flip", "keypad.a", "coords.ok"}
    assert report.coprocessor["frame_errors"] == 0


def test_off_a_pi_without_sim_is_one_clear_line(capsys):
    assert main(["check", str(SMALL)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: this machine is not a Raspberry Pi: run with --sim to use simulated pins"]


def test_a_bad_map_is_refused_before_any_pin_is_touched(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(SMALL.read_text().replace("[controls.lever]", "[controls.lever]\nhuge = { gpio = 14 }"))
    assert main(["check", str(bad), "--sim"]) == 2
    assert "unknown control id 'lever.huge'" in capsys.readouterr().err
