"""A whole Penguin Ultimatum game scored in a real headless Chromium through the real
service's pages, in English and in Spanish: the scorer seats the players and enters the
game on the game master's page on a phone (390x844), the board on the TV (1920x1080) shows
the scores, the entertainer cards and the majorities, and at the end each player's
breakdown line by line; the debrief keeps the whole sheet. A slip is corrected and a
double entry undone on the phone, as a table would. Every wait is for what a page shows."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect, sync_playwright

from browser_helpers import ARGS, CHROMIUM, READ, WAIT, GameMaster, check_fits, leftovers, service
from test_browser import admin_login

pytestmark = pytest.mark.browser

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
TV = {"viewport": {"width": 1920, "height": 1080}}
PLAYERS = [("red", "Lea", "dance"), ("green", "Max", "music"), ("blue", "Ana", "juggling")]
# What the board says at the end, in each language (the rulebook's example, Lea's line).
LEA = {"en": "Lea: 41 + 4 (2 dancers) + 5 (most sheep) + 3 (seals, tied) = 53",
       "es": "Lea: 41 + 4 (2 bailarines) + 5 (más ovejas) + 3 (focas, empate) = 53"}
WINS = {"en": "Max wins!", "es": "¡Gana Max!"}
SCORED = {"en": "scored on the game master's page", "es": "se anota en la página del director de juego"}


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    with service(tmp_path_factory.mktemp("service")) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield type("Rig", (), {"browser": browser, "base": base, "shots": tmp_path_factory.mktemp("ultimatum")})
        browser.close()


def performance(phone: Page, colour: str, form: str, points: dict[str, int]) -> None:
    """One performance entered, waited for on the phone's sheet."""
    before = phone.locator("#uentries li").count()
    phone.click('.utab[data-tab="performance"]')
    phone.locator(f'#uperf .uradio[data-value="{colour}"]').click()
    phone.locator(f'#uperf .uradio[data-value="{form}"]').click()
    for player, n in points.items():
        phone.fill(f'#upoints input[data-player="{player}"]', str(n))
    phone.click("#uperfgo")
    entries(phone, before + 1)


