"""Penguin Kaboom as a group meets it, in a real headless Chromium at each page's device
size (/sim on a 1024x768 tablet, /board on a 1920x1080 TV): a mission after an Airlines turn
that left the big lever down is not lost by one press of the mission button; a mission is
won on /sim with a mouse alone (buttons latched down with Shift or the "Hold buttons"
switch); every refused press is said on the board and on /sim in the players' words; the
TV names the panel's buttons by what they are; success and failure never look alike.
Every wait is for what a page shows, never for wall-clock time."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from browser_helpers import ARGS, CHROMIUM, WAIT, GameMaster, check_fits, service
from panel.games.kaboom.mapping_file import load_mapping

pytestmark = pytest.mark.browser

MAPPING = load_mapping()
LOWERED = next(p for p in MAPPING.cover_positions if p != MAPPING.cover_open)
TABLET = {"width": 1024, "height": 768}
TV = {"width": 1920, "height": 1080}
PRESSED = re.compile(r"\bpressed\b")


@pytest.fixture
def table(tmp_path):
    """A fresh cockpit; the game master's API, /sim on a tablet and /board on a TV."""
    with service(tmp_path) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tablet, tv = browser.new_context(viewport=TABLET), browser.new_context(viewport=TV)
        errors: list[str] = []

        def page(ctx, path) -> Page:
            pg = ctx.new_page()
            pg.on("pageerror", lambda e: errors.append(f"{path}: {e}"))
            pg.goto(base + path)
            return pg

        gm = GameMaster(tablet, base)
        yield type("Table", (), {"gm": gm, "base": base, "shots": tmp_path,
                                 "sim": lambda: page(tablet, "/sim"), "board": lambda: page(tv, "/board")})
        browser.close()
        assert errors == [], errors


def button(sim: Page, control: str):
    return sim.locator(f'.ctl.btn[data-control="{control}"]')


def click(sim: Page, control: str, *, shift: bool = False) -> None:
    """A click with the mouse, as a person clicks the drawn button (Shift held: latched down)."""
    btn = button(sim, control)
    btn.hover()
    if shift:
        sim.keyboard.down("Shift")
    sim.mouse.down()
    expect(btn).to_have_class(PRESSED)
    sim.mouse.up()
    if shift:
        sim.keyboard.up("Shift")


def lever(sim: Page, position: str) -> None:
    """The big lever moved with the mouse (a click toggles it)."""
    tok = sim.locator(f'.ctl.tok[data-control="{MAPPING.cover}"]')
    if tok.get_attribute("data-position") != position:
        tok.click()
    expect(tok).to_have_attribute("data-position", position)


def mission(gm: GameMaster, players: list[str], **custom) -> None:
    body = {"game": "kaboom", "players": players, "difficulty": "easy"}
    body.update({"mission": "custom", "custom": custom} if custom else {"mission": 1})
    gm.post("/api/admin/match", body)


def test_a_mission_after_an_airlines_turn_that_left_the_lever_down_is_not_lost_by_one_press(table):
    gm = table.gm
    gm.post("/api/admin/match", {"teams": [{"name": "Gulls", "players": ["Ana", "Bo"]},
                                           {"name": "Puffins", "players": ["Cy", "Di"]}]})
    gm.act("start_turn")
    sim = table.sim()
    lever(sim, MAPPING.cover_open)  # an Airlines card asked for the big lever down, and it stays there
    gm.act("end", when="now")
    mission(gm, ["red", "blue"], time_per_player=600, alert_seconds=600)
    board = table.board()
    expect(board.locator("h1")).to_have_text("Penguin Kaboom", timeout=WAIT)
    expect(sim.locator("#title")).to_have_text("Penguin Kaboom", timeout=WAIT)
    # The board says how the players lift the protection: the lever away, and back.
    expect(board.locator("#kprotection")).to_have_text(
        "The mission button is protected: to lift the protection, move the big lever to “up”, then back to “down”",
        timeout=WAIT)
    click(sim, MAPPING.start)
    expect(board.locator(".kplayer.running")).to_have_count(1, timeout=WAIT)
    click(sim, MAPPING.mission)  # one press, the lever still down: refused, said, nothing lost
    for page, node in ((board, "#krefused"), (sim, "#refused")):
        expect(page.locator(node)).to_contain_text("Lift the mission button's cover first", timeout=WAIT)
        expect(page.locator(node)).to_contain_text("up on the direction cross")
    expect(board.locator(".kplayer.running")).to_have_count(1)
    expect(board.locator("#kbanner")).to_be_hidden()
    check_fits(board, table.shots, "board with a refusal", whole=True)
    lever(sim, LOWERED)
    lever(sim, MAPPING.cover_open)
    expect(board.locator("#kprotection")).to_have_text(
        "Protection off: up on the direction cross (blue) closes the mission", timeout=WAIT)
    click(sim, MAPPING.mission)
    expect(board.locator("#kbanner")).to_contain_text("finger on your colour", timeout=WAIT)
    # The keyboard holds several too: Shift+Space latches the focused button down.
    for colour in ("red", "blue"):
        button(sim, MAPPING.players[colour]).focus()
        sim.keyboard.press("Shift+Space")
        expect(button(sim, MAPPING.players[colour])).to_have_class(re.compile(r"\blatched\b"))
    expect(board.locator("#resulttitle")).to_have_text("Mission accomplished!", timeout=WAIT)
    sim.keyboard.press("Escape")  # lets go of every latched button
    expect(sim.locator(".ctl.btn.pressed")).to_have_count(0)


