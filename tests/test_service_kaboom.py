"""Penguin Kaboom through the service: the game master sets a mission up and runs it, the
panel plays it, the engine's refusals are the HTTP answers, a restart comes back paused
and equal to a replay of the log, the debrief tells it, and a café's panel walks up."""

from __future__ import annotations

import asyncio

import pytest

from panel.games.kaboom.engine import KaboomMatch, Phase
from panel.core.events import Action
from panel.games.kaboom.events import ACTIONS as KABOOM_ACTIONS
from panel.games.kaboom.mapping_file import load_mapping
from panel.service.cockpit import Cockpit
from panel.service.replay import replay
from panel.storage.store import Store

MAPPING = load_mapping()
MISSION = {"mode": "kaboom", "players": [{"colour": "red", "name": "Alis"}, "blue"], "difficulty": "easy",
           "mission": "custom", "seed": 3,
           "custom": {"time_per_player": 60, "alert_seconds": 30, "recharge_seconds": 20,
                      "recharge_above_start": False}}


def error_of(status, body, code):
    assert status == code, (status, body)
    assert "\n" not in body["error"]
    return body["error"]


def press(client, control):
    for value in (True, False):
        status, body = client.post("/api/sim/input", {"control": control, "value": value})
        assert status == 200, body


def test_the_game_master_sets_up_and_runs_a_mission(svc, gm):
    status, body = gm.get("/api/admin/status")
    k = body["games"]["kaboom"]
    assert k["available"] and k["colours"] == list(MAPPING.players) and len(k["missions"]) == 15
    assert k["difficulties"] == ["easy", "medium", "advanced"] and "time_per_player" in k["custom"]

    assert "pink" in error_of(*gm.post("/api/admin/match", {**MISSION, "players": ["pink"]}), 400)
    assert "rules" in error_of(*gm.post("/api/admin/match", {**MISSION, "rules": {}}), 400)  # not from the web
    assert gm.post("/api/admin/match", MISSION)[0] == 200
    state = gm.state()
    assert state["game"] == "kaboom" and state["phase"] == "setup"
    assert [(p["colour"], p["name"]) for p in state["players"]] == [("red", "Alis"), ("blue", None)]
    assert set(state["actions"]) == {"join", "leave", "start", "lift_cover", "abandon"}

    assert "not started" in error_of(*gm.act("recharge"), 409)
    assert "'green' is not a penguin colour" not in error_of(*gm.act("pass", colour="red"), 409)
    assert "not a Kaboom action" in error_of(*gm.act("flip"), 400)
    status, body = gm.act("start")
    assert status == 200 and body["events"][0]["type"] == "mission_started"
    first = body["events"][0]["first"]
    assert gm.act("pause")[0] == 200 and gm.state()["phase"] == "paused"
    assert "the game is paused" in error_of(*gm.act("recharge"), 409)
    assert gm.act("resume")[0] == 200

    # The panel (the simulator's inputs) plays: a pass, a recharge, the cover, the confirmation.
    press(gm, MAPPING.players[first])
    assert gm.state()["active"] != first
    press(gm, MAPPING.recharge)
    press(gm, MAPPING.mission)  # the cover is down: refused, nothing happens
    assert gm.state()["phase"] == "playing"
    assert gm.post("/api/sim/input", {"control": MAPPING.cover, "value": MAPPING.cover_open})[0] == 200
    press(gm, MAPPING.mission)
    assert gm.state()["phase"] == "closing"
    for colour in ("red", "blue"):
        assert gm.post("/api/sim/input", {"control": MAPPING.players[colour], "value": True})[0] == 200
    state = gm.state()
    assert state["finished"] and state["outcome"] == "success" and state["status"] == "finished"
    assert set(state["actions"]) == {"new_match"}

    status, body = gm.get(f"/api/admin/debrief?match={state['match_id']}")
    assert status == 200 and body["game"] == "kaboom" and body["outcome"] == "success"
    rows = {r["colour"]: r for r in body["tables"]["players"]}
    assert rows["red"]["name"] == "Alis" and rows[first]["passes"] == 1
    assert sum(r["recharges"] for r in rows.values()) == 1
    status, text = gm.get(f"/api/admin/debrief.csv?match={state['match_id']}&table=players")
    assert status == 200 and text.splitlines()[0].startswith("colour,name,turns,seconds_played")
    assert "not a table of this match" in error_of(*gm.get(f"/api/admin/debrief.csv?match={state['match_id']}"
                                                           "&table=turns"), 400)
    status, body = gm.get("/api/admin/matches")
    assert body["matches"][0]["game"] == "kaboom" and body["matches"][0]["mode"] is None  # "mode" is Airlines' only
    assert body["matches"][0]["teams"] == ["Alis", "blue"]


