"""The guide's pictures, photographed from the real pages: `penguin-panel docs screenshots`
starts a real cockpit (`play --sim` on a free port, a temporary database), sets up a match
of each game through the API, and photographs each page in Debian's Chromium (driven by
Playwright, as the browser tests do) at the size it is used: the board on a TV, the
simulated panel on a tablet, the game master's, the tower's and the join page on a phone.
A changed page is re-photographed by running it again, never redrawn."""

from __future__ import annotations

import contextlib
import json
import re
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
# The browser tests' flags (tests/browser_helpers.py): no sandbox in a container, nothing
# fetched in the background, no first-run page.
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
TV, TABLET, PHONE = (1920, 1080), (1024, 768), (390, 844)
# Each page at the screen it is used on (docs/pages.md), and what shows once it has drawn.
PAGES = {"board": (TV, ".board"), "sim": (TABLET, ".ctl"), "admin": (PHONE, "#phase"),
         "tower": (PHONE, "body"), "join": (PHONE, "#qr svg")}
GAMES = ("airlines", "kaboom")
WAIT = 15_000  # ms: the longest a page may take to draw


def expected_images() -> dict[str, tuple[int, int]]:
    """Every picture the command writes, with its size in pixels."""
    shots = {f"{game}-{page}.png": size for game in GAMES for page, (size, _) in PAGES.items()}
    return {**shots, "debrief.png": PHONE}


def missing() -> str | None:
    """What is missing to photograph, in one line (None: nothing)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the screenshots need Playwright (pip install 'penguin-panel[dev]') and Debian's chromium"
    if not Path(CHROMIUM).is_file():
        return f"the screenshots need Debian's Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@contextlib.contextmanager
def cockpit(tmp: Path, pin: str):
    """`play --sim` on a free port with its own database and PIN; yields its base URL."""
    settings = tmp / "settings.toml"
    settings.write_text(f'[service]\npin = "{pin}"\n')
    # on the network's address (0.0.0.0): the join page then shows the QR code a café shows,
    # not the warning that a loopback address reaches this computer only
    proc = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--host", "0.0.0.0",
                             "--db", str(tmp / "panel.db"), "--settings", str(settings)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        seen = []
        for line in proc.stdout:
            seen.append(line)
            if m := re.search(r"serving on http://[^:/]+:(\d+)/", line):
                break
        else:
            raise RuntimeError("the cockpit did not start: " + "".join(seen)[-500:])
        yield f"http://127.0.0.1:{m.group(1)}"
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stdout.close()


class Photographer:
    def __init__(self, browser, base: str, pin: str, out: Path):
        self.browser, self.base, self.out = browser, base, out
        self.ctx = browser.new_context()
        r = self.ctx.request.post(base + "/api/admin/login", data=json.dumps({"pin": pin}),
                                  headers={"Content-Type": "application/json", "Origin": base})
        if not r.ok:
            raise RuntimeError(f"signing in: {r.status} {r.text()}")
        self.csrf = r.json()["csrf"]
        self.storage = None

    def post(self, path: str, body: dict) -> dict:
        r = self.ctx.request.post(self.base + path, data=json.dumps(body), headers={
            "Content-Type": "application/json", "Origin": self.base, "X-CSRF-Token": self.csrf})
        if not r.ok:
            raise RuntimeError(f"{path}: {r.status} {r.text()}")
        return r.json()

    def get(self, path: str) -> dict:
        return self.ctx.request.get(self.base + path).json()

    def shoot(self, name: str, path: str, size: tuple[int, int], ready: str) -> None:
        page = self.ctx.new_page()
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.goto(self.base + "/join")  # the game master's pages keep the CSRF token here
        page.evaluate("(t) => localStorage.setItem('pp_csrf', t)", self.csrf)
        page.goto(self.base + path)
        page.wait_for_selector(ready, state="attached", timeout=WAIT)
        page.wait_for_load_state("networkidle", timeout=WAIT)
        page.evaluate("() => document.fonts.ready")
        page.screenshot(path=str(self.out / name))
        page.close()

    def game(self, game: str) -> None:
        code = self.get("/api/join")["code"]
        for page, (size, ready) in PAGES.items():
            path = f"/tower?code={code}" if page == "tower" else f"/{page}"
            self.shoot(f"{game}-{page}.png", path, size, ready)


def photograph(out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    pin = f"{secrets.randbelow(10**6):06d}"
    with tempfile.TemporaryDirectory() as tmp, cockpit(Path(tmp), pin) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            p = Photographer(browser, base, pin, out)
            p.post("/api/admin/match", {"teams": [{"name": "Gulls", "players": ["Ana", "Bo"]},
                                                  {"name": "Puffins", "players": ["Cy", "Di"]}],
                                        "seed": 61, "turn_seconds": 300})
            p.post("/api/admin/action", {"action": "start_turn"})
            p.game("airlines")
            p.post("/api/admin/action", {"action": "end", "when": "now"})
            p.shoot("debrief.png", "/debrief", PHONE, "svg")
            colours = p.get("/api/admin/status")["games"]["kaboom"]["colours"]
            p.post("/api/admin/match", {"mode": "kaboom", "players": colours[:4], "difficulty": "easy",
                                        "mission": 1})
            p.post("/api/admin/action", {"action": "start"})
            p.game("kaboom")
        finally:
            browser.close()
    return [out / name for name in expected_images()]