def entries(phone: Page, n: int) -> None:
    expect(phone.locator("#uentries li")).to_have_count(n, timeout=WAIT)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_a_whole_ultimatum_game_on_the_phone_and_the_tv(rig, lang):
    errors: list[str] = []
    gm = GameMaster(rig.browser.new_context(), rig.base)
    gm.post("/api/admin/settings", {"language": lang})
    phone_ctx = rig.browser.new_context(**PHONE)
    tv_ctx = rig.browser.new_context(**TV)
    pages = []

    def open_page(ctx, path):
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(f"{path}: {e}"))
        page.on("dialog", lambda d: d.accept())  # "end the game?", "abandon the match in play?"
        page.goto(rig.base + path)
        pages.append(page)
        return page

    phone = open_page(phone_ctx, "/admin")
    admin_login(phone)
    board = open_page(tv_ctx, "/board")

    # The scorer seats three players on the New match form.
    phone.select_option("#game", "ultimatum")
    for colour, name, form in PLAYERS:
        row = phone.locator(f'.useatrow[data-colour="{colour}"]')
        row.locator(".uplaying").check()
        row.locator(".uname").fill(name)
        row.locator(".uform").select_option(form)
    phone.click("#setupsubmit")
    expect(phone.locator("#usheet")).to_be_visible(timeout=WAIT)
    expect(board.locator(".uplayer")).to_have_count(3, timeout=WAIT)
    expect(board.locator(".uplayer .upscore")).to_have_text(["10", "10", "10"])
    entries(phone, 3)
    sim = open_page(tv_ctx, "/sim")  # the simulated panel: nothing of it is the game's, and it says where it is scored
    expect(sim.locator("#phase")).to_contain_text(SCORED[lang], timeout=WAIT)

    # The performances, as the table adds up each player's guests.
    performance(phone, "green", "dance", {"red": 3, "green": 8})  # Lea has the fewest non-zero: the sheep dancer
    expect(board.locator('.uplayer[data-player="red"] .ucard[data-card="green-dance"]')).to_be_visible(timeout=WAIT)
    expect(board.locator('.umaj[data-colour="green"] .umajwho')).to_contain_text("Lea")
    performance(phone, "red", "dance", {"red": 2, "green": 5, "blue": 7})
    performance(phone, "red", "music", {"red": 9, "green": 4, "blue": 6})
    performance(phone, "red", "juggling", {"red": 10, "green": 6, "blue": 15})  # a slip: Ana had 5, not 15
    entries(phone, 7)
    expect(board.locator('.uplayer[data-player="green"] .ucard[data-card="red-juggling"]')).to_be_visible(timeout=WAIT)
    # ... corrected on the phone: the card goes to Ana, every score after it recomputed.
    phone.locator('#uentries li[data-entry="7"] .ufix').click()
    expect(phone.locator("#ucorrecting")).to_be_visible()
    phone.fill('#upoints input[data-player="blue"]', "5")
    phone.click("#uperfgo")
    expect(phone.locator("#ucorrecting")).to_be_hidden(timeout=WAIT)
    expect(board.locator('.uplayer[data-player="blue"] .ucard[data-card="red-juggling"]')).to_be_visible(timeout=WAIT)
    expect(board.locator('.uplayer[data-player="blue"] .upscore')).to_have_text("28")
    performance(phone, "blue", "acrobatics", {"red": 9, "green": 6, "blue": 6})  # a tie for the fewest: out
    performance(phone, "brown", "music", {"green": 7})
    expect(board.locator("#upile")).to_contain_text("10", timeout=WAIT)
    # The same entertainer cannot perform twice: its form is crossed out once its colour is chosen.
    phone.locator('#uperf .uradio[data-value="brown"]').click()
    expect(phone.locator('#uperf input[name="uform"][value="music"]')).to_be_disabled()

    # A kinship penalty entered twice by mistake: the second undone.
    for n in (10, 11):
        phone.click('.utab[data-tab="penalty"]')
        phone.locator('#upenwho .uradio[data-value="red"]').click()
        phone.fill("#upenpoints", "2")
        phone.click("#upengo")
        entries(phone, n)
    expect(board.locator('.uplayer[data-player="red"] .upscore')).to_have_text("39", timeout=WAIT)
    phone.click("#uundo")
    expect(board.locator('.uplayer[data-player="red"] .upscore')).to_have_text("41", timeout=WAIT)
    for page, label, whole in ((phone, "phone while scoring", False), (board, "tv while scoring", True)):
        check_fits(page, rig.shots, f"{label} {lang}", whole=whole)

    # The end: the breakdown line by line on the TV, the winner, the sheet kept in the debrief.
    phone.click("#uend")
    expect(board.locator('.uplayer[data-player="red"] .upline')).to_have_text(LEA[lang], timeout=WAIT)
    expect(board.locator("#uwinner")).to_contain_text(WINS[lang])
    expect(phone.locator("#ulines li")).to_have_count(3, timeout=WAIT)
    expect(phone.locator("#ulines")).to_contain_text(LEA[lang])
    for page, label, whole in ((phone, "phone at the end", False), (board, "tv at the end", True)):
        check_fits(page, rig.shots, f"{label} {lang}", whole=whole)
    debrief = open_page(phone_ctx, "/debrief")
    expect(debrief.locator("#table-standings tbody tr")).to_have_count(3, timeout=WAIT)
    expect(debrief.locator("#table-entries tbody tr")).to_have_count(11)
    expect(debrief.locator("#ulines")).to_contain_text(LEA[lang])
    if lang == "es":  # nothing left in English on what the players and the scorer read
        names = [name for _c, name, _f in PLAYERS]
        for page in (phone, board, debrief):
            found = leftovers(page.evaluate(READ), names)
            assert found == {}, f"{page.url}: English left: {found}"
    for ctx in (phone_ctx, tv_ctx, gm.ctx):
        ctx.close()
    assert errors == [], errors


def test_the_tv_and_the_phone_fit_four_players_and_every_entertainer_card(rig):
    """The fullest board: four players with long names, all sixteen entertainer cards given
    out (one player holding seven), every breakdown line at the end."""
    gm = GameMaster(rig.browser.new_context(), rig.base)
    gm.post("/api/admin/settings", {"language": "es"})  # the longer words
    players = [("red", "Bartholomew-Alexander", "dance"), ("green", "Maximiliana", "music"),
               ("blue", "Anastasia", "juggling"), ("yellow", "Tomasz", "acrobatics")]
    gm.post("/api/admin/match", {"game": "ultimatum", "players": [
        {"player": c, "name": n, "form": f} for c, n, f in players]})
    owners = ["red"] * 7 + ["green"] * 4 + ["blue"] * 3 + ["yellow"] * 2
    cards = [(c, f) for c in ("green", "brown", "red", "blue") for f in ("juggling", "acrobatics", "dance", "music")]
    for (colour, form), owner in zip(cards, owners):
        gm.act("performance", colour=colour, form=form, points={owner: 1, **{c: 2 for c, _n, _f in players if c != owner}})
    phone = rig.browser.new_context(**PHONE).new_page()
    phone.on("dialog", lambda d: d.accept())
    phone.goto(rig.base + "/admin")
    admin_login(phone)
    board = rig.browser.new_context(**TV).new_page()
    board.goto(rig.base + "/board")
    expect(board.locator(".uplayer .ucard")).to_have_count(16, timeout=WAIT)
    check_fits(board, rig.shots, "tv with sixteen cards", whole=True)
    check_fits(phone, rig.shots, "phone with sixteen cards")
    gm.act("end")
    expect(board.locator(".uplayer .upline")).to_have_count(4, timeout=WAIT)
    check_fits(board, rig.shots, "tv at the end with sixteen cards", whole=True)
    gm.post("/api/admin/settings", {"language": "en"})