@pytest.mark.parametrize("phase", ("setup", "playing", "paused", "closing", "finished"))
def test_the_engine_and_the_http_answers_agree(svc, gm, phase):
    """Every Kaboom action from each phase: allowed <-> 2xx, refused <-> 4xx with the engine's reason."""
    slow = {**MISSION["custom"], "time_per_player": 600, "alert_seconds": 600}  # no clock event meanwhile
    assert gm.post("/api/admin/match", {**MISSION, "custom": slow})[0] == 200
    if phase != "setup":
        gm.act("start")
        gm.act("lift_cover")
    if phase == "paused":
        gm.act("pause")
    elif phase == "closing":
        gm.act("confirm")
    elif phase == "finished":
        gm.act("abandon")
    answers = set()
    for name, takes in KABOOM_ACTIONS.items():
        if name == "new_match":
            continue
        params = {"colour": svc.on_loop(lambda: svc.cockpit.match.active) or "red"} if "colour" in takes else {}
        why = svc.on_loop(lambda: svc.cockpit.match.refusal(Action(name, svc.cockpit.now(), params)))
        before = gm.state()
        status, body = gm.act(name, **params)
        if why is None:
            assert status == 200, (name, body)
        else:
            assert status == (400 if why.param else 409) and body["error"] == str(why), (name, body)
            after = gm.state()
            assert after["phase"] == before["phase"] and after["active"] == before["active"]
        answers.add(why is None)
    assert answers == ({False} if phase == "finished" else {True, False})  # both kinds compared
        # The next action is asked of the state this one left: the engine's answer is read
        # again just before each request, so each comparison holds whatever came before.


