"""A real headless Chromium (Debian's) plays the game through the real service's pages.

The service is `penguin-panel play --sim` started as a subprocess on a free port with a
temporary SQLite file; Playwright drives /usr/bin/chromium (never a downloaded browser).
The crew presses controls on the simulator page, the tower reads the card from its phone
page, the scoreboard shows the counters and the score, the game master rules a challenge.
Nothing here waits on wall-clock time for its assertions: each waits for what the page shows.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from browser_helpers import ARGS, CHROMIUM, MOMENT_WAIT, PIN, WAIT, expect_or_shoot, service
from panel.games.airlines.events import ACTIONS
from panel.core.layout_file import load_layout

pytestmark = pytest.mark.browser

LAYOUT = load_layout()  # the blue side, as the matches below are played


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with service(tmp_path_factory.mktemp("service")) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def pages(browser, server):
    """Admin, board and sim on a laptop; the tower on a phone (its own browser context)."""
    laptop = browser.new_context(viewport={"width": 1280, "height": 900})
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    errors: list[str] = []
    made = []

    def page(ctx, path):
        pg = ctx.new_page()
        pg.on("pageerror", lambda e: errors.append(f"{path}: {e}"))
        pg.goto(server + path)
        made.append(pg)
        return pg

    yield type("Pages", (), {"open": staticmethod(page), "laptop": laptop, "phone": phone, "base": server,
                              "errors": errors})
    laptop.close()
    phone.close()
    assert errors == [], errors  # no page threw a script error


def admin_login(admin: Page) -> None:
    expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
    admin.fill("#pin", PIN)
    admin.click("#login button[type=submit]")
    expect(admin.locator("#app")).to_be_visible(timeout=WAIT)


def new_match(admin: Page, *, mode="competitive", teams=(("Penguins", "Ana, Ben"), ("Puffins", "Cleo, Dan")),
              seed=7, turn_seconds=300, target_points=12, side="blue") -> str:
    admin.select_option("#mode", mode)
    admin.select_option("#side", side)
    rows = admin.locator("#teams .team")
    while rows.count() > len(teams):
        rows.nth(rows.count() - 1).locator("button").click()
    while rows.count() < len(teams):
        admin.click("#addteam")
    for i, (name, players) in enumerate(teams):
        rows.nth(i).locator(".tname").fill(name)
        rows.nth(i).locator(".tplayers").fill(players)
    admin.fill("#turn_seconds", str(turn_seconds))
    if mode == "competitive":
        admin.fill("#target_points", str(target_points))
    admin.fill("#seed", str(seed))
    accept = lambda d: d.accept()  # "replace the match in play?" (asked only when one is)
    admin.on("dialog", accept)
    made = admin.locator("#log li", has_text="New match")
    before = made.count()
    admin.click("#setup button[type=submit]")
    expect(made).to_have_count(before + 1, timeout=WAIT)
    admin.remove_listener("dialog", accept)  # not left to answer a later question
    code = made.first.text_content().rsplit(" ", 1)[1]  # "New match N, join code CODE", newest first
    expect(admin.locator("#code")).to_have_text(code)
    assert re.fullmatch(r"[A-Z0-9]{4,12}", code), code
    return code


READ_CARD = """() => {
  const s = document.querySelector('#card svg');
  if (!s) return null;
  const all = (sel) => [...s.querySelectorAll(sel)];
  return {kind: s.dataset.kind, label: s.getAttribute('aria-label'),
          hands: all('.hand').map(h => h.dataset.control),
          tokens: all('.target-token').map(t => [t.dataset.control, t.dataset.position]),
          sections: all('.section').map(x => x.dataset.section),
          arrows: all('.step-arrow').map(a => a.dataset.direction),
          numbers: all('.step-number').map(n => [n.dataset.control, n.textContent]),
          word: s.querySelector('.word') ? s.querySelector('.word').textContent : null};
}"""


def read_card(tower: Page) -> dict:
    tower.wait_for_selector("#card svg", timeout=WAIT)
    return tower.evaluate(READ_CARD)


def sim_press(sim: Page, control: str) -> None:
    """A press and release with the mouse, as a person clicks the drawn button."""
    btn = sim.locator(f'.ctl.btn[data-control="{control}"]')
    # The pointer onto the button once it holds still (Playwright's actionability checks):
    # a box read while the page still lays itself out (its words arriving) can be stale,
    # and the press would land beside the button.
    # A layout shift after the hover (a message arriving on a loaded machine) moves the
    # button from under the pointer: hovered again until the pointer is on it.
    for _ in range(20):
        btn.hover()
        if btn.evaluate("b => b.matches(':hover')"):
            break
    sim.mouse.down()
    expect(btn).to_have_class(re.compile(r"\bpressed\b"))
    sim.mouse.up()
    expect(btn).not_to_have_class(re.compile(r"\bpressed\b"))


def sim_set(sim: Page, token: str, position: str) -> None:
    """Move a token to a position with the keyboard (arrows step, space toggles)."""
    tok = sim.locator(f'.ctl.tok[data-control="{token}"]')
    for _ in range(12):
        now = tok.get_attribute("data-position")
        if now == position:
            return
        tok.focus()
        kind = tok.get_attribute("data-kind")
        if kind in ("switch", "click", "lever"):
            sim.keyboard.press("Space")
        else:
            order = sim.evaluate("(id) => window.simTokens[id].positions", token)
            sim.keyboard.press("ArrowUp" if order.index(position) > order.index(now) else "ArrowDown")
    assert tok.get_attribute("data-position") == position, (token, position)


def play_card(sim: Page, card: dict) -> None:
    """Do on the simulator what the tower's card shows."""
    if card["kind"] == "simple":
        for t, pos in card["tokens"]:
            sim_set(sim, t, pos)
        for b in card["hands"]:
            sim_press(sim, b)
        return
    section = card["sections"][0]
    if card["kind"] == "sequence":
        steps = [f"{section}.{d}" for d in card["arrows"]]
    elif card["kind"] == "coordinates":
        order = sorted((int(n), c) for c, label in card["numbers"] for n in label.split(","))
        steps = [c for _, c in order]
    else:
        steps = [f"{section}.{ch.lower()}" for ch in card["word"]]
    for b in steps:
        sim_press(sim, b)
    sim_press(sim, f"{section}.ok")


def sections_of(card: dict) -> set[str]:
    return set(card["sections"])


def outside_buttons(card: dict, n: int) -> list[str]:
    """n buttons on sections the card does not touch: each press is a mistake."""
    candidates = ["alarm.red", "alarm.yellow", "grid.r1c1", "grid.r1c2", "beacon.red", "radio.1", "radio.2"]
    picked = [c for c in candidates if c.split(".")[0] not in sections_of(card)]
    return picked[:n]


def wait_new_card(tower: Page, old_label: str) -> dict:
    tower.wait_for_function("(old) => { const s = document.querySelector('#card svg');"
                            " return s && s.getAttribute('aria-label') !== old; }", arg=old_label, timeout=WAIT)
    return read_card(tower)


def around_the_table(pages, seed: int):
    """The game master signed in with a new match, the board and the simulator on the laptop,
    the tower on the phone: the pages of one table."""
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    code = new_match(admin, seed=seed)
    return admin, pages.open(pages.laptop, "/board"), pages.open(pages.laptop, "/sim"), \
        pages.open(pages.phone, f"/tower?code={code}")


