"""Penguin Kaboom in a real headless Chromium through the real service's pages: the game
master sets a mission up on /admin, the players play it on /sim, the board on the TV shows
the clocks, the alert and the result. One mission to success, one to failure. Every wait
is for what a page shows, never for wall-clock time."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from panel.games.kaboom.mapping_file import load_mapping
from test_browser import WAIT, admin_login, browser, pages, server, sim_press, sim_set  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser

MAPPING = load_mapping()
LOWERED = next(p for p in MAPPING.cover_positions if p != MAPPING.cover_open)


def new_mission(admin: Page, colours: list[str], custom: dict[str, object], names: dict[str, str] = {}) -> None:
    admin.select_option("#game", "kaboom")
    expect(admin.locator(".kaboom-setup")).to_be_visible(timeout=WAIT)
    for box in admin.locator("#kpenguins .kpenguin").all():
        colour = box.get_attribute("data-colour")
        box.locator(".kplays").set_checked(colour in colours)
        box.locator(".kname").fill(names.get(colour, ""))
    admin.select_option("#kmission", "custom")
    for name, value in custom.items():
        field = admin.locator(f"#kc_{name}")
        if isinstance(value, bool):
            field.select_option("true" if value else "false")
        else:
            field.fill(str(value))
    admin.on("dialog", lambda d: d.accept())  # "abandon the match in play?" when one is
    made = admin.locator("#log li", has_text="New match")
    before = made.count()
    admin.click("#setup button[type=submit]")
    expect(made).to_have_count(before + 1, timeout=WAIT)


def hold(sim: Page, colour: str, key: str) -> None:
    """A finger kept on a player's button: a key held down on it (never let go)."""
    btn = sim.locator(f'.ctl.btn[data-control="{MAPPING.players[colour]}"]')
    btn.focus()
    sim.keyboard.down(key)
    expect(btn).to_have_class(re.compile(r"\bpressed\b"))


def test_a_short_kaboom_mission_played_to_success(pages):
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    new_mission(admin, ["red", "blue"], {"time_per_player": 120, "alert_seconds": 600, "recharge_seconds": 20,
                                          "recharge_above_start": False}, {"red": "Alis"})
    board = pages.open(pages.laptop, "/board")
    sim = pages.open(pages.laptop, "/sim")
    expect(board.locator("h1")).to_have_text("Penguin Kaboom", timeout=WAIT)
    expect(board.locator(".kplayer")).to_have_count(2)
    expect(board.locator(".kplayer", has_text="Alis")).to_be_visible()
    expect(sim.locator(f'.ctl[data-control="{MAPPING.players["red"]}"] .kcap')).to_have_text("Alis", timeout=WAIT)

    sim_press(sim, MAPPING.start)
    expect(board.locator(".kplayer.running")).to_have_count(1, timeout=WAIT)
    first = board.locator(".kplayer.running").get_attribute("data-colour")
    other = "blue" if first == "red" else "red"
    # The running clock, large, in its player's colour; the pass hands the turn on.
    expect(board.locator("#kactive")).to_have_class(re.compile(rf"\bpenguin-{first}\b"))
    sim_press(sim, MAPPING.players[first])
    expect(board.locator(f'.kplayer.running[data-colour="{other}"]')).to_be_visible(timeout=WAIT)
    expect(board.locator("#kactive")).to_have_class(re.compile(rf"\bpenguin-{other}\b"))
    # The mission button does nothing while its protection is on (both its press and its
    # release answered by the service, so in the log, before the lever moves) ...
    sent = lambda value: lambda r: r.url.endswith("/api/sim/input") and r.request.post_data_json == {
        "control": MAPPING.mission, "value": value}
    with sim.expect_response(sent(True)), sim.expect_response(sent(False)):
        sim_press(sim, MAPPING.mission)
    expect(board.locator(f'.kplayer.running[data-colour="{other}"]')).to_be_visible()
    expect(board.locator("#kbanner")).to_be_hidden()
    # ... and closes the mission once the lever is pulled.
    sim_set(sim, MAPPING.cover, MAPPING.cover_open)
    sim_press(sim, MAPPING.mission)
    expect(board.locator("#kbanner")).to_contain_text("finger on your colour", timeout=WAIT)
    hold(sim, "red", "Space")
    expect(board.locator('.kplayer[data-colour="red"] .kpfinger')).to_contain_text("✓", timeout=WAIT)
    expect(board.locator("#result")).to_be_hidden()
    hold(sim, "blue", "Enter")
    expect(board.locator("#resulttitle")).to_have_text("Mission accomplished!", timeout=WAIT)
    expect(admin.locator("#phase")).to_have_text("Mission accomplished!", timeout=WAIT)
    sim.keyboard.up("Enter")
    sim.keyboard.up("Space")
    sim_set(sim, MAPPING.cover, LOWERED)

    # The debrief tells the mission: a row per penguin, the pass counted.
    debrief = pages.open(pages.laptop, "/debrief")
    expect(debrief.locator("#kplayersbox")).to_be_visible(timeout=WAIT)
    expect(debrief.locator("#table-players tbody tr")).to_have_count(2)
    expect(debrief.locator("#outcome")).to_have_text("Mission accomplished!")
    expect(debrief.locator('#fig-kclosest rect.bar')).to_have_count(2)