def test_a_restart_comes_back_paused_and_equal_to_a_replay(tmp_path):
    async def scenario():
        db = tmp_path / "panel.db"
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                await cockpit.create_match(MISSION)
                await cockpit.action("start", {})
                await cockpit.input(MAPPING.recharge, True)
                first = cockpit.match.active
                await cockpit.input(MAPPING.players[first], True)
                mid = cockpit.record.id
            finally:
                await cockpit.close()
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                match = cockpit.match
                assert isinstance(match, KaboomMatch) and cockpit.record.id == mid
                assert match.phase is Phase.PAUSED and match.pause_reasons == {"restart"}
                again, _ = replay(store.match(mid), store.entries(mid))
                assert again.snapshot(cockpit.now()) == match.snapshot(cockpit.now())
                await cockpit.action("resume", {})
                assert cockpit.match.phase is Phase.PLAYING
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_a_cafe_walks_up_to_kaboom_with_the_colour_buttons(tmp_path):
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True, game_defaults={"kaboom": {"difficulty": "advanced", "mission": 4}},
                              walk_up={"kaboom": True})
            await cockpit.start()
            try:
                await cockpit.input(MAPPING.players["yellow"], True)  # sets a mission up, yellow joins
                await cockpit.input(MAPPING.players["yellow"], False)
                await cockpit.input(MAPPING.players["black"], True)
                await cockpit.input(MAPPING.players["black"], False)
                match = cockpit.match
                assert isinstance(match, KaboomMatch) and match.colours == ("yellow", "black")
                assert cockpit.record.settings["difficulty"] == "advanced" and cockpit.record.settings["mission"] == 4
                await cockpit.input(MAPPING.start, True)
                assert match.phase is Phase.PLAYING
                await cockpit.action("abandon", {})
                first = cockpit.record.id
                await cockpit.input(MAPPING.start, True)  # START: the same penguins again, started
                assert cockpit.record.id != first  # set up and logged before input() returns
                assert cockpit.match.colours == ("yellow", "black") and cockpit.match.phase is Phase.PLAYING
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_after_a_success_start_at_the_panel_plays_the_next_mission(tmp_path):
    """The walk-up follows the rulebook's campaign: START after a mission accomplished sets
    the next mission up (the same penguins, started); after a mission lost or abandoned,
    the same one again; after the file's last mission, the first."""
    lowered = next(p for p in MAPPING.cover_positions if p != MAPPING.cover_open)

    async def win(cockpit):
        await cockpit.input(MAPPING.cover, lowered)
        await cockpit.input(MAPPING.cover, MAPPING.cover_open)  # the protection lifted during the mission
        await cockpit.input(MAPPING.mission, True)
        await cockpit.input(MAPPING.mission, False)
        await cockpit.input(MAPPING.players["yellow"], True)
        await cockpit.input(MAPPING.players["yellow"], False)
        assert cockpit.match.outcome == "success"

    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True, game_defaults={"kaboom": {"difficulty": "advanced", "mission": 14}},
                              walk_up={"kaboom": True})
            await cockpit.start()
            try:
                await cockpit.input(MAPPING.players["yellow"], True)  # sets mission 14 up, yellow joins
                await cockpit.input(MAPPING.players["yellow"], False)
                await cockpit.input(MAPPING.start, True)
                await win(cockpit)
                await cockpit.input(MAPPING.start, True)  # the next mission, started
                assert cockpit.match.settings.mission == 15 and cockpit.match.phase is Phase.PLAYING
                assert cockpit.record.settings["difficulty"] == "advanced"
                await cockpit.action("abandon", {})
                await cockpit.input(MAPPING.start, True)  # abandoned: the same mission again
                assert cockpit.match.settings.mission == 15 and cockpit.match.phase is Phase.PLAYING
                await win(cockpit)
                await cockpit.input(MAPPING.start, True)  # the last one won: the campaign again from the first
                assert cockpit.match.settings.mission == 1 and cockpit.match.colours == ("yellow",)
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_a_walk_up_mission_after_an_airlines_turn_that_left_the_lever_down_starts_protected(tmp_path):
    """Kaboom rule 9 at a café's panel: an Airlines turn left the big lever down; a penguin's
    colour sets a mission up, START starts it, and one press of the mission button is
    refused (the protection is on) until the players move the lever."""
    lowered = next(p for p in MAPPING.cover_positions if p != MAPPING.cover_open)

    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True, walk_up={"kaboom": True})
            await cockpit.start()
            try:
                await cockpit.create_match({"teams": [{"name": "Gulls", "players": ["Ana", "Bo"]},
                                                      {"name": "Puffins", "players": ["Cy", "Di"]}]})
                await cockpit.action("start_turn", {})
                await cockpit.input(MAPPING.cover, MAPPING.cover_open)
                await cockpit.action("end", {"when": "now"})
                await cockpit.input(MAPPING.players["red"], True)  # a mission set up at the panel, red joins
                await cockpit.input(MAPPING.players["red"], False)
                match = cockpit.match
                assert isinstance(match, KaboomMatch) and match.positions[MAPPING.cover] == MAPPING.cover_open
                await cockpit.input(MAPPING.start, True)
                await cockpit.input(MAPPING.start, False)
                await cockpit.input(MAPPING.mission, True)
                await cockpit.input(MAPPING.mission, False)
                assert match.phase is Phase.PLAYING and not match.cover_open
                await cockpit.input(MAPPING.cover, lowered)
                await cockpit.input(MAPPING.cover, MAPPING.cover_open)
                await cockpit.input(MAPPING.mission, True)
                assert match.phase is Phase.CLOSING
            finally:
                await cockpit.close()

    asyncio.run(scenario())


class Page:
    """A page's socket: every refusal the cockpit tells the pages."""

    view = "board"

    def __init__(self):
        self.refused: list[dict] = []

    def send(self, message):
        if message["type"] == "refused":
            self.refused.append(message["refused"])