def test_a_turn_played_in_the_browser(pages):
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    code = new_match(admin)
    board = pages.open(pages.laptop, "/board")
    sim = pages.open(pages.laptop, "/sim")
    tower = pages.open(pages.phone, f"/tower?code={code}")
    expect(board.locator("#team")).to_have_text("Next: Penguins", timeout=WAIT)
    expect(tower.locator("#waiting")).to_be_visible()
    assert tower.locator("#card svg").count() == 0  # no card before the turn starts
    # Between turns the board shows the tower's QR code and says START starts the turn.
    expect(board.locator("#joincode")).to_have_text(code, timeout=WAIT)
    expect(board.locator("#joinbox .qr svg")).to_be_visible()
    expect(board.locator("#banner")).to_have_text(re.compile(r"^Crew: put the tokens back \(the switches down, .*\), then press START$"))

    admin.click("#start_turn")
    card = read_card(tower)
    expect(board.locator("#roles")).to_contain_text("Tower: Ana")
    expect(board.locator("#joinbox")).to_be_hidden()  # not over the running turn

    # The crew does what the tower's card says: the tower gets the next card, the
    # scoreboard counts the card and the time counter it earned.
    play_card(sim, card)
    nxt = wait_new_card(tower, card["label"])
    expect(board.locator("#done")).to_have_attribute("data-count", "1", timeout=WAIT)
    expect(board.locator("#counters")).to_have_attribute("data-count", "1", timeout=WAIT)
    expect(tower.locator("#done .pip.on")).to_have_count(1, timeout=WAIT)

    # Two mistakes end the turn; the first leaves the control stuck, shown on the pages.
    wrong = outside_buttons(nxt, 2)
    sim_press(sim, wrong[0])
    expect(board.locator("#mistakes")).to_have_attribute("data-count", "1", timeout=WAIT)
    expect(board.locator("#stuck")).to_have_text(f"Stuck finger: keep a finger on {LAYOUT.plain_name(wrong[0])} until the turn ends",
                                                 timeout=WAIT)
    expect(sim.locator(f'.ctl[data-control="{wrong[0]}"]')).to_have_class(re.compile(r"\bstuck\b"), timeout=WAIT)
    sim_press(sim, wrong[1])
    # The turn scored its one card: the score is on the board, the next team is up.
    expect(board.locator('#scores tr[data-team="Penguins"] td.pts')).to_have_text("1", timeout=WAIT)
    expect(board.locator("#team")).to_have_text("Next: Puffins", timeout=MOMENT_WAIT)
    expect(tower.locator("#waiting")).to_be_visible(timeout=WAIT)
    assert tower.locator("#card svg").count() == 0  # the discarded card is gone from the phone

    # Puffins' turn: one card done, then Penguins challenge it and the game master upholds.
    expect(admin.locator("#start_turn")).to_be_enabled(timeout=WAIT)
    admin.click("#start_turn")
    card = read_card(tower)
    play_card(sim, card)
    nxt = wait_new_card(tower, card["label"])
    expect(board.locator("#done")).to_have_attribute("data-count", "1", timeout=WAIT)
    expect(admin.locator("#chcard option")).to_have_count(2, timeout=WAIT)
    admin.select_option("#chteam", "Penguins")
    admin.select_option("#chcard", "0")
    admin.click("#challenge")
    expect(board.locator("#banner")).to_contain_text("Challenge by Penguins", timeout=WAIT)
    expect(tower.locator("#banner")).to_contain_text("Challenge", timeout=WAIT)
    expect(admin.locator("#upheld")).to_be_enabled(timeout=WAIT)
    admin.click("#upheld")
    # Upheld: the challenged card no longer scores, the card in play is replaced, play resumes.
    expect(board.locator("#done")).to_have_attribute("data-count", "0", timeout=WAIT)
    wait_new_card(tower, nxt["label"])
    expect(board.locator("#banner")).to_be_hidden(timeout=WAIT)
    expect(admin.locator("#log")).to_contain_text("Challenge upheld")


def test_the_tower_shows_nothing_of_the_card_without_the_code(pages):
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    code = new_match(admin, seed=3)
    admin.click("#start_turn")
    good = pages.open(pages.phone, f"/tower?code={code}")
    read_card(good)  # the card is in play
    for path in ("/tower", "/tower?code=WRONG1"):
        tower = pages.open(pages.phone, path)
        expect(tower.locator("#codeform")).to_be_visible(timeout=WAIT)
        assert tower.locator("svg").count() == 0
        assert "hand" not in tower.content()
    tower = pages.open(pages.phone, "/tower?code=WRONG1")
    expect(tower.locator("#codeerror")).to_contain_text("not the code", timeout=WAIT)
    # Typing the right code opens it.
    tower.fill("#code", code)
    tower.click("#codeform button[type=submit]")
    read_card(tower)
    # The join page shows the code and a QR code of the tower's address to the game master.
    join = pages.open(pages.laptop, "/join")
    expect(join.locator("#code")).to_have_text(code, timeout=WAIT)
    expect(join.locator("#qr svg")).to_be_visible()
    assert f"/tower?code={code}" in join.text_content("#url")


def test_a_phone_on_the_network_gets_no_code_and_a_paired_room_screen_does(browser, tmp_path):
    """Served on the network, opened at its network address (another device than the
    cockpit's computer, whose every page is the room's): a phone in the room gets no code
    from /join; the room's screen, once the game master pairs it with the PIN, shows it."""
    from panel.run import lan_address

    lan = lan_address()
    if not lan:
        pytest.skip("this machine has no network address besides loopback")
    with service(tmp_path, host="0.0.0.0") as base:
        gm = browser.new_context()
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        tv = browser.new_context(viewport={"width": 1920, "height": 1080})
        try:
            code = gm.request.get(base + "/api/join").json()["code"]  # this computer's: the room's
            lan_base = base.replace("127.0.0.1", lan)
            snoop = phone.new_page()
            snoop.goto(lan_base + "/join")
            expect(snoop.locator("#pair")).to_be_visible(timeout=WAIT)
            assert code not in snoop.content() and snoop.locator("#qr svg").count() == 0
            screen = tv.new_page()
            screen.goto(lan_base + "/join")
            expect(screen.locator("#pair")).to_be_visible(timeout=WAIT)
            screen.fill("#pin", "0000")
            screen.click("#pair button[type=submit]")
            expect(screen.locator("#pairerror")).to_contain_text("Wrong PIN", timeout=WAIT)
            screen.fill("#pin", PIN)
            screen.click("#pair button[type=submit]")
            expect(screen.locator("#code")).to_have_text(code, timeout=WAIT)
            expect(screen.locator("#pair")).to_be_hidden()
            screen.reload()  # paired for good, not just this page
            expect(screen.locator("#code")).to_have_text(code, timeout=WAIT)
        finally:
            for ctx in (gm, phone, tv):
                ctx.close()


