"""The wiring generator: tables and drawings from both shipped maps, a bad map refused,
and the committed files of the shipped builds up to date with their maps."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from panel.tools.cli import main
from panel.hardware.map import load_map
from panel.core.layout_file import load_layout
from panel.tools.wiring import normalise_svg, stale_files, wiring_files

pytestmark = pytest.mark.kit

ROOT = Path(__file__).resolve().parent.parent
MAPS = {"reference": ROOT / "panel" / "maps" / "reference.toml", "small": ROOT / "panel" / "maps" / "small.toml"}


@pytest.fixture(scope="module")
def generated():
    out = {}
    for name, path in MAPS.items():
        hmap = load_map(path)
        layout = load_layout(None, expansion=hmap.expansion)
        out[name] = (hmap, layout, wiring_files(hmap, layout))
    return out


@pytest.mark.parametrize("build", sorted(MAPS))
def test_committed_wiring_is_up_to_date_with_its_map(build):
    """CI fails here when a map changes and its wiring/ files were not made again: the real
    `penguin-panel wiring BUILD --out wiring/BUILD --check`, run on the committed folder."""
    r = subprocess.run([sys.executable, "-m", "panel", "wiring", build, "--out", f"wiring/{build}", "--check"],
                       cwd=ROOT, capture_output=True, text=True, env={**os.environ, "LANG": "C.UTF-8"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"wiring/{build}: up to date with {build}"


def test_reference_pinout_names_every_control_and_pin(generated):
    hmap, layout, files = generated["reference"]
    md = files["pinout.md"]
    rows = [l for l in md.splitlines() if l.startswith("| ")]
    # 40 header rows, 40 Pico rows, one row per control of the layout (+ header lines).
    assert "| 11 | GPIO17 | switch.middle (closed = up) | pull up, active low |" in md
    assert "| 33 | GPIO13 | cockpit.flip | pull up, active low |" in md
    assert "| 35 | GPIO19 | knob.main encoder A | pull up |" in md
    assert "| 32 | GPIO12 | buzzer" in md
    assert "| 31 | GP26 | slider.blue (ADC0) |" in md
    assert "| 1 | GP0 | matrix row 0 |" in md
    for c in layout.controls():
        assert any(r.startswith(f"| {c.id} |") for r in rows), c.id
    assert "not wired" not in md  # the reference build wires every control


def test_reference_matrix_table_lists_every_cell(generated):
    hmap, _, files = generated["reference"]
    md = files["matrix.md"]
    cells = hmap.matrix_cells()
    assert len(cells) == 77
    for (r, c), cid in cells.items():
        assert f"| {r} | GP{hmap.coprocessor.rows[r]} (pin " in md
        assert f" | {c} | GP{hmap.coprocessor.cols[c]} (pin " in md
    assert "| 1 | GP1 (pin 2) | 2 | GP10 (pin 14) | cross.up |" in md
    assert "| 7 | GP7 (pin 10) | 6 | GP14 (pin 19) | keypad.ok |" in md


def test_small_build_has_no_matrix_and_lists_unwired_controls(generated):
    hmap, layout, files = generated["small"]
    assert "no button matrix" in files["matrix.md"]
    assert "harness-pico.svg" not in files and "matrix.svg" not in files
    assert "| grid.r1c1 | button | not wired (click it on the screen) |" in files["pinout.md"]
    assert "| 1 | CH0 | slider.blue |" in files["pinout.md"]  # the MCP3008's channels
    assert "| 13 | CLK | Pi GPIO11 (pin 23) |" in files["pinout.md"]


@pytest.mark.parametrize("build", sorted(MAPS))
def test_drawings_are_svg_naming_the_parts(generated, build):
    hmap, _, files = generated[build]
    svgs = {n: t for n, t in files.items() if n.endswith(".svg")}
    assert "harness-pi.svg" in svgs and "analog.svg" in svgs
    for name, text in svgs.items():
        root = ET.fromstring(text)
        assert root.tag.endswith("svg"), name
        assert "<!--" not in text  # normalised: nothing that varies between runs
    pi = svgs["harness-pi.svg"]
    for cid in hmap.controls:
        s = hmap.controls[cid]
        if type(s).__name__ in ("GpioSource", "PinPairSource"):
            assert cid.replace(".", "\u00b7") in pi, cid
    assert "slider.blue" in svgs["analog.svg"]
    if "matrix.svg" in svgs:
        assert all(cid in svgs["matrix.svg"] for cid in hmap.matrix_cells().values())


def test_generation_is_deterministic(generated):
    hmap, layout, files = generated["reference"]
    assert wiring_files(hmap, layout) == files


def test_command_writes_then_check_finds_a_stale_file(tmp_path, capsys):
    out = tmp_path / "w"
    assert main(["wiring", str(MAPS["small"]), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["analog.svg", "harness-pi.svg", "harness-pi.yml",
                                                     "matrix.md", "pinout.md"]
    assert main(["wiring", str(MAPS["small"]), "--out", str(out), "--check"]) == 0
    pin = out / "pinout.md"
    pin.write_text(pin.read_text().replace("switch.left", "switch.lft"))
    (out / "matrix.svg").write_text("<svg/>")
    capsys.readouterr()
    assert main(["wiring", str(MAPS["small"]), "--out", str(out), "--check"]) == 1
    err = capsys.readouterr().err
    assert "pinout.md is stale" in err and "matrix.svg is no longer made from this map" in err
    assert "analog.svg" not in err


def test_svg_comments_do_not_count_as_changes(tmp_path):
    files = {"a.svg": normalise_svg("<svg><g/></svg>")}
    (tmp_path / "a.svg").write_text("<!-- Generated by graphviz version 99 -->\n<svg><g/></svg>\n")
    assert stale_files(files, tmp_path) == {}


def test_a_map_with_errors_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(MAPS["small"].read_text()
                   .replace("left = { gpio = 4, closed = \"up\" }", "left = { gpio = 17, closed = \"up\" }")
                   .replace("[controls.lever]", "[controls.lever]\nhuge = { gpio = 19 }"))
    out = tmp_path / "w"
    assert main(["wiring", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert any("controls.switch.left.gpio" in l and "GPIO17 is used twice" in l for l in err), err
    assert all(l.startswith("error: ") and "Traceback" not in l for l in err)
    assert not out.exists()


def test_a_map_naming_an_unknown_control_is_refused(tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(MAPS["small"].read_text().replace("[controls.lever]", "[controls.lever]\nhuge = { gpio = 14 }"))
    assert main(["wiring", str(bad), "--out", str(tmp_path / "w")]) == 2
    err = capsys.readouterr().err
    assert "controls.lever.huge" in err and "unknown control id 'lever.huge'" in err
    assert not (tmp_path / "w").exists()
