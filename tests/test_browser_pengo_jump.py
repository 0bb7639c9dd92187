"""Pengo Jump in a real headless Chromium through the real service's pages: the game master
sets a game up on /admin, the players report every turn on /sim's panel buttons (and once
on the game master's buttons), the board on the TV and on a phone follows whose turn it is,
the sun setting with the bag, the bag by kind, the penguins home and the tokens; the debrief
keeps the café's record. One whole game won in English, one whole game lost in Spanish, each
at phone and TV sizes. Every wait is for what a page shows, never for wall-clock time."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from browser_helpers import (ARGS, CHROMIUM, READ, WAIT, GameMaster, check_fits, expect_or_shoot, leftovers, PIN,
                             service)
from panel.games.pengo_jump.mapping_file import panel_for
from test_browser import sim_press

pytestmark = pytest.mark.browser

_layout, MAPPING = panel_for(None)
BUTTON = MAPPING.buttons
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TV = {"viewport": {"width": 1920, "height": 1080}}
LAPTOP = {"viewport": {"width": 1280, "height": 900}}


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    """The service, the browser, a signed-in game master; `open(screen, path)` a page there."""
    shots = tmp_path_factory.mktemp("pengo")
    with service(tmp_path_factory.mktemp("service")) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        gm = GameMaster(browser.new_context(), base)
        errors: list[str] = []
        contexts = {name: browser.new_context(storage_state=gm.ctx.storage_state(), **options)
                    for name, options in (("phone", PHONE), ("tv", TV), ("laptop", LAPTOP))}

        def open_page(screen: str, path: str) -> Page:
            page = contexts[screen].new_page()
            page.on("pageerror", lambda e: errors.append(f"{path} on the {screen}: {e}"))
            page.goto(base + path)
            return page

        yield type("Rig", (), {"gm": gm, "open": staticmethod(open_page), "shots": shots, "base": base})
        browser.close()
    assert errors == [], errors  # no page threw a script error


def set_up(admin: Page, mode: str, names: list[str]) -> None:
    """The New match form: Pengo Jump, the mode, the players in their order."""
    admin.select_option("#game", "pengo-jump")
    expect(admin.locator('#setup [data-game="pengo-jump"]')).to_be_visible(timeout=WAIT)
    admin.select_option("#pjmode", mode)
    admin.fill("#pjcount", str(len(names)))
    expect(admin.locator("#pjplayers input")).to_have_count(len(names))
    for box, name in zip(admin.locator("#pjplayers input").all(), names):
        box.fill(name)
    admin.on("dialog", lambda d: d.accept())  # "abandon the match in play?" when one is
    before = admin.locator("#log li").count()
    admin.click("#setup button[type=submit]")
    expect(admin.locator("#log li")).to_have_count(before + 1, timeout=WAIT)


def left(board: Page, n: int) -> None:
    expect(board.locator("#pdaylight")).to_have_attribute("data-left", str(n), timeout=WAIT)


def test_a_whole_game_won_in_english_at_tv_and_phone_sizes(rig):
    admin = rig.open("laptop", "/admin")
    expect(admin.locator("#app")).to_be_visible(timeout=WAIT)
    set_up(admin, "sea_lions", ["Lea", "Tom"])
    tv = rig.open("tv", "/board")
    phone = rig.open("phone", "/board")
    sim = rig.open("laptop", "/sim")
    for board in (tv, phone):
        expect(board.locator("h1")).to_have_text("Pengo Jump", timeout=WAIT)
        expect(board.locator("#pname")).to_have_text("Lea")
        left(board, 21)
    expect(tv.locator('.pkind[data-kind="snowy"]')).to_have_attribute("data-count", "9")
    expect(tv.locator("#pbanner")).to_have_text("Lea: draw an ice chunk, then press its button")
    # The key names each button by what it is on the panel, and the simulator captions it.
    expect(tv.locator('#pkey li[data-role="frosty"]')).to_contain_text("the blue beacon")
    expect(sim.locator(f'.ctl[data-control="{BUTTON["frosty"]}"] .pcap')).to_have_text("frosty", timeout=WAIT)
    check_fits(tv, rig.shots, "board on the TV, English", whole=True)
    check_fits(phone, rig.shots, "board on the phone, English")

    # Lea: a frosty chunk, a hop onto a small sea lion (its token slides in), home, end of turn.
    sim_press(sim, BUTTON["frosty"])
    left(tv, 20)
    expect(tv.locator('.pkind[data-kind="frosty"]')).to_have_attribute("data-count", "5")
    expect(tv.locator('.pkind[data-kind="frosty"] .pkodds')).to_have_text("25%")
    sim_press(sim, BUTTON["small_sea_lion"])
    expect(tv.locator('.ptoken[data-size="small"]')).to_have_attribute("data-free", "5", timeout=WAIT)
    sim_press(sim, BUTTON["home"])
    expect(tv.locator("#phometext")).to_have_attribute("data-home", "1", timeout=WAIT)
    expect(tv.locator(".ppenguin.safe")).to_have_count(1)
    sim_press(sim, BUTTON["home"])  # refused: one penguin moves per turn, said on the TV and on /sim
    expect(tv.locator("#prefused")).to_have_text(
        "one penguin moves per turn: this turn's has moved (up on the direction cross pressed)", timeout=WAIT)
    expect(sim.locator("#refused")).to_contain_text("one penguin moves per turn")
    sim_press(sim, BUTTON["end_turn"])
    for board in (tv, phone):
        expect(board.locator("#pname")).to_have_text("Tom", timeout=WAIT)
    expect(tv.locator("#phometext")).to_have_attribute("data-home", "1")
    # Tom: the game master's own button for a draw, then a fall: the turn is over.
    admin.click('#pjreports button[data-pjaction="draw"][data-kind="snowy"]')
    left(tv, 19)
    sim_press(sim, BUTTON["fell"])
    expect(tv.locator("#pbanner")).to_have_text("A penguin fell: Tom's turn is over. Lea: draw an ice chunk", timeout=WAIT)
    expect(admin.locator('#pjreports button[data-pjaction="home"]')).to_be_hidden()
    # The next draws pass the turn by themselves, until the sun goes down to evening.
    for n in range(18, 13, -1):
        sim_press(sim, BUTTON["snowy"] if n > 14 else BUTTON["sea_lion"])
        left(tv, n)
    expect(tv.locator("#psky")).to_have_attribute("data-stage", "evening")
    assert "pengo_sunset" in [c["name"] for c in tv.evaluate("window.boardCues")]
    # Three penguins more, one per turn: won.
    for _ in range(3):
        sim_press(sim, BUTTON["frosty"])
        sim_press(sim, BUTTON["home"])
    for board in (tv, phone):
        expect_or_shoot(board, rig.shots, "the won game's result", lambda: expect(board.locator("#resulttitle")).to_have_text(
            "Every penguin is home before dark!", timeout=WAIT))
    expect(tv.locator("#resulttext")).to_have_text("You won with 11 chunks left in the bag.")
    assert {"pengo_draw", "pengo_home", "pengo_fell", "pengo_sea_lion", "pengo_won"} <= {
        c["name"] for c in tv.evaluate("window.boardCues")}
    check_fits(tv, rig.shots, "the result on the TV", whole=True)
    state = rig.gm.state()
    assert state["outcome"] == "won" and state["home"] == 4 and state["left"] == 11

    debrief = rig.open("laptop", "/debrief")
    expect(debrief.locator("#outcome")).to_have_text("Every penguin is home before dark!", timeout=WAIT)
    expect(debrief.locator("#table-draws tbody tr")).to_have_count(10)
    expect(debrief.locator("#pjrecordline")).to_have_attribute("data-won", "1", timeout=WAIT)


def test_a_whole_game_lost_in_spanish_at_phone_and_tv_sizes(rig):
    rig.gm.post("/api/admin/settings", {"language": "es"})
    admin = rig.open("phone", "/admin")  # the game master's phone
    expect(admin.locator("#app")).to_be_visible(timeout=WAIT)
    set_up(admin, "happy", ["Ana", "Bea", "Carla"])
    tv = rig.open("tv", "/board")
    phone = rig.open("phone", "/board")
    sim = rig.open("laptop", "/sim")
    for board in (tv, phone):
        expect(board.locator("#pname")).to_have_text("Ana", timeout=WAIT)
        expect(board.locator("#pbanner")).to_have_text("Ana: saca un bloque de hielo y pulsa su botón")
        expect(board.locator("#ptokensbox")).to_be_hidden()  # Happy Penguins: no sea lion tokens
    expect(tv.locator('#pkey li[data-role="snowy"]')).to_contain_text("el botón de baliza blanco")
    sim_press(sim, BUTTON["sea_lion"])
    left(tv, 20)
    sim_press(sim, BUTTON["home"])
    expect(tv.locator("#phometext")).to_have_text("1 de 4", timeout=WAIT)
    # The rest of the bag, a chunk a turn, the turn passed by each draw.
    bag = {"snowy": 9, "sea_lion": 5, "frosty": 6}
    n = 20
    for kind, count in bag.items():
        for _ in range(count):
            sim_press(sim, BUTTON[kind])
            n -= 1
            left(tv, n)
            if n == 7:
                expect(tv.locator("#psky")).to_have_attribute("data-stage", "dusk")
    expect(tv.locator("#psky")).to_have_attribute("data-stage", "night")
    expect(tv.locator("#pbanner")).to_contain_text("La bolsa está vacía")
    for screen, board in (("TV", tv), ("phone", phone)):
        texts = board.evaluate(READ)
        assert leftovers(texts, ["Pengo Jump", "Ana", "Bea", "Carla", "OK", "START"]) == {}, screen
    check_fits(tv, rig.shots, "board on the TV, Spanish", whole=True)
    check_fits(phone, rig.shots, "board on the phone, Spanish")
    sim_press(sim, BUTTON["snowy"])  # refused: the bag is empty
    expect(tv.locator("#prefused")).to_contain_text("la bolsa está vacía", timeout=WAIT)
    sim_press(sim, BUTTON["end_turn"])
    for board in (tv, phone):
        expect(board.locator("#resulttitle")).to_have_text("Cayó la noche sobre el hielo", timeout=WAIT)
    expect(tv.locator("#resulttext")).to_have_text(
        "La bolsa está vacía y aún quedan 3 pingüinos sobre el hielo: esta vez, partida perdida.")
    assert "pengo_lost" in [c["name"] for c in tv.evaluate("window.boardCues")]
    state = rig.gm.state()
    assert state["outcome"] == "lost" and state["reason"] == "bag_empty" and state["left"] == 0

    debrief = rig.open("phone", "/debrief")
    expect(debrief.locator("#outcome")).to_have_text("Cayó la noche sobre el hielo", timeout=WAIT)
    expect(debrief.locator("#pjrecordline")).to_have_text("1 ganadas de 2 partidas jugadas hasta el final", timeout=WAIT)
    texts = debrief.evaluate(READ)
    assert leftovers(texts, ["Pengo Jump", "Ana", "Bea", "Carla", "Lea", "Tom", "CSV"]) == {}
    check_fits(debrief, rig.shots, "debrief on the phone, Spanish")