def test_the_simulator_tokens_drag_and_feed_the_service(pages):
    sim = pages.open(pages.laptop, "/sim")
    slider = sim.locator('.ctl.tok[data-control="slider.red"]')
    expect(slider).to_have_attribute("data-position", re.compile(r"\d"), timeout=WAIT)
    slider.scroll_into_view_if_needed()
    track = slider.locator("svg").bounding_box()
    # Drag the handle from the bottom of the track to the top: the slider reaches its last position.
    x = track["x"] + track["width"] / 2
    sim.mouse.move(x, track["y"] + track["height"] * 0.9)
    sim.mouse.down()
    for frac in (0.7, 0.5, 0.3, 0.12):
        sim.mouse.move(x, track["y"] + track["height"] * frac)
    sim.mouse.up()
    expect(slider).to_have_attribute("data-position", "4")
    state = sim.request.get(pages.base + "/api/state").json()
    deadline_tries = 50
    while state["positions"]["slider.red"] != "4" and deadline_tries:
        sim.wait_for_timeout(100)
        state = sim.request.get(pages.base + "/api/state").json()
        deadline_tries -= 1
    assert state["positions"]["slider.red"] == "4"
    # A switch toggles on click.
    sw = sim.locator('.ctl.tok[data-control="switch.left"]')
    before = sw.get_attribute("data-position")
    sw.click()
    expect(sw).not_to_have_attribute("data-position", before)


def test_whole_matches_end_with_their_result(pages):
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    board = pages.open(pages.laptop, "/board")
    new_match(admin, seed=11)
    end_match_now(admin)
    expect(board.locator("#result")).to_be_visible(timeout=WAIT)
    # 0 : 0 with no turn scored is no shared win: the match was not played (rule 25).
    expect(board.locator("#resulttitle")).to_have_text("Match abandoned")
    expect(board.locator("#resultend")).to_have_text(
        "No result: the match was ended before any turn was scored, so it does not count.")
    # Cooperative: one crew of three; the end shows the tier and its landing text.
    code = new_match(admin, mode="cooperative", teams=(("Crew", "Ana, Ben, Cleo"),), seed=12)
    expect(board.locator("#result")).to_be_hidden(timeout=WAIT)
    expect(board.locator("#round")).to_have_text(re.compile(r"Round 1 of 6"), timeout=WAIT)
    # A turn is scored first (two slips), so the crew has flown (rule 25).
    sim, tower = pages.open(pages.laptop, "/sim"), pages.open(pages.phone, f"/tower?code={code}")
    admin.click("#start_turn")
    end_turn_with_mistakes(sim, board, tower)
    expect(admin.locator("#start_turn")).to_be_visible(timeout=WAIT)
    end_match_now(admin)
    expect(board.locator("#resulttitle")).to_have_text("Rookie!", timeout=WAIT)
    expect(board.locator("#resulttext")).to_contain_text("close one")


def end_match_now(admin: Page) -> None:
    """"End the match…", then the choice that ends it now (rule 25)."""
    admin.click("#end")
    expect(admin.locator("#enddialog")).to_be_visible(timeout=WAIT)
    admin.click("#end_now")


def end_turn_with_mistakes(sim: Page, board: Page, tower: Page) -> None:
    """Two presses outside the card in play: the second mistake ends the turn."""
    wrong = outside_buttons(read_card(tower), 2)
    sim_press(sim, wrong[0])
    expect(board.locator("#mistakes")).to_have_attribute("data-count", "1", timeout=WAIT)
    sim_press(sim, wrong[1])


def test_a_whole_competitive_match_played_through_the_pages(pages):
    """Two teams to 1 point: each tower reads its card on the phone, its crew does it on the
    simulator, two slips end the turn; the round ends with both on 1 and the board says so."""
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    board = pages.open(pages.laptop, "/board")
    code = new_match(admin, seed=21, target_points=1)
    sim = pages.open(pages.laptop, "/sim")
    tower = pages.open(pages.phone, f"/tower?code={code}")
    expect(board.locator("#target")).to_have_text("First to 1 point ends the game at the round's end.", timeout=WAIT)
    for team, tower_player in (("Penguins", "Ana"), ("Puffins", "Cleo")):
        # (After the first turn the board shows its result a few seconds, then the next team.)
        expect(board.locator("#team")).to_have_text(f"Next: {team}", timeout=MOMENT_WAIT)
        expect(board.locator("#banner")).to_contain_text("then press START", timeout=WAIT)  # the team is named once, above
        expect(tower.locator("#waiting")).to_contain_text(f"{tower_player} is the tower", timeout=WAIT)
        expect(admin.locator("#start_turn")).to_be_enabled(timeout=WAIT)
        admin.click("#start_turn")
        expect(board.locator("#banner")).to_be_hidden(timeout=WAIT)
        card = read_card(tower)
        play_card(sim, card)
        wait_new_card(tower, card["label"])
        expect(board.locator("#done")).to_have_attribute("data-count", "1", timeout=WAIT)
        end_turn_with_mistakes(sim, board, tower)
        expect(board.locator(f'#scores tr[data-team="{team}"] td.pts')).to_have_text("1", timeout=WAIT)
    # Both reached the target in round 1: the round's end ends the game, a tie shares the win.
    expect(board.locator("#result")).to_be_visible(timeout=MOMENT_WAIT)
    expect(board.locator("#resulttitle")).to_have_text("Shared win: Penguins & Puffins")
    expect(board.locator("#resulttext")).to_have_text("Penguins: 1 · Puffins: 1")
    expect(tower.locator("#waiting")).to_contain_text("The game is over", timeout=WAIT)
    assert tower.locator("#card svg").count() == 0
    expect(admin.locator("#phase")).to_have_text("Finished", timeout=WAIT)
    expect(admin.locator("#start_turn")).to_be_disabled()


def test_a_whole_cooperative_match_where_every_turn_runs_out(pages):
    """Two players, 5-second turns that simply run out: four rounds, each started by the
    game master, land the crew as Rookies with the rulebook's landing text on the board."""
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    board = pages.open(pages.laptop, "/board")
    code = new_match(admin, mode="cooperative", teams=(("Crew", "Ana, Ben"),), seed=22, turn_seconds=5)
    tower = pages.open(pages.phone, f"/tower?code={code}")
    expect(board.locator("#team")).to_have_text("Cooperative flight", timeout=WAIT)
    expect(board.locator("#round")).to_have_text("Round 1 of 4", timeout=WAIT)
    expect(board.locator("#timer")).to_have_text("5")  # between turns: the full turn
    for rnd in range(1, 5):
        # The game master starts each round at once (the board's moment after a turn gives way).
        expect(admin.locator("#start_turn")).to_be_enabled(timeout=WAIT)
        expect(admin.locator("#whose")).to_contain_text(f"round {rnd}")
        admin.click("#start_turn")
        read_card(tower)  # the tower has a card while the turn runs
        expect(admin.locator("#log")).to_contain_text("Turn over (time ran out)", timeout=WAIT)
        expect(tower.locator("#waiting")).to_be_visible(timeout=WAIT)
    expect(board.locator("#result")).to_be_visible(timeout=MOMENT_WAIT)
    expect(board.locator("#resulttitle")).to_have_text("Rookie!")
    expect(board.locator("#resulttext")).to_contain_text("It's a miracle you landed that thing")
    expect(board.locator("#round")).to_have_text("Round 4 of 4")


