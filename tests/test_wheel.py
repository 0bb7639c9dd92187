"""The package as a user gets it: the wheel built from this checkout, installed in a fresh
virtual environment, run from a folder that is not the checkout. The shipped hardware
maps come with it: `hardware check` takes one by name, and the self-test's default map
is found; the guide is built into it and the cockpit serves it at /help/ with no network."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def run(cmd, **kw) -> subprocess.CompletedProcess:
    # Without PYTHONPATH: a checkout on it would be imported instead of the installed package,
    # and pip would take the egg-info the build left there for the package already installed.
    kw.setdefault("env", {k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
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
    assert "panel/web/static/games/pengo-jump/style.css" in names  # a game's own styles, beside its parts


def test_hardware_check_takes_a_shipped_map_by_name(installed):
    _, cli, away = installed
    r = run([cli, "hardware", "check", "reference", "--strict"], cwd=away)
    assert r.stdout.strip() == "reference: OK"
    r = subprocess.run([str(cli), "hardware", "check", "nosuch"], cwd=away, capture_output=True, text=True,
                       env={"PATH": "/usr/bin:/bin"})
    assert r.returncode == 2 and r.stderr == "error: nosuch: no such file, nor a shipped map (reference, small)\n"


def test_the_self_test_finds_its_default_map(installed, tmp_path):
    _, cli, away = installed
    r = run([cli, "check", "--sim", "--report"], cwd=away,
            env={"PATH": "/usr/bin:/bin", "PENGUIN_PANEL_CALIBRATION": str(tmp_path / "c.toml")})
    report = json.loads(r.stdout)
    assert report["build"] == "Reference build" and report["ok"] is True


# Run inside a network namespace of its own (`unshare -rn`: no interface but loopback): the
# installed cockpit, started from elsewhere, and a client asking it for the guide.
OFFLINE_GET = r"""
import re, subprocess, sys, urllib.request
p = subprocess.Popen([sys.argv[1], "play", "--sim", "--port", "0", "--db", sys.argv[2]],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
try:
    base = next(m.group(1) for line in p.stdout if (m := re.search(r"serving on (http://\S+?)/ ", line)))
    for path in sys.argv[3:]:
        with urllib.request.urlopen(base + path, timeout=20) as r:
            print(path, r.status, r.headers["Cache-Control"], len(r.read()), flush=True)
    with urllib.request.urlopen(base + "/help/", timeout=20) as r:
        sys.stdout.write(r.read().decode())
finally:
    p.terminate()
    p.wait()
"""


def test_the_installed_cockpit_serves_its_guide_with_no_network(installed, tmp_path):
    wheel, cli, away = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert {"panel/web/help/index.html", "panel/web/help/cafes.html",
            "panel/web/help/search/search_index.json"} <= set(names)
    index = zipfile.ZipFile(wheel).read("panel/web/help/index.html").decode()
    css = re.search(r'href="(assets/stylesheets/main\.[^"]+\.css)"', index).group(1)
    offline = ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "offline"]
    if not shutil.which("unshare") or subprocess.run([*offline, "true"], capture_output=True).returncode != 0:
        offline = []  # no user namespaces here: still the files of the wheel, read from disk
    python = cli.parent / "python"
    r = run([*offline, python, "-c", OFFLINE_GET, cli, tmp_path / "p.db", "/help/", f"/help/{css}",
             "/help/cafes.html"], cwd=away, env={"PATH": "/usr/bin:/bin"})
    lines = r.stdout.splitlines()
    assert lines[0].startswith("/help/ 200 no-cache ")
    assert lines[1].startswith(f"/help/{css} 200 public, max-age=86400 ")
    assert lines[2].startswith("/help/cafes.html 200 no-cache ")
    assert "<title>Penguin Airlines cockpit</title>" in r.stdout