def test_a_short_kaboom_mission_lost_on_the_last_alert_card(pages):
    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    new_mission(admin, ["yellow"], {"time_per_player": 300, "alert_seconds": 5, "alerts": 2, "alerts_face_up": 1})
    board = pages.open(pages.laptop, "/board")
    sim = pages.open(pages.laptop, "/sim")
    expect(board.locator(".kcard")).to_have_count(2, timeout=WAIT)
    expect(board.locator(".kcard.up")).to_have_count(1)
    sim_press(sim, MAPPING.start)
    # The alert: the board says so until the players report the card flipped.
    expect(board.locator("#kbanner")).to_contain_text("ALERT", timeout=WAIT)
    expect(board.locator("#kbanner")).to_have_class(re.compile(r"\balert\b"))
    sim_press(sim, MAPPING.alert_flipped)
    expect(board.locator("#resulttitle")).to_have_text("Mission failed", timeout=WAIT)
    expect(board.locator("#resulttext")).to_have_text("The last alert card is face up.")
    expect(board.locator(".kcard.up")).to_have_count(2)


def test_the_game_masters_kaboom_buttons_are_the_engines_answers(pages):
    """/admin during a mission: a button is enabled exactly when the engine's actions list
    it, from the set-up to the end, moved along with the page's own buttons."""
    from test_browser import READ_BUTTONS, expect_buttons_follow_the_state

    admin = pages.open(pages.laptop, "/admin")
    admin_login(admin)
    kaboom_buttons = {b["action"] for b in admin.evaluate(READ_BUTTONS) if b["kaboom"]}
    assert kaboom_buttons == {"start", "recharge", "alert_flipped", "alert_deactivated"}
    new_mission(admin, ["green", "white"], {"time_per_player": 600, "alert_seconds": 600})
    state = expect_buttons_follow_the_state(admin, pages.base, "setup")
    assert "start" in state["actions"] and "recharge" not in state["actions"]
    admin.click("#kstart")
    expect(admin.locator("#phase")).to_contain_text("playing", timeout=WAIT)
    state = expect_buttons_follow_the_state(admin, pages.base, "playing")
    assert {"recharge", "pause", "abandon"} <= set(state["actions"]) and "alert_flipped" not in state["actions"]
    admin.click("#krecharge")
    expect(admin.locator("#log li", has_text="Recharge")).to_have_count(1, timeout=WAIT)
    admin.click("#pause")
    expect(admin.locator("#phase")).to_contain_text("paused", timeout=WAIT)
    state = expect_buttons_follow_the_state(admin, pages.base, "paused")
    assert "resume" in state["actions"] and "recharge" not in state["actions"]
    admin.click("#resume")
    expect(admin.locator("#phase")).to_contain_text("playing", timeout=WAIT)
    expect_buttons_follow_the_state(admin, pages.base, "playing")
    admin.on("dialog", lambda d: d.accept())
    admin.click("#abandon")
    expect(admin.locator("#phase")).to_have_text("Mission abandoned", timeout=WAIT)
    state = expect_buttons_follow_the_state(admin, pages.base, "finished")
    assert set(state["actions"]) == {"new_match"}
