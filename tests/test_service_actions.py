"""The service holds no rule of its own: for every action in every phase, the game master's
HTTP answer is the engine's (allowed: 2xx; refused: 4xx with the engine's reason, 400 when
the request itself is wrong, 409 when the moment is), and a refused action is not logged.

Each case runs the real service (aiohttp, cockpit, SQLite file) on a free port, brings a
match to the phase through the API and the simulator's inputs, then asks the engine
(`panel.core.refusal` on the cockpit's match) and the API the same question.
"""

from __future__ import annotations

import pytest

from panel.games.airlines.engine import refusal
from panel.core.events import Action
from panel.games.airlines.events import ACTIONS
from service_helpers import MATCH, ServiceThread

OUTSIDE = ["alarm.red", "alarm.yellow", "grid.r1c1", "grid.r1c2", "beacon.red", "radio.1"]


def two_mistakes(svc, gm) -> None:
    """Two presses outside the card in play: the second mistake ends the turn."""
    code = gm.get("/api/admin/status")[1]["match"]["code"]
    card = svc.client().get(f"/api/tower?code={code}")[1]["card"]
    wrong = [b for b in OUTSIDE if b.split(".")[0] != card.get("section") and b not in card.get("press", [])][:2]
    for b in wrong:
        for value in (True, False):
            assert svc.client().post("/api/sim/input", {"control": b, "value": value})[0] == 200


def ok(answer) -> None:
    assert answer[0] == 200, answer


def between_turns(svc, gm):
    gm.new_match()


def in_turn(svc, gm):
    between_turns(svc, gm)
    ok(gm.act("start_turn"))


def in_turn_holding_a_counter(svc, gm):
    """A card completed by a rejected challenge: one counter held, card 0 completed."""
    in_turn(svc, gm)
    ok(gm.act("challenge", team="Puffins", card="current"))
    ok(gm.act("rule", upheld=False))


def paused_by_the_game_master(svc, gm):
    in_turn_holding_a_counter(svc, gm)
    ok(gm.act("pause"))


def paused_by_a_challenge(svc, gm):
    in_turn_holding_a_counter(svc, gm)
    ok(gm.act("challenge", team="Puffins", card=0))


def paused_by_the_game_master_and_a_challenge(svc, gm):
    paused_by_a_challenge(svc, gm)
    ok(gm.act("pause"))


def played_to_its_end(svc, gm):
    """Target 1 point: Gulls score a card, Puffins none; the round's end ends the match."""
    gm.new_match(target_points=1)
    ok(gm.act("start_turn"))
    ok(gm.act("challenge", team="Puffins", card="current"))
    ok(gm.act("rule", upheld=False))
    two_mistakes(svc, gm)
    ok(gm.act("start_turn"))
    two_mistakes(svc, gm)


def ended(svc, gm):
    in_turn(svc, gm)
    ok(gm.act("end"))


def abandoned(svc, gm):
    in_turn(svc, gm)
    ok(gm.act("abandon"))


def no_match(svc, gm):
    pass


PHASES = {  # how to get there, and what the engine's snapshot says then
    "no match": (no_match, "idle"),
    "between turns": (between_turns, "between_turns"),
    "in turn": (in_turn, "in_turn"),
    "in turn, a counter held": (in_turn_holding_a_counter, "in_turn"),
    "paused by the game master": (paused_by_the_game_master, "paused"),
    "paused by a challenge": (paused_by_a_challenge, "paused"),
    "paused by the game master and a challenge": (paused_by_the_game_master_and_a_challenge, "paused"),
    "paused after a restart": (in_turn_holding_a_counter, "paused"),  # the service restarts in between
    "played to its end": (played_to_its_end, "finished"),
    "ended": (ended, "finished"),
    "abandoned": (abandoned, "finished"),
}

# Gulls play first; Puffins are the other team.
ASKS = [
    ("start_turn", {}),
    ("flip", {}),
    ("pause", {}),
    ("pause", {"reason": "link"}),
    ("resume", {}),
    ("resume", {"reason": "restart"}),
    ("challenge", {"team": "Puffins", "card": "current"}),
    ("challenge", {"team": "Puffins", "card": 0}),
    ("challenge", {"team": "Puffins", "card": 3}),
    ("challenge", {"team": "Gulls", "card": "current"}),
    ("challenge", {"team": "Terns", "card": "current"}),
    ("challenge", {"team": "Puffins", "card": "last"}),
    ("rule", {"upheld": True}),
    ("rule", {"upheld": False}),
    ("rule", {}),
    ("touch", {"control": "slider.red"}),
    ("touch", {"control": "grid.r1c1"}),
    ("end", {}),
    ("abandon", {}),
    ("new_match", {}),
    ("explode", {}),
    ("flip", {"team": "Gulls"}),
]


def test_every_action_is_asked():
    assert set(ACTIONS) <= {name for name, _ in ASKS}


def snapshot_allows(actions: dict, name: str, params: dict) -> bool | None:
    """What the snapshot's list of allowed actions says of this request (None: it does not
    say, the request naming parameters the list does not cover)."""
    options = actions.get(name)
    if name == "challenge" and set(params) == {"team", "card"}:
        return options is not None and params["team"] in options["teams"] and params["card"] in options["cards"]
    if name == "rule" and isinstance(params.get("upheld"), bool):
        return options is not None and params["upheld"] in options["upheld"]
    if name == "touch" and params.get("control") == "slider.red":
        return options is not None
    # Asked with no parameters: an action that takes none, or a pause or resume (their
    # reason is optional: the game master's), or no action at all.
    if not params and (name not in ACTIONS or not ACTIONS[name] or name in ("pause", "resume")):
        return options is not None
    return None


@pytest.mark.parametrize("phase", list(PHASES))
@pytest.mark.parametrize("name,params", ASKS, ids=[f"{n}{p or ''}" for n, p in ASKS])
def test_the_service_answers_what_the_engine_answers(tmp_path, phase, name, params):
    setup, expected_phase = PHASES[phase]
    db = tmp_path / "panel.db"
    if phase == "paused after a restart":
        with ServiceThread(db) as svc:
            gm = svc.client()
            gm.login()
            setup(svc, gm)
        setup = no_match  # the restarted service brings the turn back paused
    with ServiceThread(db) as svc:
        gm = svc.client()
        gm.login()
        setup(svc, gm)
        state = gm.state()
        assert state["phase"] == expected_phase, state
        if phase == "paused after a restart":
            assert state["paused_for"] == ["restart"]
        cockpit = svc.cockpit

        def logged() -> int:
            return len(cockpit.store.entries(cockpit.record.id)) if cockpit.record else 0

        why, before = svc.on_loop(lambda: (refusal(cockpit.match, Action(name, cockpit.now(), dict(params))),
                                           logged()))
        if name == "new_match":
            status, body = gm.post("/api/admin/match", MATCH)
        else:
            status, body = gm.act(name, **params)
        if why is None:
            assert status == 200, (status, body)
        else:
            assert status == (400 if why.param else 409), (status, body, str(why))
            assert body == {"error": str(why)}
            assert svc.on_loop(logged) == before  # nothing refused reaches the log
        # The snapshot's list of the actions allowed now is the same answer.
        says = snapshot_allows(state["actions"], name, params)
        assert says is None or says == (why is None), (state["actions"], why)
