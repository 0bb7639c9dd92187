"""The room in Debian's Chromium (issue 23, items 3, 6 and 10; issue 24, item 7), each page at
its device's size: /board a 1920x1080 TV, /sim a 1024x768 tablet, /tower, /join and /admin a
390x844 phone.

- The quickest game on one computer (`python3 bootstrap.py start` runs `play --sim`, served
  on 127.0.0.1): /sim, /board and a second window as the tower play a whole match with no
  PIN typed anywhere, and the same group plays again with the tower's window still joined.
- Served on "::": the cockpit's own screen (127.0.0.1 arriving as ::ffff:127.0.0.1) shows
  the code and presses the simulated panel.
- The game master on a phone (another device than the cockpit's computer): the join code
  after signing in mid-match, a challenge on a completed card worded as such on /admin and
  on the board, the counters said after an upheld challenge, an expired session in Spanish
  bringing back the login form; a tower code typed with "–" answered in one line.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect, sync_playwright

from browser_helpers import ARGS, CHROMIUM, MOMENT_WAIT, PIN, WAIT, GameMaster, check_fits, service
from test_browser import end_turn_with_mistakes, play_card, read_card, sim_press, wait_new_card

pytestmark = pytest.mark.browser

TV = {"viewport": {"width": 1920, "height": 1080}}
TABLET = {"viewport": {"width": 1024, "height": 768}, "has_touch": True}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TEAMS = [{"name": "Penguins", "players": ["Ana", "Ben"]}, {"name": "Puffins", "players": ["Cleo", "Dan"]}]


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


class Table:
    """Pages opened in their own windows (browser contexts), their script errors kept."""

    def __init__(self, browser, base: str):
        self.browser, self.base, self.errors, self.contexts = browser, base, [], []

    def open(self, options: dict, path: str, base: str | None = None):
        ctx = self.browser.new_context(**options)
        self.contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: self.errors.append(f"{path}: {e}"))
        page.goto((base or self.base) + path)
        return page

    def close(self):
        for ctx in self.contexts:
            ctx.close()
        assert self.errors == [], self.errors


def no_pin_asked(*pages) -> None:
    for page in pages:
        for form in ("#pair", "#login"):
            if page.locator(form).count():
                expect(page.locator(form)).to_be_hidden()


def test_the_quickest_game_on_one_computer_is_played_whole_with_no_pin(browser, tmp_path):
    """What `python3 bootstrap.py start` serves (this computer only): the board shows the join
    code, a second window opens the tower from /join, and the two teams play a whole match on
    /sim to its result. START then plays again: the tower's window, never reloaded, shows the
    new match's card (the group kept its code)."""
    with service(tmp_path, "[match]\ntarget_points = 1\nturn_seconds = 300\n") as base:
        table = Table(browser, base)
        try:
            board = table.open(TV, "/board")
            sim = table.open(TABLET, "/sim")
            code = board.locator("#joincode")
            expect(code).to_have_text(re.compile(r"^[A-Z2-9]{6}$"), timeout=WAIT)  # the unpaired board shows it
            tower = table.open(PHONE, "/join")
            expect(tower.locator("#code")).to_have_text(code.text_content(), timeout=WAIT)
            tower.click("#url")  # the tower's address, as its QR code says
            expect(tower).to_have_url(re.compile(r"/tower\?code="))
            expect(tower.locator("#waiting")).to_contain_text("presses START on the panel", timeout=WAIT)
            expect(board.locator("#team")).to_have_text("Press START to play", timeout=WAIT)
            for team in ("Blue team", "Red team"):
                if team != "Blue team":  # (the first START sets the match up and starts its turn)
                    expect(board.locator("#team")).to_have_text(f"Next: {team}", timeout=MOMENT_WAIT)
                sim_press(sim, "cockpit.start")
                expect(board.locator("#team")).to_have_text(f"Turn: {team}", timeout=WAIT)
                card = read_card(tower)
                play_card(sim, card)
                wait_new_card(tower, card["label"])
                expect(board.locator("#done")).to_have_attribute("data-count", "1", timeout=WAIT)
                end_turn_with_mistakes(sim, board, tower)
                expect(board.locator(f'#scores tr[data-team="{team}"] td.pts')).to_have_text("1", timeout=WAIT)
            expect(board.locator("#result")).to_be_visible(timeout=MOMENT_WAIT)
            expect(board.locator("#resulttitle")).to_have_text("Shared win: Blue team & Red team")
            expect(tower.locator("#waiting")).to_contain_text("The game is over", timeout=WAIT)
            # The same group again: START, and the same tower window has the new match's card.
            kept = code.text_content()
            sim_press(sim, "cockpit.start")
            expect(board.locator("#result")).to_be_hidden(timeout=WAIT)
            read_card(tower)
            assert "/tower?code=" + kept in tower.url
            expect(tower.locator("#codeform")).to_be_hidden()
            no_pin_asked(board, sim, tower)
        finally:
            table.close()