# The page a step behind: its Start button still shown and enabled.
STALE_START = "() => { const b = document.querySelector('#start_turn'); b.disabled = false; b.classList.remove('hidden'); }"


def test_what_goes_wrong_is_said_on_the_page(pages):
    """A wrong PIN, an action the match no longer allows (a page a step behind), a lapsed
    session and a dropped live socket each show a line a person can act on."""
    admin = pages.open(pages.laptop, "/admin")
    expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
    admin.fill("#pin", "0000")
    admin.click("#login button[type=submit]")
    expect(admin.locator("#error")).to_have_text("Wrong PIN.", timeout=WAIT)
    admin_login(admin)
    new_match(admin, seed=23)
    # The match is ended from another tab; this page's Start turn still looked allowed.
    other = pages.open(pages.laptop, "/admin")
    expect(other.locator("#app")).to_be_visible(timeout=WAIT)  # the same signed-in session
    end_match_now(other)
    expect(admin.locator("#start_turn")).to_be_disabled(timeout=WAIT)
    admin.evaluate(STALE_START)
    admin.click("#start_turn")
    expect(admin.locator("#error")).to_have_text("Not possible now: the match is over: set up a new match.",
                                                 timeout=WAIT)
    # The session is gone (the cookie cleared): the next action asks for the PIN again.
    # (Clicked from the page's script: the page's own status check every 3 s may already have
    # found the session gone and shown the sign-in form; the click is then a stale page's.)
    pages.laptop.clear_cookies()
    admin.evaluate(STALE_START)
    admin.evaluate("() => document.querySelector('#start_turn').click()")
    expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
    expect(admin.locator("#error")).to_contain_text("sign in again with the PIN")

    # The live socket drops and the cockpit cannot be reached for a while: the board says so
    # in words, then goes back to live by itself.
    reachable = {"yes": True}
    sockets = []

    def route(ws):
        if not reachable["yes"]:
            ws.close()
            return
        ws.connect_to_server()
        sockets.append(ws)

    board_page = pages.laptop.new_page()
    board_page.on("pageerror", lambda e: pages.errors.append(f"/board: {e}"))
    board_page.route_web_socket(re.compile(r"/ws\?view=board"), route)
    board_page.goto(pages.base + "/board")
    badge = board_page.locator("#live")
    expect(badge).to_have_text("live", timeout=WAIT)
    reachable["yes"] = False
    sockets[-1].close()
    expect(badge).to_have_text("Connection to the cockpit lost: reconnecting…", timeout=WAIT)
    expect(badge).to_have_class(re.compile(r"\bdown\b"))
    reachable["yes"] = True
    expect(badge).to_have_text("live", timeout=WAIT)
    expect(board_page.locator("#resulttitle")).to_have_text("Match abandoned", timeout=WAIT)  # the state came back


def test_the_simulator_is_drawn_for_the_match_in_play(pages):
    """A gray-side base-game match: the simulator redraws with the gray colours and no
    expansion modules, without a reload."""
    sim = pages.open(pages.laptop, "/sim")
    up = sim.locator('.ctl[data-control="cross.up"]')
    expect(up).to_have_attribute("data-colour", "blue", timeout=WAIT)
    expect(up).to_have_attribute("title", "up on the direction cross")  # its plain name, never its id
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    new_match(admin, side="gray")
    expect(up).to_have_attribute("data-colour", "red", timeout=WAIT)
    expect(sim.locator('.ctl[data-control="keypad.f"]')).to_have_count(0)
    expect(sim.locator("#title")).to_have_text(re.compile("gray side"))


def test_the_debrief_shows_a_played_turn_as_tables_and_plots(pages, tmp_path):
    """One turn (a card done, then two slips): /debrief shows it in the turns table and as one
    bar per turn, the slips by instruction type and by control, CSV links, and prints on A4."""
    admin, board, sim, tower = around_the_table(pages, seed=31)
    expect(admin.locator("#start_turn")).to_be_enabled(timeout=WAIT)
    admin.click("#start_turn")
    card = read_card(tower)
    play_card(sim, card)
    nxt = wait_new_card(tower, card["label"])
    expect(board.locator("#done")).to_have_attribute("data-count", "1", timeout=WAIT)
    wrong = outside_buttons(nxt, 2)
    end_turn_with_mistakes(sim, board, tower)
    expect(board.locator('#scores tr[data-team="Penguins"] td.pts')).to_have_text("1", timeout=WAIT)

    page = pages.open(pages.laptop, "/debrief")  # the same signed-in browser: no PIN asked
    expect(page.locator("#app")).to_be_visible(timeout=WAIT)
    expect(page.locator("#outcome")).to_have_text("In play: round 1")
    expect(page.locator('#scores tr[data-team="Penguins"] td.num')).to_have_text("1")
    rows = page.locator("#table-turns tbody tr")
    expect(rows).to_have_count(1)
    cells = {c: rows.nth(0).locator(f'td[data-col="{c}"]').text_content()
             for c in ("round", "team", "tower", "cards", "mistakes", "ended_by", "points")}
    assert cells == {"round": "1", "team": "Penguins", "tower": "Ana", "cards": "1", "mistakes": "2",
                     "ended_by": "2 mistakes", "points": "1"}
    bars = page.locator('#fig-points svg[data-plot="points"] rect.bar')
    expect(bars).to_have_count(1)  # one bar per turn
    assert [bars.nth(0).get_attribute(a) for a in ("data-turn", "data-team", "data-round", "data-points")] == \
        ["1", "Penguins", "1", "1"]
    expect(page.locator("#fig-points .glabel")).to_have_text(["Round 1"])
    seconds = page.locator(f'#fig-seconds rect.bar[data-kind="{card["kind"]}"]')
    assert float(seconds.get_attribute("data-seconds")) > 0  # the card done has a time
    slips = page.locator("#fig-kind-mistakes rect.bar")
    assert sum(int(slips.nth(i).get_attribute("data-mistakes")) for i in range(slips.count())) == 2
    controls = page.locator("#fig-controls rect.bar")
    assert sorted(controls.nth(i).get_attribute("data-control") for i in range(controls.count())) == sorted(wrong)
    match_id = page.locator("#match").input_value()
    expect(page.locator('a.csv[data-table="turns"]')).to_have_attribute(
        "href", f"/api/admin/debrief.csv?match={match_id}&table=turns")
    # The download link gives the turn as CSV (with the page's own session cookie).
    csv_text = page.request.get(pages.base + f"/api/admin/debrief.csv?match={match_id}&table=turns").text()
    assert csv_text.splitlines()[1].startswith("Penguins,1,Ana,1,2,0,mistakes,1,")
    page.screenshot(path=str(tmp_path / "debrief.png"), full_page=True)

    # Printed: the picker and buttons are left off, and the handout is at most two A4 pages.
    page.emulate_media(media="print")
    expect(page.locator(".pick")).to_be_hidden()
    expect(page.locator("#fig-points svg.chart")).to_be_visible()
    pdf = page.pdf(format="A4", print_background=True)
    (tmp_path / "debrief.pdf").write_bytes(pdf)
    assert pdf.startswith(b"%PDF") and 1 <= len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf)) <= 2
    page.emulate_media(media="print")  # shown for the screenshot below
    page.screenshot(path=str(tmp_path / "debrief-print.png"), full_page=True)
    page.emulate_media(media="screen")

    # Without the game master's session the page asks for the PIN and shows nothing.
    pages.laptop.clear_cookies()
    page.reload()
    expect(page.locator("#login")).to_be_visible(timeout=WAIT)
    expect(page.locator("#app")).to_be_hidden()
    page.fill("#pin", PIN)
    page.click("#login button[type=submit]")
    expect(page.locator("#fig-points rect.bar")).to_have_count(1, timeout=WAIT)


