"""A real headless Chromium (Debian's) plays the game through the real service's pages.

The service is `penguin-panel play --sim` started as a subprocess on a free port with a
temporary SQLite file; Playwright drives /usr/bin/chromium (never a downloaded browser).
The crew presses controls on the simulator page, the tower reads the card from its phone
page, the scoreboard shows the counters and the score, the game master rules a challenge.
Nothing here waits on wall-clock time for its assertions: each waits for what the page shows.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from panel.events import ACTIONS
from panel.layout import load_layout

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PIN = "4321"
WAIT = 15_000  # ms: the longest any page may take to show what it should
LAYOUT = load_layout()  # the blue side, as the matches below are played


@contextlib.contextmanager
def service(tmp: Path):
    """`penguin-panel play --sim` on a free port with its own SQLite file; yields its base URL."""
    settings = tmp / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')
    proc = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0",
                             "--db", str(tmp / "panel.db"), "--settings", str(settings)],
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
    btn.scroll_into_view_if_needed()
    box = btn.bounding_box()
    sim.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
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


def test_a_turn_played_in_the_browser(pages):
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    code = new_match(admin)
    board = pages.open(pages.laptop, "/board")
    sim = pages.open(pages.laptop, "/sim")
    tower = pages.open(pages.phone, f"/tower?code={code}")
    expect(board.locator("#team")).to_have_text("Turn: Penguins", timeout=WAIT)
    expect(tower.locator("#waiting")).to_be_visible()
    assert tower.locator("#card svg").count() == 0  # no card before the turn starts
    # Between turns the board shows the tower's QR code and says START starts the turn.
    expect(board.locator("#joincode")).to_have_text(code, timeout=WAIT)
    expect(board.locator("#joinbox .qr svg")).to_be_visible()
    expect(board.locator("#banner")).to_have_text("Next: Penguins — crew, reset the tokens, then press START")

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
    expect(board.locator("#stuck")).to_have_text(f"stuck: {LAYOUT.plain_name(wrong[0])}", timeout=WAIT)
    expect(sim.locator(f'.ctl[data-control="{wrong[0]}"]')).to_have_class(re.compile(r"\bstuck\b"), timeout=WAIT)
    sim_press(sim, wrong[1])
    # The turn scored its one card: the score is on the board, the next team is up.
    expect(board.locator('#scores tr[data-team="Penguins"] td.pts')).to_have_text("1", timeout=WAIT)
    expect(board.locator("#team")).to_have_text("Turn: Puffins", timeout=WAIT)
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
    # The join page shows the code and a QR code of the tower's address.
    join = pages.open(pages.laptop, "/join")
    expect(join.locator("#code")).to_have_text(code, timeout=WAIT)
    expect(join.locator("#qr svg")).to_be_visible()
    assert f"/tower?code={code}" in join.text_content("#url")


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
    admin.once("dialog", lambda d: d.accept())
    admin.click("#end")
    expect(board.locator("#result")).to_be_visible(timeout=WAIT)
    expect(board.locator("#resulttitle")).to_contain_text("Shared win")  # 0 : 0 is a shared win
    # Cooperative: one crew of three; the end shows the tier and its landing text.
    new_match(admin, mode="cooperative", teams=(("Crew", "Ana, Ben, Cleo"),), seed=12)
    expect(board.locator("#result")).to_be_hidden(timeout=WAIT)
    expect(board.locator("#round")).to_have_text(re.compile(r"Round 1 of 6"), timeout=WAIT)
    admin.once("dialog", lambda d: d.accept())
    admin.click("#end")
    expect(board.locator("#resulttitle")).to_have_text("Rookie!", timeout=WAIT)
    expect(board.locator("#resulttext")).to_contain_text("close one")


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
        expect(board.locator("#team")).to_have_text(f"Turn: {team}", timeout=WAIT)
        expect(board.locator("#banner")).to_contain_text(f"Next: {team}", timeout=WAIT)
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
    expect(board.locator("#result")).to_be_visible(timeout=WAIT)
    expect(board.locator("#resulttitle")).to_have_text("Shared win: Penguins & Puffins")
    expect(board.locator("#resulttext")).to_have_text("Penguins: 1 · Puffins: 1")
    expect(tower.locator("#waiting")).to_contain_text("The game is over", timeout=WAIT)
    assert tower.locator("#card svg").count() == 0
    expect(admin.locator("#phase")).to_have_text("finished", timeout=WAIT)
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
    for rnd in range(1, 5):
        expect(board.locator("#round")).to_have_text(f"Round {rnd} of 4", timeout=WAIT)
        expect(board.locator("#timer")).to_have_text("5", timeout=WAIT)  # between turns: the full turn
        expect(admin.locator("#start_turn")).to_be_enabled(timeout=WAIT)
        admin.click("#start_turn")
        read_card(tower)  # the tower has a card while the turn runs
        expect(admin.locator("#log")).to_contain_text("Turn over (time)", timeout=WAIT)
        expect(tower.locator("#waiting")).to_be_visible(timeout=WAIT)
    expect(board.locator("#result")).to_be_visible(timeout=WAIT)
    expect(board.locator("#resulttitle")).to_have_text("Rookie!")
    expect(board.locator("#resulttext")).to_contain_text("It's a miracle you landed that thing")
    expect(board.locator("#round")).to_have_text("Round 4 of 4")


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
    other.once("dialog", lambda d: d.accept())
    other.click("#end")
    expect(admin.locator("#start_turn")).to_be_disabled(timeout=WAIT)
    admin.evaluate("() => { document.querySelector('#start_turn').disabled = false; }")
    admin.click("#start_turn")
    expect(admin.locator("#error")).to_have_text("Not possible now: the match is over: set up a new match.",
                                                 timeout=WAIT)
    # The session is gone (the cookie cleared): the next action asks for the PIN again.
    pages.laptop.clear_cookies()
    admin.evaluate("() => { document.querySelector('#start_turn').disabled = false; }")
    admin.click("#start_turn")
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
    expect(board_page.locator("#resulttitle")).to_contain_text("Shared win", timeout=WAIT)  # the state came back


def test_the_simulator_is_drawn_for_the_match_in_play(pages):
    """A gray-side base-game match: the simulator redraws with the gray colours and no
    expansion modules, without a reload."""
    sim = pages.open(pages.laptop, "/sim")
    up = sim.locator('.ctl[data-control="cross.up"]')
    expect(up).to_have_attribute("title", "cross.up (blue)", timeout=WAIT)
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    new_match(admin, side="gray")
    expect(up).to_have_attribute("title", "cross.up (red)", timeout=WAIT)
    expect(sim.locator('.ctl[data-control="keypad.f"]')).to_have_count(0)
    expect(sim.locator("#title")).to_have_text(re.compile("gray side"))


def test_the_debrief_shows_a_played_turn_as_tables_and_plots(pages, tmp_path):
    """One turn (a card done, then two slips): /debrief shows it in the turns table and as one
    bar per turn, the slips by instruction type and by control, CSV links, and prints on A4."""
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    code = new_match(admin, seed=31)
    board = pages.open(pages.laptop, "/board")
    sim = pages.open(pages.laptop, "/sim")
    tower = pages.open(pages.phone, f"/tower?code={code}")
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
  {id: b.id, action: b.dataset.action, upheld: b.dataset.upheld ?? null, enabled: !b.disabled}))"""
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
        assert {b["action"] for b in admin.evaluate(READ_BUTTONS)} == set(ACTIONS) - {"touch", "new_match"}

        state = expect_buttons_follow_the_state(admin, base, "idle")
        assert set(state["actions"]) == {"new_match"}
        new_match(admin, seed=41)
        state = expect_buttons_follow_the_state(admin, base, "between_turns")
        assert "start_turn" in state["actions"] and "flip" not in state["actions"]

        admin.click("#start_turn")
        expect(admin.locator("#phase")).to_have_text("in turn", timeout=WAIT)
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
        expect(admin.locator("#phase")).to_contain_text("paused", timeout=WAIT)
        state = expect_buttons_follow_the_state(admin, base, "paused")
        assert "resume" in state["actions"] and "challenge" not in state["actions"]

        admin.click("#end")
        expect(admin.locator("#phase")).to_have_text("finished", timeout=WAIT)
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
        expect(board.locator("#team")).to_have_text("Pulsa START para jugar", timeout=WAIT)  # by its socket
        expect(board.locator("html")).to_have_attribute("lang", "es")
        expect(board.locator(".joincaption")).to_have_text("Torre de control: escanea esto")  # data-t
        expect(board.locator("#joinbox")).to_have_attribute("aria-label", "Únete como torre de control")
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
