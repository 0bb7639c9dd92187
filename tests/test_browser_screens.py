"""Every page fits every screen it is used on, in every phase of a match.

One service and one browser for the whole matrix: a phone (390x844), a tablet (1024x768)
and a TV (1920x1080) each open every page once; the match is then driven through its phases
by the API (no match, between turns, in a turn, paused, a turn's end and the turn after it,
ended), and each open page, once it shows the phase, is measured: no sideways scrolling,
every visible button on the screen (inside its box, under no fixed layer, over no field),
no control id in its text. A failure names the page, the screen and the phase, and the path
of the page's screenshot.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect, sync_playwright

from browser_helpers import ARGS, CHROMIUM, MOMENT_WAIT, WAIT, GameMaster, check_fits, expect_or_shoot, service

pytestmark = pytest.mark.browser

SCREENS = {"phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
           "tablet": {"viewport": {"width": 1024, "height": 768}, "has_touch": True},
           "tv": {"viewport": {"width": 1920, "height": 1080}},
           "small phone": {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}}
PAGES = ("admin", "board", "tower", "sim", "join", "debrief")
# The pages held in one hand are also checked on a small phone, 360 px wide.
ON = {screen: PAGES if screen != "small phone" else ("admin", "tower", "join") for screen in SCREENS}
TEAMS = [{"name": "Penguins", "players": ["Ana", "Ben"]}, {"name": "Puffins", "players": ["Cleo", "Dan"]}]
# The phase each page shows (its data-phase) as the match moves on.
SHOWN = {"idle": "idle", "between": "between_turns", "in_turn": "in_turn", "paused": "paused",
         "turn_over": "between_turns", "next_turn": "between_turns", "ended": "ended", "kaboom": "playing"}


@pytest.fixture(scope="module")
def matrix(tmp_path_factory):
    """The service, the browser, a signed-in game master and every page open on every screen."""
    shots = tmp_path_factory.mktemp("screens")
    with service(tmp_path_factory.mktemp("service")) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        gm_ctx = browser.new_context()
        gm = GameMaster(gm_ctx, base)
        code = gm.ctx.request.get(base + "/api/join").json()["code"]  # the next match's: the tower joins ahead
        errors: list[str] = []
        open_pages = {}
        for screen, options in SCREENS.items():
            ctx = browser.new_context(storage_state=gm_ctx.storage_state(), **options)
            for name in ON[screen]:
                page = ctx.new_page()
                page.on("pageerror", lambda e, where=f"{name} on the {screen}": errors.append(f"{where}: {e}"))
                page.goto(f"{base}/{name}" + (f"?code={code}" if name == "tower" else ""))
                open_pages[(screen, name)] = page
        yield type("Matrix", (), {"gm": gm, "pages": open_pages, "shots": shots, "base": base, "errors": errors,
                                  "code": code})
        browser.close()
    assert errors == [], errors  # no page threw a script error


def shows(page, name: str, phase: str) -> None:
    """Wait until the page shows the phase the match is in."""
    if name == "join":
        code = page.request.get(page.url.split("/join")[0] + "/api/join").json()["code"]
        expect(page.locator("#code")).to_have_text(code, timeout=WAIT)
        return
    if name == "debrief":
        page.reload()
        expect(page.locator("#app" if phase != "idle" else "#nomatch")).to_be_visible(timeout=WAIT)
        return
    if name == "tower" and phase == "kaboom":  # a new match's code: the tower that joined the last one asks for it
        expect(page.locator("#codeerror")).to_have_text("The match changed: scan the new join code.", timeout=WAIT)
        return
    root = {"admin": ".admin", "board": ".board", "tower": ".tower", "sim": ".sim"}[name]
    expect(page.locator(root)).to_have_attribute("data-phase", SHOWN[phase], timeout=WAIT)


def wrong_button(m, avoid: str | None = None) -> str:
    """A button the card in play does not ask for (pressed, it is a mistake)."""
    card = m.gm.ctx.request.get(f"{m.base}/api/tower?code={m.code}").json()["card"]
    return next(b for b in ("alarm.red", "alarm.yellow", "beacon.red", "radio.1", "radio.2")
                if b != avoid and b not in card.get("press", []) and b.split(".")[0] != card.get("section"))


def check_every_page(m, phase: str) -> None:
    for (screen, name), page in m.pages.items():
        label = f"{name} on the {screen} ({phase})"
        expect_or_shoot(page, m.shots, label, lambda: shows(page, name, phase))
        check_fits(page, m.shots, label, whole=(screen, name) == ("tv", "board"))


def test_join_warns_in_words_when_its_qr_code_leads_to_this_machine_only(matrix):
    """The test service listens on 127.0.0.1: a phone could not open the QR code's address.
    (First of the module: no match is in play yet, so the board shows its join corner.)"""
    for screen in ("phone", "small phone", "tv"):
        join = matrix.pages[(screen, "join")]
        expect(join.locator("#url")).to_have_text(re.compile(r"^http://127\.0\.0\.1:\d+/tower\?code="))
        warning = join.locator("#loopback")
        expect(warning).to_be_visible()
        expect(warning).to_contain_text("a phone cannot open it")
        expect(warning).to_contain_text("--host 0.0.0.0")
        expect(join.locator("#simnote")).to_have_text(
            "The simulated panel takes presses only on the computer running the cockpit, opened at 127.0.0.1; "
            "phones join as the tower.")
    for screen in ("phone", "tv"):
        expect(matrix.pages[(screen, "board")].locator("#joinwarn")).to_be_visible()


def test_every_page_fits_every_screen_in_every_phase(matrix):
    m, gm = matrix, matrix.gm
    check_every_page(m, "idle")

    gm.post("/api/admin/match", {"teams": TEAMS, "seed": 61, "turn_seconds": 300})
    check_every_page(m, "between")

    gm.act("start_turn")
    # A card done (a rejected challenge counts it) and a mistake: the completed card is drawn
    # on /admin, the stuck control named in plain words on every page.
    gm.act("challenge", team="Puffins", card="current")
    gm.act("rule", upheld=False)
    gm.press(wrong_button(m))
    assert gm.state()["mistakes"] == 1
    check_every_page(m, "in_turn")
    for screen in SCREENS:
        expect(m.pages[(screen, "admin")].locator("#donebox figcaption")).to_have_text(["Completed card 1"])
        # The tower's phone keeps its screen on while the turn runs (the browser grants it on
        # the cockpit's own address), and lets it sleep after.
        expect(m.pages[(screen, "tower")].locator("body")).to_have_attribute("data-awake", "locked", timeout=WAIT)

    gm.act("pause")
    check_every_page(m, "paused")

    # The second mistake ends the turn: measured during the board's moment, then after it.
    gm.act("resume")
    gm.press(wrong_button(m, avoid=gm.state()["stuck"]))
    check_every_page(m, "turn_over")
    for screen in ("phone", "tablet", "tv"):
        board = m.pages[(screen, "board")]
        expect_or_shoot(board, m.shots, f"board on the {screen} after the turn", lambda: (
            expect(board.locator(".board")).to_have_attribute("data-moment", "", timeout=MOMENT_WAIT),
            expect(board.locator("#donecards figcaption")).to_have_text(["1"], timeout=WAIT)))
    check_every_page(m, "next_turn")
    for screen in SCREENS:
        expect(m.pages[(screen, "tower")].locator("body")).to_have_attribute("data-awake", "free")

    gm.act("start_turn")
    gm.act("end", when="now")  # Puffins' turn in progress is not scored, and the result says so
    check_every_page(m, "ended")
    for screen in ("phone", "tablet", "tv"):
        board = m.pages[(screen, "board")]
        expect(board.locator("#resultend")).to_have_text(
            "Ended by the game master during round 1: Puffins' turn in progress (no card done) was not scored. "
            "Turns played: Penguins 1, Puffins 0. Nobody wins: not every team has played a turn.")

    # The other game on the same pages: a Penguin Kaboom mission under way.
    colours = gm.ctx.request.get(m.base + "/api/admin/status").json()["games"]["kaboom"]["colours"]
    gm.post("/api/admin/match", {"mode": "kaboom", "players": colours[:4], "difficulty": "easy", "mission": 1})
    gm.act("start")
    check_every_page(m, "kaboom")
