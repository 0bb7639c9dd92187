"""Pengo Jump through the service: the game master sets a game up, the panel reports it, the
engine's refusals are the HTTP answers, the TV's state names the buttons, a restart comes
back equal to a replay of the log, the debrief and the café's record tell it, START plays
the same group again, and the venue sees the cockpit idle (a cooperative game scores
nothing there)."""

from __future__ import annotations

import asyncio

from panel.core.events import Action
from panel.games.pengo_jump.engine import PengoMatch, Phase
from panel.games.pengo_jump.events import ACTIONS
from panel.games.pengo_jump.mapping_file import panel_for
from panel.mqtt.protocol import state_payload
from panel.service.cockpit import Cockpit
from panel.service.replay import replay
from panel.storage.store import Store
from test_service_kaboom import error_of, press  # the same answers checked the same way

_layout, MAPPING = panel_for(None)
BUTTON = MAPPING.buttons
GAME = {"game": "pengo-jump", "mode": "sea_lions", "players": ["Lea", "Tom"]}


def test_the_game_master_sets_up_and_the_panel_plays_a_game(svc, gm):
    status, body = gm.get("/api/admin/status")
    declared = body["games"]["pengo-jump"]
    assert declared["available"] and declared["modes"] == ["happy", "sea_lions"] and declared["title"] == "Pengo Jump"
    assert "players" in error_of(*gm.post("/api/admin/match", {**GAME, "players": []}), 400)
    assert "mode" in error_of(*gm.post("/api/admin/match", {**GAME, "mode": "night"}), 400)
    assert gm.post("/api/admin/match", GAME)[0] == 200
    state = gm.state()
    assert state["game"] == "pengo-jump" and state["phase"] == "draw" and state["left"] == 21
    assert state["buttons"]["frosty"] == {"control": BUTTON["frosty"], "name": "the blue beacon", "colour": "blue"}
    assert set(state["actions"]) == {"draw", "abandon"}

    assert "draw an ice chunk first" in error_of(*gm.act("home"), 409)
    assert "not a kind of ice chunk" in error_of(*gm.act("draw", kind="ice"), 400)
    press(gm, BUTTON["frosty"])
    press(gm, BUTTON["large_sea_lion"])
    press(gm, BUTTON["home"])
    assert "one penguin moves per turn" in error_of(*gm.act("home"), 409)
    state = gm.state()
    assert state["bag"]["frosty"] == 5 and state["home"] == 1 and state["tokens"]["large"]["free"] == 5
    press(gm, BUTTON["end_turn"])
    assert gm.state()["current"] == 1
    for _ in range(3):
        assert gm.act("draw", kind="snowy")[0] == 200
        assert gm.act("home")[0] == 200
    state = gm.state()
    assert state["finished"] and state["outcome"] == "won" and state["status"] == "finished"
    assert set(state["actions"]) == {"new_match"}
    # The venue counts no cooperative game: the cockpit is idle to it.
    assert state_payload("c1", "Cockpit", state, dropped=0)["phase"] == "idle"

    status, body = gm.get(f"/api/admin/debrief?match={state['match_id']}")
    assert status == 200 and body["game"] == "pengo-jump" and body["outcome"] == "won" and body["home"] == 4
    assert [r["drew"] for r in body["tables"]["draws"]] == ["frosty", "snowy", "snowy", "snowy"]
    status, text = gm.get(f"/api/admin/debrief.csv?match={state['match_id']}&table=jumpers")
    assert status == 200 and text.splitlines()[0] == "player,name,turns,snowy,sea_lion,frosty,home,fell"
    status, body = gm.get("/api/admin/matches")
    assert body["matches"][0]["game"] == "pengo-jump" and body["matches"][0]["outcome"] == "won"
    assert body["matches"][0]["mode"] == "sea_lions" and body["matches"][0]["teams"] == ["Lea", "Tom"]
    status, body = gm.get("/api/admin/record?game=pengo-jump")
    assert status == 200 and body["games"] == 1 and body["won"] == 1 and body["by_players"] == {"2": {"games": 1, "won": 1}}
    assert error_of(*gm.get("/api/admin/record?game=kaboom"), 404)
    assert error_of(*gm.get("/api/admin/record?game=chess"), 400)


def test_the_engine_and_the_http_answers_agree(svc, gm):
    """Every Pengo Jump action in a turn after a fall: allowed <-> 2xx, refused <-> 4xx with the engine's reason."""
    assert gm.post("/api/admin/match", GAME)[0] == 200
    gm.act("draw", kind="sea_lion")
    gm.act("fell")
    answers = set()
    for name, takes in ACTIONS.items():
        if name in ("new_match", "abandon", "draw"):
            continue
        params = {"size": "small"} if "size" in takes else {}
        why = svc.on_loop(lambda: svc.cockpit.match.refusal(Action(name, svc.cockpit.now(), params)))
        status, body = gm.act(name, **params)
        if why is None:
            assert status == 200, (name, body)
        else:
            assert status == (400 if why.param else 409) and body["error"] == str(why), (name, body)
        answers.add(why is None)
    assert answers == {True, False}


def test_a_restart_comes_back_equal_to_a_replay_and_start_plays_the_group_again(tmp_path):
    async def scenario():
        db = tmp_path / "panel.db"
        with Store(db) as store:
            async with Cockpit(store, sim=True) as cockpit:
                await cockpit.create_match(GAME)
                for role in ("snowy", "small_sea_lion", "small_token_fell"):
                    await cockpit.input(BUTTON[role], True)
                mid = cockpit.record.id
        with Store(db) as store:
            async with Cockpit(store, sim=True) as cockpit:
                match = cockpit.match
                assert isinstance(match, PengoMatch) and cockpit.record.id == mid and match.phase is Phase.TURN
                assert match.tokens["small"] == {"free": 5, "board": 0, "fallen": 1}
                again, _ = replay(store.match(mid), store.entries(mid))
                assert again.snapshot() == match.snapshot()
                await cockpit.action("abandon", {})
                await cockpit.input(BUTTON["start"], True)  # START: the same group again
                assert cockpit.record.id != mid and isinstance(cockpit.match, PengoMatch)
                assert cockpit.match.players == ("Lea", "Tom") and cockpit.match.settings.mode == "sea_lions"

    asyncio.run(scenario())


def test_a_cafe_walks_up_to_pengo_jump_with_a_draw_button(tmp_path):
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            async with Cockpit(store, sim=True, game_defaults={"pengo-jump": {"players": 3}},
                               walk_up={"pengo-jump": True}) as cockpit:
                await cockpit.input(BUTTON["frosty"], True)  # sets a game up, and is its first draw
                match = cockpit.match
                assert isinstance(match, PengoMatch) and match.players == ("", "", "")
                assert match.bag["frosty"] == 5 and match.phase is Phase.TURN

    asyncio.run(scenario())