def test_the_game_master_changes_the_pin_and_the_match_defaults(browser, tmp_path):
    """On a service of its own (a new PIN ends every session, and the defaults are kept):
    the Settings section saves the defaults for new matches, refuses PINs that differ or are
    not 4-12 digits on the page, and after a change the page signs out and the new PIN works."""
    with service(tmp_path) as base:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        admin = ctx.new_page()
        admin.on("pageerror", lambda e: errors.append(str(e)))
        admin.goto(base + "/admin")
        admin_login(admin)
        msg = admin.locator("#settingsmsg")
        # The engine's defaults until others are saved.
        for field, value in (("turn_seconds", "30"), ("time_counters", "4"), ("target_points", "12")):
            expect(admin.locator(f"#def_{field}")).to_have_value(value, timeout=WAIT)

        admin.fill("#def_turn_seconds", "2")
        admin.click("#defaultsform button[type=submit]")
        expect(msg).to_contain_text("turn_seconds", timeout=WAIT)
        expect(msg).to_have_class("error")
        admin.fill("#def_turn_seconds", "")
        admin.click("#defaultsform button[type=submit]")
        expect(msg).to_have_text("Turn seconds: enter a number.")
        admin.fill("#def_turn_seconds", "45")
        admin.fill("#def_time_counters", "3")
        admin.fill("#def_target_points", "9")
        admin.click("#defaultsform button[type=submit]")
        expect(msg).to_have_text("Defaults saved: new matches get Mode competitive, Turn seconds 45, Time counters 3, "
                                 "Target points 9, Settle time (ms) 500, Side blue, Expansion (★) no.", timeout=WAIT)
        expect(msg).to_have_class("notice")
        # The New match form starts from them.
        expect(admin.locator("#turn_seconds")).to_have_value("45")
        expect(admin.locator("#time_counters")).to_have_value("3")
        expect(admin.locator("#target_points")).to_have_value("9")

        # Checked on the page before anything is sent: still signed in with the old PIN.
        admin.fill("#newpin", "2468")
        admin.fill("#newpin2", "2469")
        admin.click("#pinform button[type=submit]")
        expect(msg).to_have_text("The two new PINs differ: type the same PIN twice.")
        admin.fill("#newpin", "24a8")
        admin.fill("#newpin2", "24a8")
        admin.click("#pinform button[type=submit]")
        expect(msg).to_have_text("The new PIN must be 4 to 12 digits (0–9).")
        expect(admin.locator("#app")).to_be_visible()

        admin.fill("#newpin", "975310")
        admin.fill("#newpin2", "975310")
        admin.click("#pinform button[type=submit]")
        expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
        expect(admin.locator("#app")).to_be_hidden()
        expect(admin.locator("#notice")).to_have_text(
            "PIN changed. Every game master was signed out, this page too: sign in with the new PIN.")
        assert admin.evaluate("() => localStorage.getItem('pp_csrf')") is None
        assert [c for c in ctx.cookies() if c["name"] == "pp_session"] == []

        # A fresh start of the page, no cookies: the old PIN is refused, the new one signs in.
        ctx.clear_cookies()
        admin.reload()
        expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
        admin.fill("#pin", PIN)
        admin.click("#login button[type=submit]")
        expect(admin.locator("#error")).to_have_text("Wrong PIN.", timeout=WAIT)
        admin.fill("#pin", "975310")
        admin.click("#login button[type=submit]")
        expect(admin.locator("#app")).to_be_visible(timeout=WAIT)
        expect(admin.locator("#notice")).to_be_hidden()
        expect(admin.locator("#def_turn_seconds")).to_have_value("45", timeout=WAIT)  # kept by the service
        expect(admin.locator("#time_counters")).to_have_value("3")
        ctx.close()
        assert errors == [], errors


READ_BUTTONS = """() => [...document.querySelectorAll('button[data-action]')].map(b => (
  {id: b.id, action: b.dataset.action, upheld: b.dataset.upheld ?? null, enabled: !b.disabled,
   kaboom: !!b.closest('[data-game="kaboom"]')}))"""
BUTTONS_ARE = """(want) => {
  const got = {};
  for (const b of document.querySelectorAll('button[data-action], #setupsubmit')) got[b.id] = !b.disabled;
  const options = (sel) => [...document.querySelectorAll(sel + ' option')].map(o => o.value);
  got.chteam = options('#chteam'); got.chcard = options('#chcard');
  return JSON.stringify(Object.keys(want).sort().map(k => [k, got[k]])) ===
         JSON.stringify(Object.keys(want).sort().map(k => [k, want[k]]));
}"""


def expect_buttons_follow_the_state(admin: Page, base: str, phase: str) -> dict:
    """The service's state now (its phase checked), and the page showing exactly its actions:
    each button enabled when the state's `actions` allows it (a ruling: that verdict), the
    set-up button when a new match may be set up or the match in play abandoned first, and
    the challenge menus offering the state's teams and cards."""
    state = admin.request.get(base + "/api/state").json()
    assert state["phase"] == phase, state
    actions = state["actions"]
    want = {}
    for b in admin.evaluate(READ_BUTTONS):
        ok = b["action"] in actions
        if ok and b["upheld"] is not None:
            ok = (b["upheld"] == "true") in actions["rule"]["upheld"]
        want[b["id"]] = ok
    want["setupsubmit"] = "new_match" in actions or "abandon" in actions
    challenge = actions.get("challenge", {"teams": [], "cards": []})
    want["chteam"] = ["" if t is None else t for t in challenge["teams"]]
    want["chcard"] = [str(c) for c in challenge["cards"]]
    try:
        admin.wait_for_function(BUTTONS_ARE, arg=want, timeout=WAIT)
    except Exception:
        got = admin.evaluate(READ_BUTTONS)
        pytest.fail(f"{phase}: the page's buttons {got} are not the state's actions {actions}")
    return state


