"""What the browser tests share: the real service as a subprocess, Debian's Chromium through
Playwright, signing in, the checks that a page fits its screen, and the English words a
page shown in Spanish must not hold.

The service is `penguin-panel play --sim` started on a free port with a temporary SQLite
file; Playwright drives /usr/bin/chromium (never a downloaded browser). On a failed check
the page's screenshot is saved and its path named in the failure message.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from playwright.sync_api import BrowserContext, Page

from panel.core import i18n

from panel.tools.screenshots import ARGS, CHROMIUM  # noqa: E402,F401 (the one place: the guide's pictures use them too)
PIN = "4321"
WAIT = 15_000  # ms: the longest any page may take to show what it should
# A turn's end is a moment on the board (its final state, its result, a round's summary, a few
# seconds each, board.js): what comes after it is waited for this long.
MOMENT_WAIT = 40_000
# A control id as scripts read it ("beacon.white", "round_lever.red"): never in a page's text.
CONTROL_ID = re.compile(r"[a-z_]+\.[a-z0-9_]+")


@contextlib.contextmanager
def service(tmp: Path, settings: str = "", *, host: str | None = None):
    """`penguin-panel play --sim` on a free port with its own SQLite file (listening on `host`,
    this computer only by default); yields its base URL on this computer."""
    path = tmp / "settings.toml"
    path.write_text(f'[service]\npin = "{PIN}"\n{settings}')
    proc = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0",
                             "--db", str(tmp / "panel.db"), "--settings", str(path)] + (["--host", host] if host else []),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base, seen = None, []
    give_up = time.monotonic() + 60  # a guard against a hung start, not an assertion on speed
    while base is None and time.monotonic() < give_up:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(r"serving on (http://127\.0\.0\.1:\d+)/", line)
        if m:
            base = m.group(1)
    if base is None:
        proc.kill()
        pytest.fail("the service did not start:\n" + "".join(seen))
    try:
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        proc.stdout.close()


class GameMaster:
    """The game master's API, signed in from a browser context: its cookie and CSRF token are
    that context's, so its pages are signed in too (the token is where /admin keeps it)."""

    def __init__(self, ctx: BrowserContext, base: str):
        self.ctx, self.base = ctx, base
        r = ctx.request.post(base + "/api/admin/login", data=json.dumps({"pin": PIN}),
                             headers={"Content-Type": "application/json", "Origin": base})
        assert r.ok, r.text()
        self.csrf = r.json()["csrf"]
        page = ctx.new_page()
        page.goto(base + "/join")
        page.evaluate("(t) => localStorage.setItem('pp_csrf', t)", self.csrf)
        page.close()

    def post(self, path: str, body: dict) -> dict:
        r = self.ctx.request.post(self.base + path, data=json.dumps(body), headers={
            "Content-Type": "application/json", "Origin": self.base, "X-CSRF-Token": self.csrf})
        assert r.ok, f"{path} {body}: {r.status} {r.text()}"
        return r.json()

    def act(self, action: str, **params) -> dict:
        return self.post("/api/admin/action", {"action": action, **params})

    def press(self, control: str) -> None:
        """A press and release on the simulated panel, as its page sends them."""
        for value in (True, False):
            r = self.ctx.request.post(self.base + "/api/sim/input", data=json.dumps({"control": control, "value": value}),
                                      headers={"Content-Type": "application/json", "Origin": self.base})
            assert r.ok, r.text()

    def state(self) -> dict:
        return self.ctx.request.get(self.base + "/api/state").json()


# The page's own measure of how it fits: run in the page, it returns the problems it finds.
FITS = r"""(idPattern) => {
  const vw = document.documentElement.clientWidth, vh = window.innerHeight;
  const problems = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > vw) problems.push(`the page is ${doc.scrollWidth} px wide on a ${vw} px screen`);
  const shown = (e) => e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  const name = (e) => (e.id ? `#${e.id}` : '') + ` "${(e.textContent || e.getAttribute('aria-label') || '').trim().slice(0, 30)}"`;
  const hit = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const fixed = [...document.querySelectorAll('body *')].filter((e) => shown(e) && getComputedStyle(e).position === 'fixed');
  const fields = [...document.querySelectorAll('select, input, textarea')].filter(shown);
  for (const b of [...document.querySelectorAll('button')].filter(shown)) {
    const r = b.getBoundingClientRect();
    if (r.left < -0.5 || r.right > vw + 0.5) { problems.push(`button ${name(b)} is outside the screen (${Math.round(r.left)} to ${Math.round(r.right)} of ${vw} px)`); continue; }
    const box = b.closest('.module, .card-box, .cockpit, dialog');
    if (box) {
      const o = box.getBoundingClientRect();
      if (r.left < o.left - 0.5 || r.right > o.right + 0.5) problems.push(`button ${name(b)} sticks out of its box`);
    }
    for (const f of fixed) {
      if (!f.contains(b) && !b.contains(f) && hit(r, f.getBoundingClientRect())) problems.push(`button ${name(b)} is under ${name(f)}`);
    }
    for (const f of fields) {
      if (!b.contains(f) && hit(r, f.getBoundingClientRect())) problems.push(`button ${name(b)} overlaps the field ${name(f)}`);
    }
  }
  const ids = document.body.innerText.match(new RegExp(idPattern, 'g'));
  if (ids) problems.push(`control ids in the text: ${[...new Set(ids)].slice(0, 5).join(', ')}`);
  return problems;
}"""


