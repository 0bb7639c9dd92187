"""The kiosk: the command the unit runs, and Debian's real Chromium, given exactly the kiosk's
flags (headless here, with no screen), showing the board of a running service."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from panel.tools import kiosk
from panel.tools.cli import main
from service_helpers import ServiceThread

CHROMIUM = "/usr/bin/chromium"
WAIT = 20_000  # ms: the longest the board may take to show what it should


def test_print_shows_the_command_the_unit_runs(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path / "run"))
    settings = tmp_path / "settings.toml"
    settings.write_text("[service]\nport = 8123\n")
    assert main(["kiosk", "--settings", str(settings), "--print"]) == 0
    cmd = shlex.split(capsys.readouterr().out)
    sep = cmd.index("--")
    assert sep == 1 and Path(cmd[0]).name == "cage"
    assert cmd[sep + 2:] == kiosk.chromium_args("http://127.0.0.1:8123/board", profile=tmp_path / "run" / "chromium")
    assert not (tmp_path / "run").exists()  # --print touches nothing


def test_the_port_comes_from_the_settings_file(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("RUNTIME_DIRECTORY", str(tmp_path))
    assert main(["kiosk", "--print"]) == 0
    assert capsys.readouterr().out.rstrip().endswith(" http://127.0.0.1:8080/board")
    settings = tmp_path / "settings.toml"
    settings.write_text("[service]\nport = 0\n")
    assert main(["kiosk", "--settings", str(settings)]) == 2
    assert "the kiosk needs a fixed one" in capsys.readouterr().err


def test_the_kiosk_needs_a_runtime_folder_and_its_programs(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("RUNTIME_DIRECTORY", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    assert main(["kiosk"]) == 2
    assert "XDG_RUNTIME_DIR is not set" in capsys.readouterr().err
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setattr(kiosk, "missing_programs", lambda: ["cage"])
    assert main(["kiosk"]) == 2
    err = capsys.readouterr().err
    assert "the kiosk needs cage: sudo apt-get install cage" in err and "Traceback" not in err


def test_each_start_gets_an_empty_profile(tmp_path):
    profile = kiosk.profile_dir({"RUNTIME_DIRECTORY": str(tmp_path)})
    assert profile == tmp_path / "chromium"
    (profile / "Default").mkdir(parents=True)
    (profile / "Default" / "Preferences").write_text('{"exited_cleanly": false}')
    kiosk.fresh_profile(profile)
    assert profile.is_dir() and list(profile.iterdir()) == []


class Headless:
    """Chromium started as the kiosk starts it, plus what headless needs: no screen, a
    screen the size of a TV (the kiosk fills it), a DevTools port for Playwright to look at the page."""

    def __init__(self, url: str, profile: Path):
        cmd = kiosk.command(url, cage="cage", browser=CHROMIUM, profile=profile)
        self.args = cmd[cmd.index("--") + 1:]
        extra = ["--headless", "--remote-debugging-port=0", "--screen-info={0,0 1920x1080}"]
        if os.geteuid() == 0:
            extra.append("--no-sandbox")  # Chromium's sandbox refuses root (CI containers)
        self.proc = subprocess.Popen([*self.args, *extra], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True)
        self.endpoint: str | None = None
        self._found = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:  # reads to the end: a full pipe would stall Chromium
        for line in self.proc.stderr:
            m = re.search(r"DevTools listening on (ws://\S+)", line)
            if m and self.endpoint is None:
                self.endpoint = m.group(1)
                self._found.set()
        self._found.set()

    def wait_endpoint(self) -> str:
        self._found.wait(60)
        assert self.endpoint, "Chromium did not start"
        return self.endpoint

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(5)


@pytest.mark.browser
@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is installed by bootstrap.py test")
def test_the_kiosk_command_shows_the_board(tmp_path):
    # As in a café: the cockpit serves the network, and the kiosk (a browser on the Pi, at
    # 127.0.0.1) is the room screen that may show the join code.
    with ServiceThread(tmp_path / "panel.db", host="0.0.0.0") as svc:
        browser = Headless(kiosk.board_url(svc.port), tmp_path / "profile")
        try:
            assert browser.args[0] == CHROMIUM and "--kiosk" in browser.args
            with sync_playwright() as p:
                cdp = p.chromium.connect_over_cdp(browser.wait_endpoint())
                page = cdp.contexts[0].pages[0]
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                assert page.url == f"http://127.0.0.1:{svc.port}/board"
                # No match yet: START to play, and the QR code of the next match's tower.
                expect(page.locator("h1")).to_have_text("Penguin Airlines", timeout=WAIT)
                expect(page.locator("#team")).to_have_text("Press START to play", timeout=WAIT)
                code = svc.client().get("/api/join")[1]["code"]
                expect(page.locator("#joincode")).to_have_text(code, timeout=WAIT)
                expect(page.locator("#joinbox .qr svg")).to_be_visible()
                expect(page.locator("#live")).to_have_text("live", timeout=WAIT)  # its socket is up
                assert page.evaluate("[innerWidth, innerHeight]") == [1920, 1080]
                cdp.close()
                assert errors == []
        finally:
            browser.close()