def test_the_game_masters_buttons_are_the_engines_answers(browser, tmp_path):
    """On a service of its own (no match yet): in each phase, /admin enables exactly the
    actions the state lists, and moving between phases with the page's own buttons keeps it so."""
    with service(tmp_path) as base:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        admin = ctx.new_page()
        admin.on("pageerror", lambda e: errors.append(str(e)))
        admin.on("dialog", lambda d: d.accept())
        admin.goto(base + "/admin")
        admin_login(admin)
        # Every action a game master asks for has its button (a touch comes from the panel,
        # a new match from the set-up form).
        airlines = {b["action"] for b in admin.evaluate(READ_BUTTONS) if not b["kaboom"]}
        assert airlines == set(ACTIONS) - {"touch", "new_match"}

        state = expect_buttons_follow_the_state(admin, base, "idle")
        assert set(state["actions"]) == {"new_match"}
        new_match(admin, seed=41)
        state = expect_buttons_follow_the_state(admin, base, "between_turns")
        assert "start_turn" in state["actions"] and "flip" not in state["actions"]

        admin.click("#start_turn")
        expect(admin.locator("#phase")).to_have_text("Turn in progress", timeout=WAIT)
        state = expect_buttons_follow_the_state(admin, base, "in_turn")
        # The team whose turn it is cannot challenge it: the menu offers only the other team.
        assert state["actions"]["challenge"] == {"teams": ["Puffins"], "cards": ["current"]}
        assert "flip" not in state["actions"]  # no time counter held yet

        admin.click("#challenge")
        expect(admin.locator("#chinfo")).to_contain_text("Open challenge by Puffins", timeout=WAIT)
        state = expect_buttons_follow_the_state(admin, base, "paused")
        assert state["paused_for"] == ["challenge"] and "resume" not in state["actions"]

        admin.click("#rejected")  # the card counts, with its time counter
        expect(admin.locator("#chinfo")).to_have_text("No challenge open.", timeout=WAIT)
        state = expect_buttons_follow_the_state(admin, base, "in_turn")
        assert "flip" in state["actions"] and state["actions"]["challenge"]["cards"] == ["current", 0]

        admin.click("#pause")
        expect(admin.locator("#phase")).to_contain_text("Paused", timeout=WAIT)
        state = expect_buttons_follow_the_state(admin, base, "paused")
        assert "resume" in state["actions"] and "challenge" not in state["actions"]

        # "End the match…" offers the engine's two ends, each saying what it does to the turn.
        admin.click("#end")
        expect(admin.locator("#end_now")).to_have_text("End now (the turn in progress is not scored)", timeout=WAIT)
        expect(admin.locator("#end_round")).to_be_visible()
        admin.click("#end_now")
        expect(admin.locator("#phase")).to_have_text("Ended by the game master", timeout=WAIT)
        state = expect_buttons_follow_the_state(admin, base, "finished")
        assert set(state["actions"]) == {"new_match"}
        ctx.close()
        assert errors == [], errors


def test_the_pages_follow_the_language_chosen_on_admin(browser, tmp_path):
    """On a service of its own (the language is kept): the game master picks Spanish in
    Settings and an open board shows it at once, without a reload; back to English too."""
    with service(tmp_path) as base:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        admin, board = ctx.new_page(), ctx.new_page()
        for page in (admin, board):
            page.on("pageerror", lambda e: errors.append(str(e)))
        board.goto(base + "/board")
        expect(board.locator("#team")).to_have_text("Press START to play", timeout=WAIT)
        expect(board.locator("html")).to_have_attribute("lang", "en")
        admin.goto(base + "/admin")
        admin_login(admin)
        expect(admin.locator("#language")).to_have_value("en", timeout=WAIT)
        assert admin.locator("#language option").all_text_contents() == ["English", "Español"]

        admin.select_option("#language", "es")
        expect(admin.locator("#settingsmsg")).to_have_text(
            "Idioma guardado: todas las páginas se muestran ahora en Español.", timeout=WAIT)
        expect(board.locator("#team")).to_have_text("Pulsad START para jugar", timeout=WAIT)  # by its socket
        expect(board.locator("html")).to_have_attribute("lang", "es")
        expect(board.locator(".joincaption")).to_have_text("Torre de control: escanear este código")  # data-t
        expect(board.locator("#joinbox")).to_have_attribute("aria-label", "Unirse como torre de control")
        board.reload()
        expect(board.locator("#round")).to_have_text("Aún no hay partida", timeout=WAIT)

        admin.select_option("#language", "en")
        expect(board.locator("#team")).to_have_text("Press START to play", timeout=WAIT)
        expect(board.locator(".joincaption")).to_have_text("Control tower: scan this")
        ctx.close()
        assert errors == [], errors


def test_the_debrief_lists_the_matches_a_page_at_a_time(browser, tmp_path):
    """A café's cockpit stores thousands of matches: the picker gets the newest page, and
    "Older matches" the page before it, until there is none."""
    from service_helpers import Client

    with service(tmp_path) as base:
        gm = Client(base)
        gm.login(PIN)
        for i in range(52):
            gm.new_match(seed=i)
            assert gm.act("abandon")[0] == 200
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.goto(base + "/debrief")
        page.fill("#pin", PIN)
        page.click("#login button[type=submit]")
        options = page.locator("#match option")
        expect(options).to_have_count(50, timeout=WAIT)
        expect(page.locator("#match")).to_have_value("52")  # the newest, shown
        page.click("#older")
        expect(options).to_have_count(52, timeout=WAIT)
        expect(page.locator("#older")).to_be_hidden()
        assert options.nth(51).get_attribute("value") == "1"
        expect(page.locator("#match")).to_have_value("52")  # the one shown stays picked
        ctx.close()


def test_after_abandon_the_game_master_sets_up_a_new_match(pages, tmp_path):
    """Abandon mid-turn: the board shows the abandoned match with no timer running, the tower
    says so, and /admin offers "Set up a new match" at the top; the new match is in play."""
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    code = new_match(admin, seed=51)
    board = pages.open(pages.laptop, "/board")
    tower = pages.open(pages.phone, f"/tower?code={code}")
    admin.click("#start_turn")
    read_card(tower)
    admin.once("dialog", lambda d: d.accept())  # "Abandon this match?"
    admin.click("#abandon")
    expect_or_shoot(board, tmp_path, "board after abandon", lambda: (
        expect(board.locator("#resulttitle")).to_have_text("Match abandoned", timeout=WAIT),
        expect(board.locator("#resultend")).to_have_text("No result: the game master abandoned this match."),
        expect(board.locator("#timer")).to_have_text(""),  # no timer drains an abandoned turn
        expect(board.locator(".board")).to_have_attribute("data-phase", "ended")))
    fresh = pages.open(pages.laptop, "/board")  # a reload shows the same: no dead turn left running
    expect(fresh.locator(".board")).to_have_attribute("data-phase", "ended", timeout=WAIT)
    expect(fresh.locator("#timer")).to_have_text("")
    expect(fresh.locator("#resulttitle")).to_have_text("Match abandoned")
    expect(tower.locator("#waiting")).to_contain_text("abandoned the match", timeout=WAIT)
    expect(admin.locator("#phase")).to_have_text("Abandoned", timeout=WAIT)
    newmatch = admin.locator("#newmatch")
    expect(newmatch).to_be_visible()
    expect(admin.locator("#start_turn")).to_be_hidden()
    newmatch.click()
    expect(admin.locator("#setupsubmit")).to_be_focused(timeout=WAIT)
    made = admin.locator("#log li", has_text="New match")
    before = made.count()
    admin.click("#setupsubmit")  # no second abandon asked: the match is over
    expect(made).to_have_count(before + 1, timeout=WAIT)
    expect(admin.locator("#phase")).to_have_text("Between turns", timeout=WAIT)
    expect(admin.locator("#start_turn")).to_be_visible()
    expect(board.locator("#result")).to_be_hidden(timeout=WAIT)
    expect(board.locator("#team")).to_have_text("Next: Penguins")
    expect(admin.locator("#error")).to_be_hidden()


