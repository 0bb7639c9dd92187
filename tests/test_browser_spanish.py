"""The pages in Spanish: no English left on any of them, and nothing wider than the screen
(Spanish words are longer), through a whole match played with the language set to Spanish.

One service and one browser: every page open at the sizes it is used at (the phone's pages
at 390x844, the board, the simulator and the game master's page on a TV at 1920x1080), in
English at first; the game master picks Spanish on /admin and every page switches by
itself; then a match is played through the API and the simulator's input (idle, between
turns, a challenge, a mistake, paused, after a turn's end, ended, the debrief, a
cooperative flight, a Penguin Kaboom mission), and at each phase each page is read: its visible text, its title and the
title, placeholder and aria-label of what it shows. A word of the pages' English texts (the
catalog's, less the words Spanish shares: START, PIN, simple ...) found there is a leftover.

What the server words (the controls' plain names, the card's lines and drawings, the
refusals, the settings' labels) is read too: the service says it in the cockpit's language.
Only the labels printed on the panel's buttons (FLIP, as the panel shows them) are left out.
"""

from __future__ import annotations

import html
import re

import pytest
from playwright.sync_api import expect, sync_playwright

from browser_helpers import (ARGS, CHROMIUM, ENGLISH, MOMENT_WAIT, READ, WAIT, WIDER, GameMaster, check_fits, leftovers,
                             screenshot, service)

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TV = {"viewport": {"width": 1920, "height": 1080}}
PAGES = {"phone": ("tower", "join", "admin", "debrief", "sim", ""), "tv": ("board", "sim", "admin")}
# Names the match is played with: no English word among them.
TEAMS = [{"name": "Pingüinos", "players": ["Ana", "Bea"]}, {"name": "Frailecillos", "players": ["Carla", "Dani"]}]


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    """The service, the browser, a signed-in game master and every page open on its screen."""
    shots = tmp_path_factory.mktemp("spanish")
    with service(tmp_path_factory.mktemp("service")) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        gm = GameMaster(browser.new_context(), base)
        code = gm.ctx.request.get(base + "/api/join").json()["code"]  # the next match's: the tower joins ahead
        errors: list[str] = []
        pages = {}
        for screen, options in (("phone", PHONE), ("tv", TV)):
            ctx = browser.new_context(storage_state=gm.ctx.storage_state(), **options)
            for name in PAGES[screen]:
                page = ctx.new_page()
                page.on("pageerror", lambda e, where=f"/{name} on the {screen}": errors.append(f"{where}: {e}"))
                page.goto(f"{base}/{name}" + (f"?code={code}" if name == "tower" else ""))
                pages[(screen, name)] = page
        yield type("Rig", (), {"gm": gm, "pages": pages, "shots": shots, "base": base, "code": code, "errors": errors})
        browser.close()
    assert errors == [], errors  # no page threw a script error


def server_texts(rig) -> list[str]:
    """The labels printed on the panel's buttons (FLIP, as on the panel), which the pages show
    as printed: longest first."""
    layout = rig.gm.ctx.request.get(rig.base + "/api/layout").json()
    texts = [c["label"] for c in layout["controls"] if c.get("label")]
    return sorted({t for t in texts if t}, key=len, reverse=True)


def shows(page, name: str, phase: str) -> None:
    """Wait until the page shows the match's phase (in Spanish: its <html lang>). The debrief
    and the start page have no live socket: they are opened again."""
    if name in ("debrief", ""):
        page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "es", timeout=WAIT)
    if name == "debrief":
        expect(page.locator("#nomatch" if phase == "idle" else "#app")).to_be_visible(timeout=WAIT)
    elif name == "join":
        expect(page.locator("#code")).to_have_text(rig_code(page), timeout=WAIT)
    elif name in ("admin", "board", "tower", "sim"):
        expect(page.locator(f".{name}")).to_have_attribute("data-phase", phase, timeout=WAIT)


def rig_code(page) -> str:
    return page.request.get(page.url.split("/join")[0] + "/api/join").json()["code"]


def check_every_page(rig, phase: str, shown: dict[str, str] | None = None) -> None:
    """Each page, once it shows the phase: no English word, nothing wider than its screen."""
    server = server_texts(rig)
    for (screen, name), page in rig.pages.items():
        label = f"/{name} on the {screen} ({phase})"
        try:
            shows(page, name, (shown or {}).get(name, phase))
        except AssertionError as e:
            pytest.fail(f"{label}: {e} (screenshot: {screenshot(page, rig.shots, label)})")
        english = leftovers(page.evaluate(READ), server)
        wider = page.evaluate(WIDER)
        if english or wider:
            pytest.fail(f"{label}: English words {english}; beyond the screen: {wider} "
                        f"(screenshot: {screenshot(page, rig.shots, label)})")
        check_fits(page, rig.shots, label, whole=(screen, name) == ("tv", "board"))


