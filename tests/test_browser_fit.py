"""Each page at the size of the screen it is used on, measured (issue 23, items 7 to 9): the
board between turns on a 1920x1080 TV, /join on a TV and a phone, /sim on a 1024x768 tablet,
the debrief and the game master's page on a 390x844 phone; the board's sound switch when
the browser will not start audio without a tap; the new-match form's team names after the
language goes back to English.

One service and one browser (Debian's Chromium with its default autoplay policy: audio
waits for a tap) for the module; the tests run in file order, each setting up the match it
needs through the game master's API. "Fits" is measured: element boxes inside the viewport,
nothing below a TV's bottom, font sizes in px.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect, sync_playwright

from browser_helpers import (ARGS, CHROMIUM, MOMENT_WAIT, WAIT, GameMaster, check_fits, expect_or_shoot, screenshot,
                             service)

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TABLET = {"viewport": {"width": 1024, "height": 768}, "has_touch": True}
TV = {"viewport": {"width": 1920, "height": 1080}}
TEAMS = [{"name": "Penguins", "players": ["Ana", "Ben"]}, {"name": "Puffins", "players": ["Cleo", "Dan"]}]
# The tower's card on a phone at least this wide (px): the card drawing's words are sized for it
# (tests/test_fit_words.py, PHONE_CARD_PX).
PHONE_CARD_PX = 370

# Each element matched by the selector: its box, whether it is shown, its text.
BOXES = r"""(sel) => [...document.querySelectorAll(sel)].map((e) => {
  const r = e.getBoundingClientRect();
  return { left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height,
           shown: e.checkVisibility(), text: (e.textContent || '').trim().slice(0, 60) };
})"""
# The page's size against its screen.
SIZE = "() => ({ vw: document.documentElement.clientWidth, vh: window.innerHeight,"\
       " wide: document.documentElement.scrollWidth, tall: document.documentElement.scrollHeight })"


def boxes(page, sel):
    return page.evaluate(BOXES, sel)


def on_screen(page, sel, shots, label, *, at_least=1):
    """Every element of `sel` shown and inside the viewport (at least `at_least` of them)."""
    size = page.evaluate(SIZE)
    found = boxes(page, sel)
    outside = [b for b in found if not b["shown"] or b["left"] < -0.5 or b["top"] < -0.5
               or b["right"] > size["vw"] + 0.5 or b["bottom"] > size["vh"] + 0.5]
    if len(found) < at_least or outside:
        pytest.fail(f"{label}: {len(found)} of {sel}, outside the {size['vw']}x{size['vh']} screen: {outside} "
                    f"(screenshot: {screenshot(page, shots, label)})")


def whole(page, shots, label):
    """Nothing wider or taller than the screen (a TV or a tablet on a stand that nobody scrolls)."""
    size = page.evaluate(SIZE)
    if size["wide"] > size["vw"] or size["tall"] > size["vh"]:
        pytest.fail(f"{label}: the page is {size['wide']}x{size['tall']} px on a {size['vw']}x{size['vh']} screen "
                    f"(screenshot: {screenshot(page, shots, label)})")


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    shots = tmp_path_factory.mktemp("fit")
    with service(tmp_path_factory.mktemp("service")) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)  # the default autoplay policy
        gm = GameMaster(browser.new_context(), base)
        errors: list[str] = []
        contexts = {}

        def page(screen: str, path: str):
            if screen not in contexts:
                contexts[screen] = browser.new_context(storage_state=gm.ctx.storage_state(),
                                                       **{"tv": TV, "tablet": TABLET, "phone": PHONE}[screen])
            pg = contexts[screen].new_page()
            pg.on("pageerror", lambda e: errors.append(f"{path} on the {screen}: {e}"))
            pg.goto(base + path)
            return pg

        yield type("Rig", (), {"gm": gm, "base": base, "shots": shots, "page": staticmethod(page), "p": p,
                               "errors": errors})
        browser.close()
    assert errors == [], errors


def code(rig) -> str:
    return rig.gm.ctx.request.get(rig.base + "/api/join").json()["code"]


def wrong_button(rig, code: str, avoid: str | None = None) -> str:
    """A button the card in play does not ask for (pressed, it is a mistake)."""
    card = rig.gm.ctx.request.get(f"{rig.base}/api/tower?code={code}").json()["card"]
    return next(b for b in ("alarm.red", "alarm.yellow", "beacon.red", "radio.1", "radio.2")
                if b != avoid and b not in card.get("press", []) and b.split(".")[0] != card.get("section"))


def two_mistakes(rig, code: str) -> None:
    first = wrong_button(rig, code)
    rig.gm.press(first)
    rig.gm.press(wrong_button(rig, code, avoid=first))


def test_a_walk_up_team_is_asked_for_its_tower_only_between_turns(rig):
    """START with no match: the team picks its tower while nothing runs, not while its timer
    does; between turns the next team is named once on the whole board."""
    board = rig.page("tv", "/board")
    expect(board.locator(".board")).to_have_attribute("data-phase", "idle", timeout=WAIT)
    joined = code(rig)
    rig.gm.press("cockpit.start")
    expect(board.locator("#team")).to_have_text("Turn: Blue team", timeout=WAIT)
    expect(board.locator(".board")).to_have_attribute("data-phase", "in_turn")
    expect(board.locator("#roles")).to_have_text("")  # was "Blue team: pick your tower..." under the running timer
    two_mistakes(rig, joined)
    expect(board.locator(".board")).to_have_attribute("data-moment", "", timeout=MOMENT_WAIT)
    expect(board.locator("#team")).to_have_text("Next: Red team", timeout=WAIT)
    expect(board.locator("#roles")).to_have_text(
        "Pick your tower: one player reads the card on the phone, the others are the crew.")
    text = board.locator("body").inner_text()
    assert text.count("Red team") == 2, text  # "Next: Red team", and its row of the scores
    assert text.count("Next:") == 1, text
    check_fits(board, rig.shots, "walk-up board between turns", whole=True)
    rig.gm.act("abandon")


def test_between_turns_the_tv_board_holds_five_cards_and_the_turns_counts(rig):
    board = rig.page("tv", "/board")
    made = rig.gm.post("/api/admin/match", {"teams": TEAMS, "seed": 61, "turn_seconds": 300})
    tower = rig.page("phone", f"/tower?code={made['code']}")
    expect(board.locator("#team")).to_have_text("Next: Penguins", timeout=WAIT)
    rig.gm.act("start_turn")
    # The tower's card as wide as the card drawing's words are sized for.
    expect(tower.locator("#card svg")).to_be_visible(timeout=WAIT)
    assert tower.locator("#card svg").bounding_box()["width"] >= PHONE_CARD_PX
    for _ in range(5):  # five cards: a rejected challenge counts the card in play
        rig.gm.act("challenge", team="Puffins", card="current")
        rig.gm.act("rule", upheld=False)
    expect_or_shoot(board, rig.shots, "board after five cards", lambda: (
        expect(board.locator(".board")).to_have_attribute("data-moment", "", timeout=MOMENT_WAIT),
        expect(board.locator("#donecards figcaption")).to_have_text(["1", "2", "3", "4", "5"], timeout=WAIT)))
    label = "board between turns, five cards"
    whole(board, rig.shots, label)
    on_screen(board, "#donecards .donecard", rig.shots, label, at_least=5)
    assert len({round(b["top"]) for b in boxes(board, "#donecards .donecard")}) == 1  # one row: none wrapped
    on_screen(board, "#done, #mistakes, #counters, #pool", rig.shots, label, at_least=4)
    # The next team named once; the crew told where each token goes; the counters in words.
    text = board.locator("body").inner_text()
    assert text.count("Next:") == 1 and "Next: Puffins" in text, text
    expect(board.locator("#banner")).to_have_text(
        "Crew: put the tokens back (the switches down, the big lever up, the clicks off, the sliders at 0, "
        "the round levers at 1, the rotating knob at 1), then press START")
    expect(board.locator("#pool")).to_have_text("0 held · 4 in the pool")
    # The turns' rounds agree: round 1's cards under a header that says round 1.
    expect(board.locator("#round")).to_have_text("Round 1")
    expect(board.locator("#donetitle")).to_contain_text("round 1")

    # Puffins: a card, then a mistake (the stuck finger, said with what it asks), then the
    # second: round 1 is over, its last cards shown under a header that says so.
    rig.gm.act("start_turn")
    expect(board.locator(".board")).to_have_attribute("data-phase", "in_turn", timeout=WAIT)
    rig.gm.act("challenge", team="Penguins", card="current")
    rig.gm.act("rule", upheld=False)
    first = wrong_button(rig, made["code"])
    rig.gm.press(first)
    stuck = re.compile(r"^Stuck finger: keep a finger on the .+ until the turn ends$")
    expect(board.locator("#stuck")).to_have_text(stuck, timeout=WAIT)
    expect(tower.locator("#banner")).to_have_text(stuck, timeout=WAIT)
    on_screen(board, "#stuck", rig.shots, "board with a stuck finger")
    whole(board, rig.shots, "board with a stuck finger")
    check_fits(tower, rig.shots, "tower with a stuck finger")
    rig.gm.press(wrong_button(rig, made["code"], avoid=first))
    expect(board.locator(".board")).to_have_attribute("data-moment", "", timeout=MOMENT_WAIT)
    expect(board.locator("#donetitle")).to_have_text("Puffins' completed cards, round 1: check them", timeout=WAIT)
    expect(board.locator("#round")).to_have_text("Round 1 is over · round 2 next")  # it said "Round 2"
    whole(board, rig.shots, "board between rounds")
    rig.gm.act("end", when="now")


def test_the_debrief_fits_a_phone_with_readable_charts(rig):
    """The match just played on a 390 px phone: every table inside the page's width, every
    chart's words at 12 px or more."""
    debrief = rig.page("phone", "/debrief")
    expect(debrief.locator("#app")).to_be_visible(timeout=WAIT)
    expect(debrief.locator("#table-turns tbody tr")).to_have_count(2, timeout=WAIT)
    label = "debrief on a phone"
    check_fits(debrief, rig.shots, label)
    size = debrief.evaluate(SIZE)
    wide = [b for b in boxes(debrief, "table.dtable") if b["shown"] and b["right"] > size["vw"] + 0.5]
    assert not wide, f"{label}: tables beyond the {size['vw']} px page: {wide} (screenshot: {screenshot(debrief, rig.shots, label)})"
    # Each chart word's size as drawn: its font size in the chart's units times the chart's scale.
    sizes = debrief.evaluate(r"""() => [...document.querySelectorAll('svg.chart')].flatMap((s) => {
      const scale = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
      return [...s.querySelectorAll('text')].map((t) => [s.dataset.plot, t.textContent,
        parseFloat(getComputedStyle(t).fontSize) * scale]);
    })""")
    assert {plot for plot, _, _ in sizes} >= {"points", "seconds", "kind-mistakes", "controls"}
    small = [(plot, text, round(px, 1)) for plot, text, px in sizes if px < 12]
    assert not small, f"{label}: chart words under 12 px: {small[:8]} (screenshot: {screenshot(debrief, rig.shots, label)})"