def test_served_on_all_addresses_the_cockpits_own_screen_is_the_room(browser, tmp_path):
    """Served on "::" (IPv6 and IPv4 on one socket), the board and /sim at 127.0.0.1 arrive as
    ::ffff:127.0.0.1: still this computer, so the board shows the code and /sim plays."""
    with service(tmp_path, host="::") as base:
        table = Table(browser, base)
        try:
            board = table.open(TV, "/board")
            sim = table.open(TABLET, "/sim")
            expect(board.locator("#joincode")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"), timeout=WAIT)
            sim_press(sim, "cockpit.start")
            expect(board.locator("#team")).to_have_text("Turn: Blue team", timeout=WAIT)
            expect(sim.locator("#error")).to_be_hidden()
        finally:
            table.close()


@pytest.fixture
def lan_table(browser, tmp_path):
    """A cockpit served on the network; pages opened at its network address come from that
    address, not from 127.0.0.1: another device, as far as the cockpit can tell."""
    from panel.run import lan_address

    lan = lan_address()
    if not lan:
        pytest.skip("this machine has no network address besides loopback")
    with service(tmp_path, host="0.0.0.0") as base:
        table = Table(browser, base)
        table.lan = base.replace("127.0.0.1", lan)
        table.gm = GameMaster(browser.new_context(), base)
        table.contexts.append(table.gm.ctx)
        try:
            yield table
        finally:
            table.close()


def signed_in_admin(t):
    """/admin on the game master's phone (another device), signed in with the PIN typed."""
    admin = t.open(PHONE, "/admin", base=t.lan)
    expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
    admin.fill("#pin", PIN)
    admin.click("#login button[type=submit]")
    expect(admin.locator("#app")).to_be_visible(timeout=WAIT)
    return admin


def test_the_game_master_signing_in_mid_match_sees_the_join_code_at_once(lan_table):
    t, gm = lan_table, lan_table.gm
    code = gm.post("/api/admin/match", {"teams": TEAMS, "seed": 7, "turn_seconds": 300})["code"]
    gm.act("start_turn")
    admin = t.open(PHONE, "/admin", base=t.lan)
    expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
    expect(admin.locator("#code")).to_have_text("–")  # asked before the sign-in: refused
    admin.fill("#pin", PIN)
    admin.click("#login button[type=submit]")
    expect(admin.locator("#code")).to_have_text(code, timeout=WAIT)  # no reload


def test_a_challenge_on_a_completed_card_is_worded_for_it_and_the_counters_kept_are_said(lan_table, tmp_path):
    t, gm = lan_table, lan_table.gm
    code = gm.post("/api/admin/match", {"teams": TEAMS, "seed": 7, "turn_seconds": 300})["code"]
    gm.act("start_turn")
    board = t.open(TV, "/board")
    sim = t.open(TABLET, "/sim")
    tower = t.open(PHONE, f"/tower?code={code}")
    admin = signed_in_admin(t)
    card = read_card(tower)
    play_card(sim, card)
    wait_new_card(tower, card["label"])
    expect(admin.locator("#chcard option[value='0']")).to_have_count(1, timeout=WAIT)
    admin.select_option("#chteam", "Puffins")
    admin.select_option("#chcard", "0")
    admin.click("#challenge")
    expect(admin.locator("#upheld")).to_have_text("Uphold: completed card 1 and the card in play are discarded",
                                                  timeout=WAIT)
    expect(admin.locator("#rejected")).to_have_text("Reject: completed card 1 stands and the card in play counts")
    number = gm.state()["challenge"]["number"]
    expect(board.locator("#banner")).to_have_text(
        f"Challenge by Puffins on completed card 1 (card number {number}): the game master rules", timeout=WAIT)
    check_fits(admin, tmp_path, "admin on a phone, a challenge on a completed card")  # the longer words fit
    check_fits(board, tmp_path, "board on a TV, a challenge on a completed card", whole=True)
    admin.click("#upheld")
    said = "Challenge upheld: the cards are discarded. The crew keeps its 1 time counter."
    expect(board.locator("#banner")).to_have_text(said, timeout=WAIT)
    expect(admin.locator("#log li", has_text=said)).to_have_count(1)
    # A challenge on the card in play is worded for it.
    gm.act("challenge", team="Puffins", card="current")
    expect(admin.locator("#upheld")).to_have_text("Uphold: the card in play is discarded", timeout=WAIT)
    expect(admin.locator("#rejected")).to_have_text("Reject: the card in play counts")


def test_an_expired_session_in_spanish_brings_back_the_login_form(lan_table):
    """In Spanish, the session ended (a new PIN signs everybody out): the next tap brings back
    the login form, with the server's line in Spanish."""
    t, gm = lan_table, lan_table.gm
    gm.post("/api/admin/match", {"teams": TEAMS, "seed": 7, "turn_seconds": 300})
    gm.act("start_turn")
    admin = signed_in_admin(t)
    gm.post("/api/admin/settings", {"language": "es"})
    expect(admin.locator("#pause")).to_have_text("Pausar el temporizador", timeout=WAIT)
    gm.post("/api/admin/settings", {"pin": "86420"})
    admin.click("#pause")
    # Told as signed out (the page's own sentence around the server's Spanish line), not
    # as a failed action that the next status poll happens to tidy up.
    expect(admin.locator("#error")).to_have_text(
        "Sesión cerrada (entra primero con el PIN del director de juego): vuelve a entrar con el PIN.", timeout=WAIT)
    expect(admin.locator("#login")).to_be_visible()
    expect(admin.locator("#app")).to_be_hidden()


def test_a_tower_code_typed_with_a_dash_is_answered_in_one_line(lan_table):
    t, gm = lan_table, lan_table.gm
    gm.post("/api/admin/match", {"teams": TEAMS, "seed": 7, "turn_seconds": 300})
    tower = t.open(PHONE, "/tower", base=t.lan)
    for typed in ("AB–CDE", "ÑANDÚ1"):
        tower.fill("#code", typed)
        tower.click("#codeform button[type=submit]")
        expect(tower.locator("#codeerror")).to_have_text("That is not the code of the match being played.",
                                                         timeout=WAIT)
    r = tower.request.get(t.lan + "/api/tower?code=" + "%E2%80%93")
    assert r.status == 403 and "internal error" not in json.dumps(r.json())


def test_the_join_pages_warning_leads_to_let_phones_in(browser, tmp_path):
    """Served on this computer only, /join says its QR code reaches no phone, with a link to
    the guide's "Let phones in" (the guide served at /help/)."""
    with service(tmp_path) as base:
        table = Table(browser, base)
        try:
            join = table.open(PHONE, "/join")
            expect(join.locator("#loopback")).to_be_visible(timeout=WAIT)
            link = join.locator("#phonesin")
            expect(link).to_have_text("Let phones in")
            assert link.get_attribute("href") == "/help/play.html#let-phones-in"
        finally:
            table.close()


def test_after_the_table_stood_idle_the_board_and_join_show_the_next_groups_code(browser, tmp_path):
    """A match over, the board and /join keep showing its code (the group may play again);
    once no match has been in play for the idle time, both show the next group's new code
    by themselves."""
    import asyncio

    from panel.service.join_codes import IDLE_SECONDS
    from service_helpers import ServiceThread

    with ServiceThread(tmp_path / "panel.db") as svc:
        table = Table(browser, svc.base)
        try:
            gm = svc.client()
            gm.login()
            board = table.open(TV, "/board")
            join = table.open(PHONE, "/join")
            played = gm.new_match()["code"]
            gm.act("end", when="now")
            expect(board.locator("#joincode")).to_have_text(played, timeout=WAIT)
            expect(join.locator("#code")).to_have_text(played, timeout=WAIT)
            codes = svc.cockpit.codes  # the idle time gone by: the clock moved, the owner task woken
            svc.on_loop(lambda: setattr(codes, "kept_since", codes.kept_since - IDLE_SECONDS))
            svc.on_loop(lambda: svc.cockpit.queue.put_nowait((lambda: None, asyncio.get_running_loop().create_future())))
            expect(board.locator("#joincode")).not_to_have_text(played, timeout=WAIT)
            fresh = svc.client().get("/api/join")[1]["code"]
            expect(board.locator("#joincode")).to_have_text(fresh)
            expect(join.locator("#code")).to_have_text(fresh, timeout=WAIT)
        finally:
            table.close()