def test_a_mission_is_won_on_the_simulator_with_a_mouse_alone(table):
    gm = table.gm
    mission(gm, ["red", "blue", "white"])
    sim, board = table.sim(), table.board()
    expect(sim.locator(f'.ctl[data-control="{MAPPING.players["white"]}"] .kcap')).to_have_text("white", timeout=WAIT)
    check_fits(sim, table.shots, "sim in a mission")
    click(sim, MAPPING.start)
    expect(board.locator(".kplayer.running")).to_have_count(1, timeout=WAIT)
    lever(sim, MAPPING.cover_open)
    expect(board.locator("#kprotection")).to_contain_text("Protection off", timeout=WAIT)
    click(sim, MAPPING.mission)
    expect(board.locator("#kbanner")).to_contain_text("finger on your colour", timeout=WAIT)
    # Shift-click: the red button stays down, the mouse free for the next.
    click(sim, MAPPING.players["red"], shift=True)
    red = button(sim, MAPPING.players["red"])
    expect(red).to_have_class(re.compile(r"\blatched\b"))
    expect(red).to_have_attribute("aria-pressed", "true")
    expect(board.locator('.kplayer[data-colour="red"] .kpfinger')).to_contain_text("✓", timeout=WAIT)
    # The "Hold buttons" switch: every click latches, no key needed.
    sim.click("#hold")
    expect(sim.locator("#hold")).to_have_attribute("aria-pressed", "true")
    click(sim, MAPPING.players["blue"])
    expect(board.locator('.kplayer[data-colour="blue"] .kpfinger')).to_contain_text("✓", timeout=WAIT)
    expect(board.locator("#result")).to_be_hidden()
    click(sim, MAPPING.players["white"])
    expect(board.locator("#resulttitle")).to_have_text("Mission accomplished!", timeout=WAIT)
    result = board.locator("#result")
    expect(result).to_have_class(re.compile(r"\bkresult-success\b"))
    expect(result).to_have_css("border-top-color", "rgb(47, 208, 107)")  # green: never the failure's red
    expect(board.locator("#resultend")).to_have_text("Press START for mission 2")
    check_fits(board, table.shots, "board after a success", whole=True)
    # The switch off lets go of every latched button; START moves on to the next mission.
    sim.click("#hold")
    expect(sim.locator(".ctl.btn.latched")).to_have_count(0)
    expect(sim.locator(".ctl.btn.pressed")).to_have_count(0)
    click(sim, MAPPING.start)
    expect(board.locator("#round")).to_have_text("Mission 2, easy", timeout=WAIT)
    expect(board.locator(".kplayer.running")).to_have_count(1, timeout=WAIT)
    assert [p["held"] for p in gm.state()["players"]] == [False, False, False]


def test_refused_presses_are_said_on_the_board_and_the_simulator(table):
    gm = table.gm
    mission(gm, ["red", "blue"], time_per_player=600, alert_seconds=600)
    sim, board = table.sim(), table.board()
    expect(board.locator(".kplayer")).to_have_count(2, timeout=WAIT)
    # The TV names the buttons by what they are on the panel, never by an id.
    legend = board.locator("#klegend")
    expect(legend.locator('[data-role="alert_flipped"]')).to_contain_text("the big red button on the direction cross")
    expect(legend.locator('[data-role="recharge"]')).to_contain_text("OK on the direction cross (green)")
    expect(legend.locator('[data-role="mission"]')).to_contain_text("up on the direction cross (blue)")
    expect(legend.locator('[data-role="cover"]')).to_contain_text("the big lever")
    check_fits(board, table.shots, "board at the set-up", whole=True)
    # A set-up player's colour before START: answered, and still in the mission.
    click(sim, MAPPING.players["red"])
    said = "The red penguin has already joined"
    for page, node in ((board, "#krefused"), (sim, "#refused")):
        expect(page.locator(node)).to_contain_text(said, timeout=WAIT)
    expect(board.locator(".kplayer")).to_have_count(2)
    click(sim, MAPPING.start)
    expect(board.locator(".kplayer.running")).to_have_count(1, timeout=WAIT)
    playing = board.locator(".kplayer.running").get_attribute("data-colour")
    waiting = "blue" if playing == "red" else "red"
    click(sim, MAPPING.players[waiting])
    for page, node in ((board, "#krefused"), (sim, "#refused")):
        expect(page.locator(node)).to_contain_text(f"It is the {playing} penguin's turn", timeout=WAIT)
    expect(board.locator(f'.kplayer.running[data-colour="{playing}"]')).to_be_visible()
    click(sim, MAPPING.mission)
    for page, node in ((board, "#krefused"), (sim, "#refused")):
        expect(page.locator(node)).to_contain_text("Lift the mission button's cover first", timeout=WAIT)


def test_a_lost_mission_never_looks_like_a_won_one(table):
    mission(table.gm, ["green"], time_per_player=300, alert_seconds=5, alerts=1, alerts_face_up=0)
    sim, board = table.sim(), table.board()
    expect(board.locator(".kplayer")).to_have_count(1, timeout=WAIT)
    click(sim, MAPPING.start)
    expect(board.locator("#kbanner")).to_contain_text("ALERT", timeout=WAIT)
    click(sim, MAPPING.alert_flipped)  # the one alert card face up: the last
    expect(board.locator("#resulttitle")).to_have_text("Mission failed", timeout=WAIT)
    result = board.locator("#result")
    expect(result).to_have_class(re.compile(r"\bkresult-failed\b"))
    expect(result).to_have_css("border-top-color", "rgb(255, 77, 94)")
    assert board.evaluate("() => getComputedStyle(document.querySelector('#resulttitle'), '::before').content") == '"✖ "'
    expect(board.locator("#resultend")).to_have_text("Press START to play the custom mission again")