READ_MOMENT = """() => ({stage: document.querySelector('.board').dataset.moment,
  mistakes: document.querySelector('#mistakes').dataset.count,
  line: document.querySelector('#momentline').textContent,
  shown: !document.querySelector('#moment').classList.contains('hidden')})"""


def test_a_turns_end_is_a_moment_on_the_board_with_its_sounds(pages, tmp_path):
    """The second mistake stays on the board (the turn's final state), then the result in large
    type, then at the round's end the round's summary; the turn's sounds are cued, and the
    board's sound switch is remembered."""
    admin, board, sim, tower = around_the_table(pages, seed=52)
    expect(board.locator("#sound")).to_have_text(re.compile(r"Sound: (on|tap to start)"), timeout=WAIT)
    for team, points in (("Penguins", "1 card = 1 point"), ("Puffins", "no card = 0 points")):
        expect(admin.locator("#start_turn")).to_be_visible(timeout=MOMENT_WAIT)
        admin.click("#start_turn")
        card = read_card(tower)
        if team == "Penguins":
            play_card(sim, card)
            wait_new_card(tower, card["label"])
        end_turn_with_mistakes(sim, board, tower)
        # Watched every frame: the final state with both mistakes, then the result.
        expect_or_shoot(board, tmp_path, f"{team} final state", lambda: board.wait_for_function(
            "() => document.querySelector('.board').dataset.moment === 'hold'"
            " && document.querySelector('#mistakes').dataset.count === '2'", polling="raf", timeout=WAIT))
        expect_or_shoot(board, tmp_path, f"{team} result", lambda: expect(board.locator("#momentline")).to_have_text(
            f"{team}: {points}", timeout=WAIT))
        assert board.evaluate(READ_MOMENT)["stage"] == "result"
    # Puffins closed round 1: its summary lists every team's turn.
    expect_or_shoot(board, tmp_path, "round summary", lambda: (
        expect(board.locator("#momenttitle")).to_have_text("Round 1 is over", timeout=WAIT),
        expect(board.locator("#momentlist li")).to_have_text(["Penguins: 1 card = 1 point", "Puffins: no card = 0 points"])))
    expect(board.locator("#moment")).to_be_hidden(timeout=MOMENT_WAIT)
    expect(board.locator("#team")).to_have_text("Next: Penguins")
    expect(board.locator("#lastturn")).to_have_text("Last turn: Puffins: no card = 0 points (2 mistakes).")
    cued = [c["name"] for c in board.evaluate("() => window.boardCues")]
    for tune in ("turn_start", "card", "mistake", "turn_end"):
        assert tune in cued, cued
    # The switch: off, kept after a reload, and a cue then makes no sound.
    board.click("#sound")
    expect(board.locator("#sound")).to_have_text("Sound: off")
    board.reload()
    expect(board.locator("#sound")).to_have_text("Sound: off", timeout=WAIT)
    admin.click("#start_turn")
    board.wait_for_function("() => window.boardCues.some(c => c.name === 'turn_start')", timeout=WAIT)
    assert all(not c["audible"] for c in board.evaluate("() => window.boardCues"))
    board.click("#sound")
    expect(board.locator("#sound")).not_to_have_text("Sound: off")


def test_ending_at_the_rounds_end_plays_the_round_out_and_says_so(pages, tmp_path):
    """"End the match…" in Penguins' turn, "Finish the round, then end": the turn goes on,
    Puffins still play, and the result says every team played as many turns; the completed
    cards are drawn on /admin during the turn and on the board between turns."""
    admin, board, sim, tower = around_the_table(pages, seed=53)
    admin.click("#start_turn")
    card = read_card(tower)
    play_card(sim, card)
    wait_new_card(tower, card["label"])
    expect(admin.locator("#donebox figcaption")).to_have_text(["Completed card 1"], timeout=WAIT)
    admin.click("#end")
    expect(admin.locator("#endround_text")).to_have_text(
        "The match ends when round 1 does: Penguins, Puffins still play this round, the turn in progress included. "
        "Then it is scored, every team having played as many turns.", timeout=WAIT)
    expect(admin.locator("#endnow_text")).to_contain_text("Penguins' turn in progress (1 card so far) is not scored")
    admin.click("#end_round")
    expect(admin.locator("#endinfo")).to_have_text("The match ends at the end of round 1: Penguins, Puffins still to play.",
                                                   timeout=WAIT)
    expect(board.locator("#target")).to_contain_text("The game master ends the match at the end of this round")
    end_turn_with_mistakes(sim, board, tower)
    # Between turns the board lays Penguins' completed card out, numbered as the menu does.
    expect_or_shoot(board, tmp_path, "completed cards", lambda: (
        expect(board.locator("#donecards figcaption")).to_have_text(["1"], timeout=MOMENT_WAIT),
        expect(board.locator("#donetitle")).to_have_text("Penguins' completed cards, round 1: check them")))
    expect(admin.locator("#start_turn")).to_be_visible(timeout=WAIT)
    admin.click("#start_turn")
    read_card(tower)
    end_turn_with_mistakes(sim, board, tower)
    expect_or_shoot(board, tmp_path, "ended at the round's end", lambda: (
        expect(board.locator("#result")).to_be_visible(timeout=MOMENT_WAIT),
        expect(board.locator("#resulttitle")).to_have_text("Winner: Penguins"),
        expect(board.locator("#resultend")).to_have_text(
            "Ended by the game master at the end of round 1: every team played as many turns.")))


def test_an_end_with_unequal_turns_says_who_played_how_many(pages, browser, tmp_path):
    """Penguins play their turn, then the game master ends the match now before Puffins
    play: the board on the TV names no winner and says who played how many turns (rule 25);
    the debrief on a phone says the same and lists the match as ended early."""
    admin, _, sim, tower = around_the_table(pages, seed=57)
    tv = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        board = tv.new_page()
        board.on("pageerror", lambda e: pages.errors.append(f"/board: {e}"))
        board.goto(pages.base + "/board")
        admin.click("#start_turn")
        card = read_card(tower)
        play_card(sim, card)
        wait_new_card(tower, card["label"])
        end_turn_with_mistakes(sim, board, tower)
        expect(board.locator('#scores tr[data-team="Penguins"] td.pts')).to_have_text("1", timeout=WAIT)
        expect(admin.locator("#start_turn")).to_be_visible(timeout=WAIT)
        admin.click("#end")  # the game master's page says it before the end
        expect(admin.locator("#endnow_text")).to_have_text(
            "The result is the scores as they stand. Turns played: Penguins 1, Puffins 0. "
            "The winner is decided on the turns every team played.", timeout=WAIT)
        admin.click("#end_now")
        expect_or_shoot(board, tmp_path, "ended with unequal turns", lambda: (
            expect(board.locator("#result")).to_be_visible(timeout=MOMENT_WAIT),
            expect(board.locator("#resulttitle")).to_have_text("No winner"),
            expect(board.locator("#resulttext")).to_have_text("Penguins: 1 · Puffins: 0"),
            expect(board.locator("#resultend")).to_have_text(
                "Ended by the game master during round 1. Turns played: Penguins 1, Puffins 0. "
                "Nobody wins: not every team has played a turn.")))
        assert board.evaluate("document.documentElement.scrollHeight <= innerHeight")
    finally:
        tv.close()
    phone = pages.open(pages.phone, "/debrief")  # the game master's phone: its own sign-in
    admin_login(phone)
    expect(phone.locator("#outcome")).to_have_text("Ended early, no winner", timeout=WAIT)
    expect(phone.locator("#endtext")).to_contain_text("Turns played: Penguins 1, Puffins 0.")
    expect(phone.locator("#match option").first).to_contain_text("ended early")