def test_a_refused_press_is_told_to_the_pages_in_the_players_words(tmp_path):
    """Kaboom rule 13: a press the rules refuse changes nothing and the pages are told why,
    in the pages' language: a waiting player's colour, the mission button with its cover
    on, a set-up player's colour before the start."""
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            page = Page()
            cockpit.subscribe(page)
            try:
                await cockpit.create_match({**MISSION, "players": ["red", "blue"]})
                await cockpit.input(MAPPING.players["red"], True)
                assert page.refused[-1]["reason"] == "the red penguin has already joined"
                assert page.refused[-1]["control"] == MAPPING.players["red"] and page.refused[-1]["colour"] == "red"
                await cockpit.input(MAPPING.players["red"], False)  # a release asks nothing: nothing said
                assert len(page.refused) == 1
                await cockpit.input(MAPPING.start, True)
                waiting = next(c for c in ("red", "blue") if c != cockpit.match.active)
                await cockpit.input(MAPPING.players[waiting], True)
                assert page.refused[-1]["reason"] == f"it is the {cockpit.match.active} penguin's turn"
                await cockpit.input(MAPPING.mission, True)
                assert page.refused[-1] == {**page.refused[-1], "action": "confirm", "control": MAPPING.mission,
                                            "reason": "lift the mission button's cover first",
                                            "plain": "up on the direction cross"}
                assert cockpit.match.phase is Phase.PLAYING
                cockpit.set_language("es")
                await cockpit.input(MAPPING.mission, False)
                await cockpit.input(MAPPING.mission, True)
                assert page.refused[-1]["reason"] == "primero hay que levantar la tapa del botón de misión"
                assert len(page.refused) == 4
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_an_airlines_cafe_s_colour_buttons_set_nothing_up(tmp_path):
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                await cockpit.input(MAPPING.players["red"], True)
                assert cockpit.match is None
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_a_mission_after_an_airlines_turn_that_left_the_lever_down_starts_protected(svc, gm):
    """Kaboom rule 9 through the real service: an Airlines card asked for the big lever down
    (the mission button's protection, on this panel) and the crew left it there; the next
    mission starts protected, so a press of the mission button is refused, not a
    confirmation; the players lift the protection by moving the lever again."""
    lowered = next(p for p in MAPPING.cover_positions if p != MAPPING.cover_open)
    assert gm.post("/api/admin/match", {"teams": [{"name": "Gulls", "players": ["Ana", "Bo"]},
                                                   {"name": "Puffins", "players": ["Cy", "Di"]}]})[0] == 200
    assert gm.act("start_turn")[0] == 200
    assert gm.post("/api/sim/input", {"control": MAPPING.cover, "value": MAPPING.cover_open})[0] == 200
    assert gm.act("end", when="now")[0] == 200
    assert gm.state()["positions"][MAPPING.cover] == MAPPING.cover_open  # the lever stays down

    mission = {"game": "kaboom", **{k: v for k, v in MISSION.items() if k != "mode"}}
    assert gm.post("/api/admin/match", mission)[0] == 200
    state = gm.state()
    assert state["game"] == "kaboom" and state["cover_open"] is False
    assert gm.act("start")[0] == 200
    press(gm, MAPPING.mission)
    assert gm.state()["phase"] == "playing"  # refused: the protection is on
    assert "lift the mission button's cover first" in error_of(*gm.act("confirm"), 409)
    for position in (lowered, MAPPING.cover_open):  # back up, then down again: lifted
        assert gm.post("/api/sim/input", {"control": MAPPING.cover, "value": position})[0] == 200
    assert gm.state()["cover_open"] is True
    press(gm, MAPPING.mission)
    assert gm.state()["phase"] == "closing"


def test_a_20000_character_player_name_is_refused_with_one_line(svc, gm):
    """Issue 24: it was accepted (and every page showed it); names are bounded as Airlines' are."""
    long = {**MISSION, "players": [{"colour": "red", "name": "A" * 20000}, "blue"]}
    assert "20000 characters long (at most 40)" in error_of(*gm.post("/api/admin/match", long), 400)
    two_lines = {**MISSION, "players": [{"colour": "red", "name": "Al\nis"}, "blue"]}
    assert "one line" in error_of(*gm.post("/api/admin/match", two_lines), 400)
