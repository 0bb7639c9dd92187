"""Set-up words (issue 23, item 10): what the commands print and run is what the guide says.

`bootstrap.py start` adds its options to `play --sim`; `penguin-panel kiosk --print` shows
the unit's command from any shell; `broker-config` prints the password file's `chown`, as
the guide does; /join's warning leads to the guide's "Let phones in"."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

# (it reads the kiosk's Chromium command line: with the browser tests, as tests/test_markers.py asks)
pytestmark = pytest.mark.browser

from panel.tools import kiosk
from panel.tools.cli import main

ROOT = Path(__file__).resolve().parent.parent


def bootstrap():
    spec = importlib.util.spec_from_file_location("bootstrap", ROOT / "bootstrap.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("rest,args", [
    ([], ["play", "--sim"]),
    (["--port", "8081"], ["play", "--sim", "--port", "8081"]),
    (["--sim", "--host", "0.0.0.0"], ["play", "--sim", "--host", "0.0.0.0"]),  # the guide's line, as it was
    (["--hardware", "reference"], ["play", "--hardware", "reference"]),  # a built cockpit: no simulator
    (["--hardware=my-map.toml", "--port", "80"], ["play", "--hardware=my-map.toml", "--port", "80"]),
])
def test_bootstrap_start_adds_its_options_to_the_simulator(rest, args):
    assert bootstrap().start_args(rest) == args


def test_kiosk_print_works_outside_a_login_session_and_shows_the_guides_profile(monkeypatch, capsys):
    """From an ssh shell with no XDG_RUNTIME_DIR (or one with its own): the command the unit
    runs, its profile where the guide and the unit say."""
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    for env in (None, "/run/user/1000"):
        if env is None:
            monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
        else:
            monkeypatch.setenv("XDG_RUNTIME_DIR", env)
        assert main(["kiosk", "--print"]) == 0
        cmd = shlex.split(capsys.readouterr().out)
        assert "--user-data-dir=/run/penguin-panel-kiosk/chromium" in cmd
    unit = (ROOT / "systemd" / "penguin-panel-kiosk.service").read_text()
    assert f"RuntimeDirectory={kiosk.UNIT_RUNTIME_DIRECTORY.name}\n" in unit
    assert "`/run/penguin-panel-kiosk/chromium`" in (ROOT / "docs" / "cafes.md").read_text()


def test_broker_config_prints_the_password_files_owner_as_the_guide_does(tmp_path, capsys):
    assert main(["broker-config", "cockpit-1", "--out", str(tmp_path)]) == 0
    steps = [line for line in capsys.readouterr().err.splitlines() if line.startswith("sudo ")]
    chown = "sudo chown root:mosquitto /etc/mosquitto/penguin-panel.passwd"
    assert any(line.startswith(chown) for line in steps)
    guide = (ROOT / "docs" / "venues.md").read_text()
    assert [s for s in steps if s.startswith("sudo chown")][0] in guide
    assert steps.index(next(s for s in steps if s.startswith("sudo chown"))) < steps.index("sudo systemctl restart mosquitto")


def slug(heading: str) -> str:
    """Python-Markdown's toc anchor of a heading."""
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", heading).strip().lower())


def test_the_join_pages_warning_leads_to_let_phones_in():
    html = (ROOT / "panel" / "web" / "static" / "join.html").read_text()
    m = re.search(r'id="loopback".*?href="/help/([a-z-]+)\.html#([a-z-]+)"', html, re.S)
    assert m, "the loopback warning links into the guide"
    page, anchor = m.groups()
    headings = re.findall(r"^#+ (.+)$", (ROOT / "docs" / f"{page}.md").read_text(), re.M)
    assert anchor == "let-phones-in" and anchor in {slug(h) for h in headings}