@pytest.mark.parametrize("screen", ["tv", "phone"])
def test_join_shows_the_whole_code_on_a_tv_and_a_phone(rig, screen):
    join = rig.page(screen, "/join")
    expect(join.locator("#code")).to_have_text(code(rig), timeout=WAIT)
    expect(join.locator("#qr svg")).to_be_visible()
    label = f"/join on the {screen}"
    on_screen(join, "#code", rig.shots, label)
    check_fits(join, rig.shots, label)
    if screen == "tv":
        whole(join, rig.shots, label)  # the QR code and the code side by side, all of it on the screen
        on_screen(join, "#qr", rig.shots, label)
        assert join.locator("#code").bounding_box()["height"] >= 60  # read across the room


def test_the_simulator_on_a_tablet_shows_its_bottom_row(rig):
    """Every module and control of the panel on a 1024x768 tablet, for Airlines and for a
    Kaboom mission (its expansion modules too); a drag lands where the pointer is."""
    rig.gm.post("/api/admin/match", {"teams": TEAMS, "seed": 5, "turn_seconds": 300})
    sim = rig.page("tablet", "/sim")
    expect(sim.locator(".sim")).to_have_attribute("data-phase", "between_turns", timeout=WAIT)
    for game in ("airlines", "kaboom"):
        label = f"/sim on a tablet ({game})"
        on_screen(sim, ".sim .module", rig.shots, label, at_least=9)
        controls = len(rig.gm.ctx.request.get(rig.base + "/api/layout").json()["controls"])
        expect(sim.locator(".sim .ctl")).to_have_count(controls, timeout=WAIT)  # the match's panel, drawn
        whole(sim, rig.shots, label)
        on_screen(sim, ".sim .ctl", rig.shots, label, at_least=controls)
        check_fits(sim, rig.shots, label)
        # The red slider dragged to its top: the service has it at 4 (the drawn panel may be scaled).
        slider = sim.locator('.ctl[data-control="slider.red"] svg')
        box = slider.bounding_box()
        sim.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.85)
        sim.mouse.down()
        sim.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.5, steps=4)
        sim.mouse.move(box["x"] + box["width"] / 2, box["y"] + 2, steps=4)
        sim.mouse.up()
        expect(sim.locator('.ctl[data-control="slider.red"] .pos')).to_have_text("4", timeout=WAIT)
        assert rig.gm.state()["positions"]["slider.red"] == "4"
        if game == "airlines":
            rig.gm.act("abandon")
            colours = rig.gm.ctx.request.get(rig.base + "/api/admin/status").json()["games"]["kaboom"]["colours"]
            rig.gm.post("/api/admin/match", {"mode": "kaboom", "players": colours[:4], "difficulty": "easy", "mission": 1})
            expect(sim.locator("#title")).to_have_text("Penguin Kaboom", timeout=WAIT)
    rig.gm.act("abandon")


