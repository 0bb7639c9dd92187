"""The package as a user gets it: the wheel built from this checkout, installed in a fresh
virtual environment, run from a folder that is not the checkout. The shipped hardware
maps come with it: `hardware check` takes one by name, and the self-test's default map
is found."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def run(cmd, **kw) -> subprocess.CompletedProcess:
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=600, **kw)
    assert r.returncode == 0, f"{' '.join(map(str, cmd))}\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}"
    return r


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp / "dist", ROOT])
    wheel = next((tmp / "dist").glob("penguin_panel-*.whl"))
    run([sys.executable, "-m", "venv", tmp / "venv"])
    # Dependencies come from the index (pip's cache on a machine that set up the project).
    run([tmp / "venv" / "bin" / "python", "-m", "pip", "install", "-q", wheel])
    away = tmp / "elsewhere"
    away.mkdir()
    return wheel, tmp / "venv" / "bin" / "penguin-panel", away


def test_the_wheel_ships_the_maps_and_only_what_exists(installed):
    wheel, _, _ = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert {"panel/maps/reference.toml", "panel/maps/small.toml", "panel/layouts/penguin-airlines.toml"} <= set(names)
    assert any(n.startswith("panel/web/static/") for n in names)
    assert {"panel/web/static/games/index.js", "panel/web/static/games/kaboom/board.js"} <= set(names)  # the games' parts


def test_hardware_check_takes_a_shipped_map_by_name(installed):
    _, cli, away = installed
    r = run([cli, "hardware", "check", "reference", "--strict"], cwd=away)
    assert r.stdout.strip() == "reference: OK"
    r = subprocess.run([str(cli), "hardware", "check", "nosuch"], cwd=away, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr == "error: nosuch: no such file, nor a shipped map (reference, small)\n"


def test_the_self_test_finds_its_default_map(installed, tmp_path):
    _, cli, away = installed
    r = run([cli, "check", "--sim", "--report"], cwd=away,
            env={"PATH": "/usr/bin:/bin", "PENGUIN_PANEL_CALIBRATION": str(tmp_path / "c.toml")})
    report = json.loads(r.stdout)
    assert report["build"] == "Reference build" and report["ok"] is True