def wrong_button(rig, avoid: str | None = None) -> str:
    """A button the card in play does not ask for (pressed, it is a mistake)."""
    card = rig.gm.ctx.request.get(f"{rig.base}/api/tower?code={rig.code}").json()["card"]
    return next(b for b in ("alarm.red", "alarm.yellow", "beacon.red", "radio.1", "radio.2")
                if b != avoid and b not in card.get("press", []) and b.split(".")[0] != card.get("section"))


def test_the_catalog_gives_the_check_its_english_words():
    """The list the pages are read against: the pages' own words, none that Spanish shares."""
    assert {"press", "turn", "team", "card", "challenge", "next", "pause", "mistake", "round", "the"} <= ENGLISH
    assert not {"start", "pin", "csv", "penguin", "airlines", "kaboom", "simple", "control"} & ENGLISH


def test_a_match_played_in_spanish_shows_only_spanish_on_every_page(rig):
    gm, admin = rig.gm, rig.pages[("phone", "admin")]
    # In English at first; the game master picks Spanish on /admin: every page follows.
    expect(admin.locator("#language")).to_have_value("en", timeout=WAIT)
    admin.select_option("#language", "es")
    expect(admin.locator("#settingsmsg")).to_have_text(
        "Idioma guardado: todas las páginas se muestran ahora en Español.", timeout=WAIT)
    check_every_page(rig, "idle")

    gm.post("/api/admin/match", {"teams": TEAMS, "seed": 61, "turn_seconds": 300})
    rig.code = gm.ctx.request.get(rig.base + "/api/join").json()["code"]
    check_every_page(rig, "between_turns")

    # A challenge on the card in play: the turn waits for the game master's ruling.
    gm.act("start_turn")
    gm.act("challenge", team="Frailecillos", card="current")
    check_every_page(rig, "paused")

    # Rejected (the card counts), then a mistake: the stuck control named on every page.
    gm.act("rule", upheld=False)
    gm.press(wrong_button(rig))
    assert gm.state()["mistakes"] == 1
    check_every_page(rig, "in_turn")
    # "End the match…" asks what happens to the turn in progress, in Spanish too.
    admin.click("#end")
    expect(admin.locator("#endnow_text")).to_contain_text("no puntúa", timeout=WAIT)
    assert leftovers([admin.locator("#enddialog").inner_text()], server_texts(rig)) == {}
    admin.click("#end_cancel")

    gm.act("pause")
    check_every_page(rig, "paused")

    # The second mistake ends the turn: after the board's moment, the next team's turn waits.
    gm.act("resume")
    gm.press(wrong_button(rig, avoid=gm.state()["stuck"]))
    board = rig.pages[("tv", "board")]
    expect(board.locator(".board")).to_have_attribute("data-moment", "result", timeout=MOMENT_WAIT)
    expect(board.locator("#momenttitle")).to_have_text(re.compile(r"^Fin del turno: 2 fallos$"))
    expect(board.locator(".board")).to_have_attribute("data-moment", "", timeout=MOMENT_WAIT)
    check_every_page(rig, "between_turns")
    expect(board.locator("#lastturn")).to_contain_text("Último turno: Pingüinos: 1 carta = 1 punto")

    # Ended now, in the middle of the next turn: it is not scored, and every page says so.
    gm.act("start_turn")
    gm.act("end", when="now")
    check_every_page(rig, "ended")
    expect(board.locator("#resultend")).to_have_text(
        "Terminada por el director de juego durante la ronda 1: el turno en curso de Frailecillos "
        "(ninguna carta hasta entonces) no puntuó. Turnos jugados: Pingüinos 1, Frailecillos 0. "
        "Nadie gana: no todos los equipos han jugado un turno.")  # rule 25: who played how many turns

    # A cooperative flight: one crew, the tower's phone opened with the new match's code.
    crew = [{"name": "Pingüinos", "players": ["Ana", "Bea", "Carla", "Dani"]}]
    gm.post("/api/admin/match", {"mode": "cooperative", "teams": crew, "seed": 7, "turn_seconds": 300})
    rig.code = gm.ctx.request.get(rig.base + "/api/join").json()["code"]
    rig.pages[("phone", "tower")].goto(f"{rig.base}/tower?code={rig.code}")
    gm.act("start_turn")
    check_every_page(rig, "in_turn")
    expect(board.locator("#team")).to_have_text("Vuelo cooperativo")
    gm.act("end", when="now")
    check_every_page(rig, "ended")

    # The other game on the same pages: a Penguin Kaboom mission under way.
    colours = gm.ctx.request.get(rig.base + "/api/admin/status").json()["games"]["kaboom"]["colours"]
    gm.post("/api/admin/match", {"mode": "kaboom", "players": colours[:3], "difficulty": "easy", "mission": 1})
    gm.act("start")
    rig.code = gm.ctx.request.get(rig.base + "/api/join").json()["code"]
    # The tower's phone joined the last match: it asks for the new code, in Spanish.
    check_every_page(rig, "playing", shown={"tower": "ended"})
    expect(rig.pages[("phone", "tower")].locator("#codeerror")).to_have_text(
        "La partida ha cambiado: escanea el nuevo código para unirse.")
    gm.act("abandon")
    check_every_page(rig, "ended")