def switch_state(page) -> dict[str, str]:
    """The board's sound switch's attributes and text, read through the DevTools protocol's DOM
    domain: Playwright's own reads (locators, evaluate) run as a user gesture, which would
    let the page's sound start."""
    cdp = page.context.new_cdp_session(page)
    try:
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": "#sound"})["nodeId"]
        if not node:
            return {}
        flat = cdp.send("DOM.getAttributes", {"nodeId": node})["attributes"]
        html = cdp.send("DOM.getOuterHTML", {"nodeId": node})["outerHTML"]
        return {**dict(zip(flat[::2], flat[1::2])), "text": re.sub(r"<[^>]+>", "", html)}
    finally:
        cdp.detach()


def test_the_sound_switch_waits_for_a_tap_when_the_browser_will_not_start_audio(rig):
    """Chromium's default policy: no audio before a gesture on the page. The switch says so
    (never "Sound: on" while nothing can be heard), marks a cue that went unheard, and a tap
    on the board starts the sound; with audio allowed it plays at once."""
    from waiting import wait_until

    refusing = rig.p.chromium.launch(executable_path=CHROMIUM, args=ARGS)  # nothing done in it yet
    try:
        board = refusing.new_page(**TV)
        board.goto(rig.base + "/board")
        shown = wait_until(lambda: (st := switch_state(board)).get("data-sound") and st, what="the switch worded")
        assert (shown["data-sound"], shown["text"]) == ("blocked", "Sound: tap to start"), shown
        rig.gm.post("/api/admin/match", {"teams": TEAMS, "seed": 9, "turn_seconds": 300})
        rig.gm.act("start_turn")  # its cue, unheard: the switch says so
        shown = wait_until(lambda: (st := switch_state(board)).get("data-missed") == "1" and st, what="a cue missed")
        assert shown["text"] == "Sound: tap to start" and "missed" in shown["class"], shown
        board.mouse.click(300, 600)  # a tap anywhere on the board
        switch = board.locator("#sound")
        expect(switch).to_have_text("Sound: on", timeout=WAIT)
        expect(switch).not_to_have_class(re.compile(r"\bmissed\b"))
        cue = board.evaluate("() => window.boardCues.find((c) => c.name === 'turn_start')")
        assert cue == {"name": "turn_start", "audible": False, "blocked": True}
        rig.gm.act("challenge", team="Puffins", card="current")  # a cue after the tap: heard
        board.wait_for_function("() => window.boardCues.some((c) => c.name !== 'turn_start' && c.audible)",
                                timeout=WAIT)
        rig.gm.act("rule", upheld=False)
        rig.gm.act("abandon")
    finally:
        refusing.close()

    allowed = rig.p.chromium.launch(executable_path=CHROMIUM, args=ARGS + ["--autoplay-policy=no-user-gesture-required"])
    try:
        board = allowed.new_page(**TV)
        board.goto(rig.base + "/board")
        shown = wait_until(lambda: (st := switch_state(board)).get("data-sound") and st, what="the switch worded")
        assert (shown["data-sound"], shown["text"]) == ("on", "Sound: on"), shown
    finally:
        allowed.close()


def test_back_in_english_the_new_match_form_drops_the_spanish_team_names(rig):
    """The default team names follow the pages' language; a name the game master typed stays."""
    admin = rig.page("phone", "/admin")
    expect(admin.locator("#app")).to_be_visible(timeout=WAIT)
    names = admin.locator("#teams .tname")

    def named(*values):
        expect(names).to_have_count(len(values), timeout=WAIT)
        for i, value in enumerate(values):
            expect(names.nth(i)).to_have_value(value, timeout=WAIT)

    named("Blue team", "Red team")
    try:
        admin.select_option("#language", "es")
        expect(admin.locator("html")).to_have_attribute("lang", "es", timeout=WAIT)
        named("Equipo azul", "Equipo rojo")
        names.nth(1).fill("Gaviotas")
        check_fits(admin, rig.shots, "/admin in Spanish on a phone")
    finally:
        admin.select_option("#language", "en")
    expect(admin.locator("html")).to_have_attribute("lang", "en", timeout=WAIT)
    named("Blue team", "Gaviotas")
