"""A venue, as a café sets it up: a real Mosquitto with the generated ACL, two cockpits
started with `penguin-panel play --sim` and an `[mqtt]` table, and `penguin-panel venue`.
Debian's Chromium shows the venue board (a TV) and the venue's admin page (a phone);
Home Assistant's discovery describes both cockpits. Every wait is for what a page shows
or a message arrives, never for time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from browser_helpers import READ, WIDER, leftovers
from mosquitto import Mosquitto, Observer
from panel.mqtt import protocol as p
from panel.mqtt.broker import HA_USER

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
PIN = "97531"
WAIT = 20_000  # ms: the longest a page may take to show what it should
NAMES = {"c1": "By the window", "c2": "At the bar"}


def start(args: list[str], pattern: str, env: dict[str, str] | None = None) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "panel", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env={**os.environ, **(env or {})})
    seen = []
    give_up = time.monotonic() + 60  # a guard against a hung start, not an assertion on speed
    while time.monotonic() < give_up:
        line = proc.stdout.readline()
        if not line:
            break
        seen.append(line)
        m = re.search(pattern, line)
        if m:
            return proc, m.group(1)
    proc.kill()
    pytest.fail(f"{args[0]} did not start:\n" + "".join(seen))


@contextlib.contextmanager
def running_venue(tmp: Path, names: dict[str, str], env: dict[str, str] | None = None):
    """A broker, a cockpit for each name, and the venue (its processes given `env`)."""
    procs: list[subprocess.Popen] = []
    with Mosquitto(tmp / "broker", cockpits=list(names)) as broker, contextlib.ExitStack() as stack:
        def stop(proc):
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
            proc.stdout.close()

        cockpits = {}
        for cid, name in names.items():
            settings = tmp / f"{cid}.toml"
            settings.write_text(f'[service]\npin = "2468"\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
                                f'username = "{cid}"\npassword = "{broker.passwords[cid]}"\ncockpit_id = "{cid}"\n'
                                f'name = "{name}"\n')
            proc, base = start(["play", "--sim", "--port", "0", "--db", str(tmp / f"{cid}.db"), "--settings",
                                str(settings)], r"serving on (http://127\.0\.0\.1:\d+)/")
            stack.callback(stop, proc)
            procs.append(proc)
            cockpits[cid] = base
        settings = tmp / "venue.toml"
        settings.write_text(f'[venue]\npin = "{PIN}"\nname = "Penguin Café"\n[mqtt]\nhost = "127.0.0.1"\n'
                            f'port = {broker.port}\nusername = "venue"\npassword = "{broker.passwords["venue"]}"\n')
        proc, base = start(["venue", "--host", "127.0.0.1", "--port", "0", "--db", str(tmp / "venue.db"),
                            "--settings", str(settings)], r" (http://127\.0\.0\.1:\d+)/  \(", env)  # in env's language
        stack.callback(stop, proc)
        yield type("Venue", (), {"base": base, "cockpits": cockpits, "broker": broker})


@pytest.fixture(scope="module")
def venue(tmp_path_factory):
    with running_venue(tmp_path_factory.mktemp("venue"), NAMES) as v:
        yield v


def press_start(cockpit_base: str) -> None:
    for value in (True, False):
        req = urllib.request.Request(cockpit_base + "/api/sim/input",
                                     data=json.dumps({"control": "cockpit.start", "value": value}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=20) as r:
            assert r.status == 200


@pytest.mark.browser
def test_the_venue_board_and_admin_in_a_real_browser(venue):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        tv = browser.new_context(viewport={"width": 1920, "height": 1080})
        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        errors: list[str] = []
        board = tv.new_page()
        board.on("pageerror", lambda e: errors.append(f"board: {e}"))
        board.goto(venue.base + "/?period=all")
        expect(board.locator("#title")).to_have_text("Penguin Café", timeout=WAIT)
        tiles = board.locator(".cockpit")
        expect(tiles).to_have_count(2, timeout=WAIT)
        window = board.locator('.cockpit[data-cockpit="c1"]')
        bar = board.locator('.cockpit[data-cockpit="c2"]')
        expect(window.locator(".name")).to_have_text("By the window")
        expect(bar.locator(".name")).to_have_text("At the bar")
        for tile in (window, bar):
            expect(tile.locator(".badge")).to_have_text("online", timeout=WAIT)
            expect(tile.locator(".what")).to_have_text("Waiting for players: press START", timeout=WAIT)
        expect(board.locator("#lbtitle")).to_have_text("Leaderboard: All time")
        expect(board.locator("#lbmatches")).to_have_text("No match played yet")

        press_start(venue.cockpits["c1"])  # a walk-up match at the window
        expect(window.locator(".what")).to_have_text("Turn: Blue team", timeout=WAIT)
        expect(window.locator(".secs")).to_have_text(re.compile(r"^\d+$"), timeout=WAIT)
        expect(window.locator('tr[data-team="Blue team"]')).to_have_class("active")

        admin = phone.new_page()
        admin.on("pageerror", lambda e: errors.append(f"admin: {e}"))
        admin.goto(venue.base + "/admin")
        expect(admin.locator("#login")).to_be_visible(timeout=WAIT)
        admin.fill("#pin", PIN)
        admin.click("#login button[type=submit]")
        expect(admin.locator("#app")).to_be_visible(timeout=WAIT)
        at_bar = admin.locator('section.cockpit[data-cockpit="c2"]')
        for action in ("pause", "resume", "end"):  # nothing to pause, resume or end: as the cockpit says
            expect(at_bar.locator(f'button[data-action="{action}"]')).to_be_disabled(timeout=WAIT)
        at_bar.locator('button[data-action="start"]').click()
        expect(at_bar.locator(".reply")).to_have_text("Start: done", timeout=WAIT)
        expect(bar.locator(".what")).to_have_text("Turn: Blue team", timeout=WAIT)
        expect(at_bar.locator('button[data-action="start"]')).to_be_disabled(timeout=WAIT)  # a turn runs
        expect(at_bar.locator('button[data-action="pause"]')).to_be_enabled(timeout=WAIT)
        # "End the match" asks first, with /admin's two ends (rule 25); "Keep playing" changes nothing.
        by_window = admin.locator('section.cockpit[data-cockpit="c1"]')
        by_window.locator('button[data-action="end"]').click()
        dialog = admin.locator("#enddialog")
        expect(dialog).to_be_visible(timeout=WAIT)
        expect(admin.locator("#endwhere")).to_have_text("End the match at By the window?")
        expect(admin.locator("#end_round")).to_have_text("Finish the round, then end (the turn in progress counts)")
        expect(admin.locator("#end_now")).to_have_text("End now (the turn in progress is not scored)")
        admin.click("#end_cancel")
        expect(dialog).to_be_hidden()
        expect(window.locator(".what")).to_have_text("Turn: Blue team")
        # At the bar: finish the round, then end; the cockpit says the match ends with the round.
        at_bar.locator('button[data-action="end"]').click()
        admin.click("#end_round")
        expect(at_bar.locator(".reply")).to_have_text("End the match: done", timeout=WAIT)
        with urllib.request.urlopen(venue.cockpits["c2"] + "/api/state", timeout=20) as r:
            assert json.load(r)["ending"] is True
        # By the window: end now. No turn was scored: no match, no win for anybody (rule 25).
        by_window.locator('button[data-action="end"]').click()
        admin.click("#end_now")
        expect(by_window.locator(".reply")).to_have_text("End the match: done", timeout=WAIT)
        expect(window.locator(".what")).to_have_text("Waiting for players: press START", timeout=WAIT)
        expect(board.locator("#lbmatches")).to_have_text("No match played yet")
        expect(board.locator("#teams")).to_have_text("No team match yet")
        assert "won" not in board.locator("#ticker").inner_text()
        # Fits the TV: nothing is cut off at the side.
        assert board.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert admin.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        tv.close()
        phone.close()
        browser.close()
        assert errors == [], errors


def test_home_assistant_discovery_describes_both_cockpits(venue):
    async def scenario():
        async with Observer(venue.broker, HA_USER, topics=["homeassistant/#"]) as ha:
            await ha.wait(lambda m: len({str(x.topic) for x in ha.messages}) == 14)
            devices = {}
            for m in ha.messages:
                config = p.validate(p.discovery_key(str(m.topic)), json.loads(bytes(m.payload)))
                devices.setdefault(config["device"]["name"], set()).add(config["name"])
            assert devices == {name: {"Phase", "Time left", "Current team", "Scores", "Co-processor link", "Pause",
                                      "Resume"} for name in NAMES.values()}

    asyncio.run(scenario())


@pytest.mark.browser
def test_the_venue_in_spanish_shows_no_english(tmp_path):
    """A venue whose computer speaks Spanish (its system locale): the board on the TV and the
    admin page on a phone, a match started and ended there, show no word of the pages'
    English texts and nothing beyond the screen. (The cockpits' names and the walk-up
    teams' names are names; the cockpit's own language is its game master's choice.)"""
    with running_venue(tmp_path, {"c1": "Junto a la ventana"}, {"LANG": "es_ES.UTF-8", "LANGUAGE": "", "LC_ALL": ""}) as v, \
            sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        errors: list[str] = []
        board = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        admin = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
        for page, path in ((board, "/?period=all"), (admin, "/admin")):
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(v.base + path)
            expect(page.locator("html")).to_have_attribute("lang", "es", timeout=WAIT)
        tile = board.locator('.cockpit[data-cockpit="c1"]')
        expect(tile.locator(".what")).to_have_text("Esperando jugadores: pulsad START", timeout=WAIT)
        admin.fill("#pin", PIN)
        admin.click("#login button[type=submit]")
        section = admin.locator('section.cockpit[data-cockpit="c1"]')
        section.locator('button[data-action="start"]').click()
        expect(section.locator(".reply")).to_have_text("Empezar: hecho", timeout=WAIT)
        expect(tile.locator(".what")).to_have_text("Turno: Blue team", timeout=WAIT)
        expect(tile.locator(".facts")).to_contain_text("Ronda 1 · 0 cartas · 0 fallos")
        names = ["Junto a la ventana", "Blue team", "Red team"]  # names, not the pages' words
        for page, label in ((board, "the venue board"), (admin, "the venue's admin page")):
            english = leftovers(page.evaluate(READ), names)
            assert not english and not page.evaluate(WIDER), (label, english, page.evaluate(WIDER))
        section.locator('button[data-action="end"]').click()
        expect(admin.locator("#enddialog")).to_be_visible(timeout=WAIT)
        english = leftovers(admin.evaluate(READ), names)
        assert not english and not admin.evaluate(WIDER), ("the end dialog", english, admin.evaluate(WIDER))
        admin.click("#end_now")
        expect(section.locator(".reply")).to_have_text("Terminar la partida: hecho", timeout=WAIT)
        expect(tile.locator(".what")).to_have_text("Esperando jugadores: pulsad START", timeout=WAIT)
        english = leftovers(board.evaluate(READ), names)
        assert not english and not board.evaluate(WIDER), (english, board.evaluate(WIDER))
        browser.close()
        assert errors == [], errors


def _result(cockpit: str, name: str, match_id: int, scores: dict, turns: list, **kw) -> dict:
    return p.validate("result", {
        "v": 1, "cockpit": cockpit, "name": name, "finished_at": 0.0, "players": kw.pop("players", 0),
        "match": {"id": match_id, "created": "2026-11-25T10:00:00+0000", "status": "finished"},
        "mode": kw.pop("mode", "competitive"), "teams": kw.pop("teams", list(scores)), "scores": scores,
        "winner": kw.pop("winner", None), "tier": kw.pop("tier", None), "turns": turns})


def _turn(team: str, points: int, cards: int, ended_by: str, seconds: float) -> dict:
    return {"team": team, "round": 1, "points": points, "cards": cards, "counters": points - cards, "mistakes": 0,
            "ended_by": ended_by, "seconds": seconds}


@pytest.mark.browser
def test_the_venue_board_fits_a_1080_tv_with_every_list_full(tmp_path):
    """A venue whose day is full: eight walk-up matches on two cockpits and six cooperative
    landings, every list five rows long, and a turn running. At 1920x1080 the board needs no
    scrolling, spreads across the TV's width, and shows every row of the fastest turns and
    the cooperative landings; the walk-up teams are told apart by where and when they
    played (never "Blue team: 8 played")."""
    import time as _time

    from panel.venue.store import VenueStore

    now = _time.time()
    with VenueStore(tmp_path / "venue.db") as store:
        for i in range(8):
            cockpit, name = ("c1", NAMES["c1"]) if i % 2 else ("c2", NAMES["c2"])
            blue, red = 9 - i, i
            store.add_result(_result(cockpit, name, i + 1, {"Blue team": blue, "Red team": red},
                                     [_turn("Blue team", max(blue, 5), 5, "five_cards", 20.0 + i),
                                      _turn("Red team", red, red, "time", 30.0)],
                                     winner=["Blue team"] if blue > red else ["Red team"]), now)
        for i in range(6):
            store.add_result(_result("c1", NAMES["c1"], 100 + i, {"Crew": 10 + i},
                                     [_turn("Crew", 5, 5, "five_cards", 25.0)], mode="cooperative",
                                     tier=p.TIERS[i % len(p.TIERS)], teams=["Night owls of the long table"],
                                     players=4), now)
    with running_venue(tmp_path, NAMES) as v, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        errors: list[str] = []
        board = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        board.on("pageerror", lambda e: errors.append(str(e)))
        board.goto(v.base + "/?period=all")
        expect(board.locator(".cockpit")).to_have_count(2, timeout=WAIT)
        press_start(v.cockpits["c1"])
        expect(board.locator('.cockpit[data-cockpit="c1"] .what')).to_have_text("Turn: Blue team", timeout=WAIT)
        expect(board.locator("#lbmatches")).to_have_text("14 matches played", timeout=WAIT)
        for lst in ("#best", "#fastest", "#crews"):
            expect(board.locator(f"{lst} li")).to_have_count(5)
        # Real teams: each walk-up "Blue team" is its own, with its cockpit and time.
        rows = board.locator("#teams tr")
        expect(rows).to_have_count(5)
        assert [rows.nth(i).locator("td").first.inner_text().split("\n")[0] for i in range(5)].count("Blue team") == 4
        places = [rows.nth(i).locator(".where").inner_text() for i in range(5)]
        assert all(p_.split(",")[0] in NAMES.values() for p_ in places), places
        box = board.evaluate("""() => {
          const r = (s) => document.querySelector(s).getBoundingClientRect();
          const last = (s) => [...document.querySelectorAll(s)].pop().getBoundingClientRect();
          return { height: document.documentElement.scrollHeight, width: document.documentElement.scrollWidth,
                   vh: innerHeight, vw: innerWidth, board: r('.leaderboard'), tiles: r('.cockpits'),
                   fastest: last('#fastest li'), crews: last('#crews li'), tiers: last('#tiers li'),
                   ticker: r('#ticker') };
        }""")
        assert box["height"] <= box["vh"] and box["width"] <= box["vw"], box
        for what in ("fastest", "crews", "tiers", "ticker"):
            assert box[what]["bottom"] <= box["vh"], (what, box[what], box["vh"])
        # It uses the TV's width: the leaderboard and the cockpits span (nearly) all of it.
        assert box["board"]["width"] >= 0.9 * box["vw"] and box["tiles"]["width"] >= 0.9 * box["vw"], box
        assert box["fastest"]["left"] > box["vw"] / 3  # side by side, not one long column
        browser.close()
        assert errors == [], errors