def screenshot(page: Page, shots: Path, label: str) -> Path:
    path = shots / (re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") + ".png")
    page.screenshot(path=str(path), full_page=True)
    return path


def check_fits(page: Page, shots: Path, label: str, *, whole: bool = False) -> None:
    """No sideways scrolling, every visible button on the screen (inside its box, under no
    fixed layer, over no form field), no control id in the text, and with `whole` nothing
    below the screen's bottom either (a TV nobody scrolls); else the screenshot."""
    problems = page.evaluate(FITS, CONTROL_ID.pattern)
    if whole:
        height, tall = page.evaluate("() => [window.innerHeight, document.documentElement.scrollHeight]")
        if tall > height:
            problems.append(f"the page is {tall} px tall on a {height} px screen nobody scrolls")
    if problems:
        path = screenshot(page, shots, label)
        pytest.fail(f"{label}: " + "; ".join(problems) + f" (screenshot: {path})")


def expect_or_shoot(page: Page, shots: Path, label: str, check) -> None:
    """Run a Playwright expectation; when it fails, save the page and name the file."""
    try:
        check()
    except AssertionError as e:
        path = screenshot(page, shots, label)
        raise AssertionError(f"{label}: {e} (screenshot: {path})") from None


# ---------------------------------------------------------------- a page in Spanish

WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")


def english_words() -> set[str]:
    """The words of the pages' English texts (the catalog's messages found in the pages'
    scripts and HTML), less every word that Spanish uses too (the catalog's translations,
    without what they quote: a settings file's key, 'press', is a word of the file, not of
    Spanish)."""
    with (i18n.LOCALE_DIR / f"{i18n.DOMAIN}.pot").open("rb") as f:
        pot = read_po(f)
    with (i18n.LOCALE_DIR / "es" / "LC_MESSAGES" / f"{i18n.DOMAIN}.po").open("rb") as f:
        es = read_po(f)
    english = set()
    for m in pot:
        if m.id and any(path.startswith("panel/web/static/") for path, _ in m.locations):
            for text in m.id if isinstance(m.id, tuple) else (m.id,):
                english |= {w.lower() for w in WORD.findall(re.sub(r"\{\w+\}", " ", text)) if len(w) > 2}
    spanish = {w.lower() for m in es if m.id for s in (m.string if isinstance(m.string, tuple) else (m.string,))
               for w in WORD.findall(re.sub(r"\{\w+\}|'[^'\s]*'", " ", s))}
    return english - spanish


ENGLISH = english_words()

# What a person reads on the page: its text, its title, and the words of what it shows
# (a button's title, a field's placeholder, an aria-label).
READ = r"""() => {
  const shown = (e) => e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  const texts = [document.title, document.body.innerText];
  for (const e of document.body.querySelectorAll('[title], [placeholder], [aria-label]')) {
    if (!shown(e)) continue;
    for (const a of ['title', 'placeholder', 'aria-label']) if (e.getAttribute(a)) texts.push(e.getAttribute(a));
  }
  return texts;
}"""

# Anything shown beyond the screen's right or left edge (outside a box that scrolls or clips it).
WIDER = r"""() => {
  const vw = document.documentElement.clientWidth;
  const held = (e) => {
    for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    }
    return false;
  };
  const out = [];
  if (document.documentElement.scrollWidth > vw) out.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  for (const e of document.body.querySelectorAll('*')) {
    if (!e.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
    const r = e.getBoundingClientRect();
    if (r.width && (r.right > vw + 1 || r.left < -1) && !held(e)) {
      out.push(`<${e.tagName.toLowerCase()}${e.id ? ' #' + e.id : ''}> "${(e.textContent || '').trim().slice(0, 40)}" `
        + `from ${Math.round(r.left)} to ${Math.round(r.right)} px`);
    }
  }
  return out.slice(0, 6);
}"""


def leftovers(texts: list[str], server: list[str]) -> dict[str, str]:
    """English words in the texts read, each with where it was seen."""
    found = {}
    for text in texts:
        text = re.sub(r"https?://\S+", " ", text)  # an address is no word (the join page's)
        for s in server:
            text = re.sub(rf"(?<!\w){re.escape(s)}(?!\w)", " ", text)
        for w in WORD.findall(text):
            if w.lower() in ENGLISH and w.lower() not in found:
                i = text.find(w)
                found[w.lower()] = text[max(0, i - 40):i + 40].replace("\n", " ")
    return found