def test_walk_up_play_names_no_placeholder_and_says_what_starts_a_turn(browser, tmp_path):
    """On a service of its own (no match ever played): the tower's phone joins ahead, START
    on the panel sets the walk-up match up and starts its turn; the teams' players are not
    named, so the board asks the team to pick its tower, and no page names a role as a person.
    Served on the network as a café's cockpit is: the board at 127.0.0.1 is the cockpit's own
    screen, which shows the join code (a screen elsewhere is paired with the PIN first)."""
    with service(tmp_path, host="0.0.0.0") as base:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        errors: list[str] = []
        board, sim = ctx.new_page(), ctx.new_page()
        tower = phone.new_page()
        for page in (board, sim, tower):
            page.on("pageerror", lambda e: errors.append(str(e)))
        board.goto(base + "/board")
        sim.goto(base + "/sim")
        expect(board.locator("#joincode")).not_to_be_empty(timeout=WAIT)
        tower.goto(f"{base}/tower?code={board.locator('#joincode').text_content()}")
        expect(tower.locator("#waiting")).to_have_text(
            "No match yet. Keep this page open: the card appears here when the crew presses START on the panel.",
            timeout=WAIT)
        sim_press(sim, "cockpit.start")
        expect(board.locator("#team")).to_have_text("Turn: Blue team", timeout=WAIT)
        expect(board.locator("#roles")).to_have_text("")  # the team picks its tower between turns, not under its timer
        read_card(tower)  # the phone that joined ahead has the card
        expect(sim.locator("#phase")).to_have_text("Blue team is playing")
        for page in (board, sim, tower):
            text = page.locator("body").inner_text()
            assert not re.search(r"\b(Tower|Crew): (Tower|Crew)\b|Player \d|is the tower\)", text), text
        ctx.close()
        phone.close()
        assert errors == [], errors


def test_phones_join_the_quickest_game_over_the_network(browser, tmp_path):
    """`play --sim --host 0.0.0.0`, as the README says: /join opened on the cockpit's computer
    shows a QR code of the network address, with no warning; a phone opening that address
    plays the tower; the simulated panel takes presses at 127.0.0.1, not from the phone."""
    from panel.run import lan_address

    lan = lan_address()
    if not lan:
        pytest.skip("this machine has no network address besides loopback")
    with service(tmp_path, host="0.0.0.0") as base:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        join, sim = ctx.new_page(), ctx.new_page()
        join.goto(base + "/join")
        url = join.locator("#url")
        expect(url).to_have_text(re.compile(rf"^http://{re.escape(lan)}:\d+/tower\?code=[A-Z0-9]+$"), timeout=WAIT)
        expect(join.locator("#loopback")).to_be_hidden()
        tower = phone.new_page()
        tower.goto(url.text_content())  # what the phone's camera opens
        expect(tower.locator("#waiting")).to_contain_text("presses START on the panel", timeout=WAIT)
        sim.goto(base + "/sim")
        sim_press(sim, "cockpit.start")  # walk-up: START sets the match up and starts its turn
        read_card(tower)
        on_phone = phone.new_page()  # the simulator opened on the phone: its presses are refused, in words
        on_phone.goto(url.text_content().split("/tower")[0] + "/sim")
        up = on_phone.locator('.ctl.btn[data-control="cross.up"]')
        up.scroll_into_view_if_needed()
        up.tap()
        expect(on_phone.locator("#error")).to_contain_text("only on the computer running the cockpit", timeout=WAIT)
        ctx.close()
        phone.close()


def test_a_store_that_cannot_save_is_shown_on_the_board_and_the_admin_page(browser, tmp_path):
    """A full disk: the board tells the room and the game master's page says why."""
    from service_helpers import PIN as THREAD_PIN, ServiceThread, fill_the_disk, free_the_disk

    with ServiceThread(tmp_path / "panel.db") as svc:
        gm = svc.client()
        gm.login()
        match_id = gm.new_match()["match_id"]
        laptop = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            board = laptop.new_page()
            board.goto(svc.base + "/board")
            expect(board.locator("#team")).to_have_text("Next: Gulls", timeout=WAIT)
            expect(board.locator("#saveerror")).to_be_hidden()
            svc.on_loop(lambda: fill_the_disk(svc.store, match_id, svc.cockpit.now()))
            assert gm.act("start_turn")[0] == 503
            expect(board.locator("#saveerror")).to_contain_text("cannot save (the disk is full)", timeout=WAIT)
            admin = laptop.new_page()
            admin.goto(svc.base + "/admin")
            expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
            admin.fill("#pin", THREAD_PIN)
            admin.click("#login button[type=submit]")
            expect(admin.locator("#warnings")).to_contain_text("cannot save: the disk is full", timeout=WAIT)
            svc.on_loop(lambda: free_the_disk(svc.store))
            assert gm.act("start_turn")[0] == 200  # space again: the next write clears it
            expect(board.locator("#saveerror")).to_be_hidden(timeout=WAIT)
        finally:
            laptop.close()


def test_start_held_while_the_simulator_draws_the_new_match_is_let_go_all_the_same(browser, tmp_path):
    """START on /sim sets a new match up, and /sim draws its panel again for it while the
    finger is still down: the new drawing shows START held, and letting go of it reaches the
    cockpit (the old drawing took the pointer's capture with it: the release was lost)."""
    import json
    import sqlite3

    from waiting import wait_until

    with service(tmp_path) as base:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        sim = ctx.new_page()
        sim.goto(base + "/sim")
        start = sim.locator('.ctl.btn[data-control="cockpit.start"]')
        expect(sim.locator(".sim")).to_have_attribute("data-phase", "idle", timeout=WAIT)
        start.evaluate("b => { b.dataset.drawing = 'before the match'; }")
        start.hover()
        sim.mouse.down()
        expect(sim.locator(".sim")).to_have_attribute("data-phase", "in_turn", timeout=WAIT)
        expect(start).not_to_have_attribute("data-drawing", "before the match")  # drawn again, held
        expect(start).to_have_class(re.compile(r"\bpressed\b"))
        sim.mouse.up()
        expect(start).not_to_have_class(re.compile(r"\bpressed\b"))

        def logged_start():
            with sqlite3.connect(f"file:{tmp_path / 'panel.db'}?mode=ro", uri=True) as db:
                return [json.loads(j)["value"] for (j,) in db.execute("SELECT json FROM inputs WHERE kind = 'input'")
                        if json.loads(j).get("control") == "cockpit.start"]

        # (the store commits within seconds when nobody waits: asked until it has)
        assert wait_until(lambda: logged_start() == [True, False], guard=WAIT / 1000 + 10)
        ctx.close()
