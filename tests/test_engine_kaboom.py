"""The Kaboom engine, one test (or a few) per house rule in docs/kaboom.md."""

from __future__ import annotations

import pytest

from panel.games.kaboom.engine import ACTIONS, KaboomMatch, Phase
from panel.core.events import Action, InputEvent
from panel.games.kaboom.events import EVENT_TYPES

from kaboom_helpers import MAPPING, act, hold, match, only, press, refused, refused_act, types

def started(m: KaboomMatch, t: float = 0.0) -> str:
    return only(act(m, "start", t), "mission_started").details["first"]


def running(m: KaboomMatch) -> list[str]:
    return [c for c, clock in m.clocks.items() if clock.running]


# ---------------------------------------------------------------------- Kaboom rule 1: start

def test_nothing_runs_before_start_and_one_clock_runs_after():
    m = match()
    assert m.next_deadline() is None and running(m) == []
    assert refused_act(m, "pass", 1.0, colour="red").startswith("the mission has not started")
    assert m.advance(500.0) == []
    first = only(press(m, MAPPING.start, 500.0), "mission_started").details["first"]
    assert running(m) == [first] and m.active == first
    assert m.time_left(first, 510.0) == 50.0
    assert all(m.time_left(c, 510.0) == 60.0 for c in m.colours if c != first)


def test_before_the_start_a_colour_pressed_joins_and_pressed_again_leaves():
    m = match(())  # a walk-up mission: no one yet
    assert refused(m, MAPPING.start, 0.0) == "no player yet: each player presses their colour to join"
    assert [e.details for e in press(m, "yellow", 1.0)] == [{"colour": "yellow", "players": ["yellow"]}]
    assert types(press(m, "black", 2.0)) == ["player_joined"]
    assert types(press(m, "yellow", 3.0)) == ["player_left"]
    press(m, "red", 4.0)
    assert m.colours == ("black", "red")
    assert [p["name"] for p in m.snapshot()["players"]] == [None, None]
    e = only(press(m, MAPPING.start, 5.0), "mission_started").details
    assert e["players"] == ["black", "red"] and e["first"] in ("black", "red")
    assert refused_act(m, "join", 6.0, colour="white") == "the mission has already started"
    assert only(press(m, e["first"], 7.0), "turn_passed").details["from"] == e["first"]  # now a pass


def test_a_set_up_player_pressing_their_colour_before_the_start_stays():
    """Kaboom rule 1: the game master's players are in the mission; a press of their colour
    before START (checking the button, or saying "here") is answered and leaves no one out;
    a penguin who joined at the panel still leaves by pressing again."""
    m = match(("red", "blue"))
    for t in (1.0, 2.0):  # the first press, and the next: still in
        assert refused(m, "red", t) == "the red penguin has already joined"
    assert m.colours == ("red", "blue")
    assert types(press(m, "green", 3.0)) == ["player_joined"]
    assert types(press(m, "green", 4.0)) == ["player_left"]
    assert types(act(m, "leave", 5.0, colour="blue")) == ["player_left"]  # the game master can take one out
    assert m.colours == ("red",)


def test_only_penguins_the_panel_has_can_join():
    m = match(())
    assert refused_act(m, "join", 0.0, colour="pink").startswith("'pink' is not a penguin colour")
    assert refused_act(m, "leave", 0.0, colour="red") == "the red penguin has not joined"


# ---------------------------------------------------------------------- Kaboom rule 2: pass to most time

def test_a_pass_goes_to_the_other_player_with_the_most_time():
    m = match()
    a = started(m)
    e = only(press(m, a, 10.0), "turn_passed").details  # the other two tie at 60: drawn
    b = e["to"]
    assert e["from"] == a and b != a and e["why"] == "tie_break" and e["time_left"] == 50.0
    c = next(x for x in m.colours if x not in (a, b))
    e = only(press(m, b, 30.0), "turn_passed").details  # a 50, c 60
    assert (e["to"], e["why"], e["time_left"]) == (c, "pass", 40.0)
    # c has the most time (59) but passed: the turn goes to a (50), not back to c
    e = only(press(m, c, 31.0), "turn_passed").details
    assert (e["from"], e["to"], e["why"]) == (c, a, "pass")
    assert running(m) == [a]
    assert m.time_left(b) == 40.0 and m.time_left(c) == 59.0


def test_only_the_active_player_passes():
    m = match()
    a = started(m)
    other = next(c for c in m.colours if c != a)
    assert refused(m, other, 5.0) == f"it is the {a} penguin's turn" and m.active == a
    assert refused(m, "green", 6.0) == "no player has the green penguin"
    assert running(m) == [a]


def test_alone_a_pass_keeps_the_turn():
    m = match(("yellow",))
    started(m)
    e = only(press(m, "yellow", 5.0), "turn_passed").details
    assert e["to"] == "yellow" and running(m) == ["yellow"]


# ---------------------------------------------------------------------- Kaboom rule 3: ties drawn by seed

def draws(seed: int) -> list[str]:
    m = match(("red", "blue", "white", "black"), seed=seed)
    out = [started(m)]
    for t in (1.0, 2.0):
        out.append(only(press(m, m.active, t), "turn_passed").details["to"])
    return out


def test_ties_are_drawn_from_the_seed():
    runs = {seed: draws(seed) for seed in range(12)}
    for seed, got in runs.items():
        assert draws(seed) == got  # the same seed draws the same players
    assert len({tuple(r) for r in runs.values()}) > 1  # and the seed decides


def test_a_tie_is_drawn_among_the_tied_only():
    drawn = set()
    for seed in range(20):
        m = match(("red", "blue", "white", "black"), seed=seed)
        a = started(m)
        press(m, "red" if a != "red" else "blue", 1.0)  # refused: not their turn, no draw
        e = only(press(m, a, 10.0), "turn_passed").details  # a 50, the three others tie at 60
        assert e["why"] == "tie_break" and e["to"] != a
        drawn.add(e["to"])
        b = e["to"]
        e = only(press(m, b, 30.0), "turn_passed").details  # a 50, b 40, two at 60: one of those two
        assert e["why"] == "tie_break" and e["to"] not in (a, b)
    assert len(drawn) > 1


# ---------------------------------------------------------------------- Kaboom rule 4: recharge to least time

def test_a_recharge_goes_to_the_player_with_the_least_time():
    m = match(recharge_seconds=25)
    a = started(m)
    b = only(press(m, a, 10.0), "turn_passed").details["to"]  # a 50
    e = only(act(m, "recharge", 30.0), "recharge").details  # b is running: 40, the least
    assert (e["to"], e["seconds"], e["capped"], e["before"], e["time_left"]) == (b, 25.0, False, 40.0, 65.0)
    assert m.time_left(b, 31.0) == 64.0 and running(m) == [b]  # still running
    e = only(act(m, "recharge", 31.0), "recharge").details  # a 50 is now the least
    assert (e["to"], e["time_left"]) == (a, 75.0)  # above the start: this mission allows it


def test_a_recharge_is_capped_at_the_start_when_the_mission_says_so():
    m = match(recharge_seconds=25, recharge_above_start=False)
    a = started(m)
    e = only(act(m, "recharge", 10.0), "recharge").details  # a: 50, filled to 60 only
    assert (e["to"], e["seconds"], e["capped"], e["time_left"]) == (a, 10.0, True, 60.0)
    e = only(act(m, "recharge", 10.0), "recharge").details  # every clock full: nothing to add
    assert (e["seconds"], e["capped"]) == (0.0, True)
    assert max(m.time_left(c) for c in m.colours) == 60.0


def test_a_recharge_tie_is_drawn_and_only_while_the_clocks_run():
    m = match(("red", "blue"), recharge_above_start=True)
    assert refused_act(m, "recharge", 0.0).startswith("the mission has not started")
    started(m)
    e = only(act(m, "recharge", 0.0), "recharge").details  # both at 60
    assert e["to"] in ("red", "blue")
    act(m, "pause", 1.0)
    assert refused_act(m, "recharge", 2.0) == "the game is paused"


# ---------------------------------------------------------------------- Kaboom rule 5: alert period

def test_alerts_sound_every_period_of_play_and_a_pause_stops_the_alert_clock():
    m = match(time_per_player=600, alert_seconds=20)
    started(m)
    assert m.next_deadline() == 20.0
    e = m.advance(45.0)
    assert [(x.t, x.type, x.details["number"]) for x in e] == [(20.0, "alert", 1), (40.0, "alert", 2)]
    act(m, "pause", 50.0)
    assert m.next_deadline() is None and m.advance(500.0) == []
    act(m, "resume", 500.0)
    assert m.next_deadline() == 510.0  # 10 s were left on the alert clock
    assert types(m.advance(510.0)) == ["alert"]
    assert m.snapshot()["alerts"]["waiting"] == 3


def test_a_pass_or_a_recharge_does_not_move_the_alert_clock():
    m = match(time_per_player=600, alert_seconds=20)
    a = started(m)
    press(m, a, 7.0)
    act(m, "recharge", 8.0)
    assert m.next_deadline() == 20.0


# ---------------------------------------------------------------------- Kaboom rules 6 and 7: the alert cards

def test_flips_and_deactivations_are_counted():
    m = match(time_per_player=600, alert_seconds=10, alerts=5, alerts_face_up=1)
    started(m)
    assert refused(m, MAPPING.alert_flipped, 1.0) == "no alert is waiting to be flipped"
    m.advance(20.0)  # two alerts waiting
    assert m.snapshot()["alerts"] == {"total": 5, "face_up": 1, "remaining": 4, "waiting": 2, "sounded": 2,
                                          "next_in": 10.0}
    e = only(press(m, MAPPING.alert_flipped, 21.0), "alert_flipped").details
    assert e == {"face_up": 2, "remaining": 3, "waiting": 1}
    e = only(press(m, MAPPING.alert_deactivated, 22.0), "alert_deactivated").details
    assert e == {"face_up": 1, "remaining": 4, "waiting": 1}
    press(m, MAPPING.alert_deactivated, 23.0)
    assert refused(m, MAPPING.alert_deactivated, 24.0) == "no alert card is face up"


# ---------------------------------------------------------------------- Kaboom rule 8: failure

def test_the_mission_fails_the_moment_the_running_clock_reaches_zero():
    m = match(time_per_player=30, alert_seconds=600)
    a = started(m, 2.0)
    assert m.next_deadline() == 32.0
    assert m.advance(31.999999) == []
    e = only(m.handle(InputEvent(MAPPING.players[a], True, 32.0)), "mission_failed")  # a pass at zero: too late
    assert e.t == 32.0 and e.details["reason"] == "clock_out" and e.details["colour"] == a
    assert m.finished and m.outcome == "failed" and m.failed_colour == a and m.time_left(a) == 0.0
    assert running(m) == [] and m.next_deadline() is None
    assert refused_act(m, "recharge", 33.0) == "the mission is over: set up a new one"


def test_a_clock_out_at_the_moment_of_an_alert_fails_without_the_alert():
    m = match(time_per_player=40, alert_seconds=20)
    started(m)
    assert types(m.advance(100.0)) == ["alert", "mission_failed"]


def test_the_mission_fails_when_the_last_alert_card_is_flipped():
    m = match(time_per_player=600, alert_seconds=10, alerts=3, alerts_face_up=1)
    started(m)
    m.advance(10.0)
    assert types(press(m, MAPPING.alert_flipped, 11.0)) == ["alert_flipped"]  # 2 of 3 face up
    m.advance(20.0)
    press(m, MAPPING.alert_deactivated, 21.0)  # back to 1 face up
    assert types(press(m, MAPPING.alert_flipped, 22.0)) == ["alert_flipped"]
    m.advance(30.0)
    e = press(m, MAPPING.alert_flipped, 31.0)
    assert types(e) == ["alert_flipped", "mission_failed"]
    assert e[-1].details["reason"] == "last_alert" and m.outcome == "failed" and m.reason == "last_alert"
    assert running(m) == []


# ---------------------------------------------------------------------- Kaboom rule 9: cover before confirm

def test_the_cover_must_be_lifted_before_the_mission_button_confirms():
    m = match()
    started(m)
    assert refused(m, MAPPING.mission, 5.0) == "lift the mission button's cover first"
    assert m.phase is Phase.PLAYING
    assert types(m.handle(InputEvent(MAPPING.cover, MAPPING.cover_open, 6.0))) == ["cover_lifted"]
    lowered = next(p for p in MAPPING.cover_positions if p != MAPPING.cover_open)
    assert types(m.handle(InputEvent(MAPPING.cover, lowered, 7.0))) == ["cover_lowered"]
    assert refused(m, MAPPING.mission, 8.0) == "lift the mission button's cover first"  # put back
    m.handle(InputEvent(MAPPING.cover, MAPPING.cover_open, 9.0))
    active = m.active
    e = only(press(m, MAPPING.mission, 10.0), "mission_confirmed").details
    assert e["by"] == active and m.phase is Phase.CLOSING
    assert running(m) == [] and m.next_deadline() is None  # every clock stops
    assert m.advance(1000.0) == []


# ---------------------------------------------------------------------- Kaboom rule 10: every finger at once

def confirmed(m: KaboomMatch, t: float = 10.0) -> None:
    started(m)
    act(m, "lift_cover", t)
    only(act(m, "confirm", t), "mission_confirmed")


def test_success_only_when_every_players_colour_is_held_at_once():
    m = match(("red", "blue", "white"))
    confirmed(m)
    hold(m, "red", 11.0)
    hold(m, "blue", 12.0)
    hold(m, "red", 13.0, down=False)
    assert hold(m, "white", 14.0) == [] and not m.finished  # red let go
    hold(m, "green", 15.0)  # not a player: changes nothing
    assert not m.finished
    e = only(hold(m, "red", 16.0), "mission_accomplished")
    assert e.t == 16.0 and m.outcome == "success" and m.finished


def test_fingers_already_down_count_at_the_confirmation():
    m = match(("red", "blue"))
    started(m)
    hold(m, "red", 1.0)
    hold(m, "blue", 2.0)
    act(m, "lift_cover", 3.0)
    assert types(act(m, "confirm", 4.0)) == ["mission_confirmed", "mission_accomplished"]


def test_a_colour_pressed_while_closing_is_a_finger_not_a_pass():
    m = match(("red", "blue"))
    confirmed(m)
    assert hold(m, m.active, 11.0) == []
    assert "turn_passed" not in types(m.handle(InputEvent(MAPPING.players["red"], True, 12.0)))


# ---------------------------------------------------------------------- Kaboom rules 11, 12 and 13

def test_a_pause_stops_every_clock_until_its_last_reason_is_over():
    m = match(time_per_player=60, alert_seconds=30)
    a = started(m)
    act(m, "pause", 10.0)
    act(m, "pause", 11.0, reason="link")
    assert m.phase is Phase.PAUSED and running(m) == []
    assert refused(m, a, 12.0) == "the game is paused"
    assert act(m, "resume", 100.0) == [] and m.phase is Phase.PAUSED
    assert types(act(m, "resume", 200.0, reason="link")) == ["resumed"]
    assert running(m) == [a] and m.time_left(a, 200.0) == 50.0 and m.next_deadline() == 220.0


def test_alert_reports_are_taken_while_paused():
    m = match(time_per_player=600, alert_seconds=10)
    started(m)
    m.advance(10.0)
    act(m, "pause", 11.0)
    assert types(press(m, MAPPING.alert_flipped, 12.0)) == ["alert_flipped"]


def test_abandon_ends_the_mission_neither_won_nor_lost():
    m = match()
    started(m)
    e = only(act(m, "abandon", 5.0), "mission_abandoned")
    assert m.outcome == "abandoned" and m.finished and e.details["outcome"] == "abandoned"
    assert refused_act(m, "abandon", 6.0) == "the mission is over: set up a new one"


def test_the_protection_is_followed_even_when_nothing_is_judged():
    m = match()
    m.handle(InputEvent(MAPPING.cover, MAPPING.cover_open, 0.5))  # before the start
    started(m, 1.0)
    assert m.cover_open and types(act(m, "confirm", 2.0)) == ["mission_confirmed"]


PHASES = ("setup", "playing", "paused", "closing", "failed", "accomplished")


def in_phase(name: str) -> KaboomMatch:
    m = match(("red", "blue"), time_per_player=30, alert_seconds=10, alerts=3, alerts_face_up=1)
    if name == "setup":
        return m
    started(m)
    m.advance(10.0)  # one alert waiting
    act(m, "lift_cover", 10.0)
    if name == "paused":
        act(m, "pause", 10.0)
    elif name == "closing":
        act(m, "confirm", 10.0)
    elif name == "failed":
        m.advance(100.0)
    elif name == "accomplished":
        act(m, "confirm", 10.0)
        hold(m, "red", 10.0)
        hold(m, "blue", 10.0)
    return m


@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("name", [a for a in ACTIONS if a != "new_match"])  # the service's, asked of the match
def test_refusal_and_handling_agree(phase, name):
    """What `refusal` allows is carried out; what it refuses changes nothing and says the
    same reason (the service and the replay rely on this)."""
    m = in_phase(phase)
    params = {"pass": {"colour": m.active or "red"}, "join": {"colour": "green"},
              "leave": {"colour": "red"}}.get(name, {})
    why = m.refusal(Action(name, m.now, params))
    before = m.snapshot()
    events = act(m, name, m.now, **params)
    if why is None:
        assert events  # carried out, and told
    else:
        assert events == [] and m.snapshot() == before
    assert (name in before["actions"]) == (why is None)


KABOOM_EVENTS = ("player_joined", "player_left", "mission_started", "turn_passed", "recharge", "alert",
                 "alert_flipped", "alert_deactivated", "cover_lifted", "cover_lowered", "mission_confirmed",
                 "mission_accomplished", "mission_failed", "mission_abandoned", "paused", "resumed")


def test_every_event_type_is_declared():
    m = match(("red", "blue"), time_per_player=600, alert_seconds=10, alerts=2)
    seen = set()
    for step in (lambda: act(m, "join", 0, colour="green"), lambda: act(m, "leave", 0, colour="green"),
                 lambda: act(m, "confirm", 0), lambda: act(m, "start", 0), lambda: press(m, m.active, 1),
                 lambda: act(m, "recharge", 2), lambda: m.advance(10), lambda: act(m, "alert_flipped", 11),
                 lambda: act(m, "alert_deactivated", 11), lambda: act(m, "pause", 12), lambda: act(m, "resume", 13),
                 lambda: act(m, "lift_cover", 14), lambda: act(m, "lower_cover", 14), lambda: act(m, "abandon", 15)):
        seen |= set(types(step()))
    assert seen <= set(EVENT_TYPES)
    assert seen >= set(KABOOM_EVENTS) - {"mission_confirmed", "mission_accomplished", "mission_failed"}


def test_inputs_the_game_does_not_use_change_nothing():
    m = match()
    started(m)
    before = m.snapshot()
    assert m.handle(InputEvent("grid.r1c1", True, 1.0)) == []
    assert m.handle(InputEvent("slider.red", "3", 1.0)) == []
    assert m.snapshot(1.0)["players"] != before["players"]  # time passed
    assert m.snapshot(1.0)["active"] == before["active"]


def test_a_panel_without_a_players_colour_is_refused():
    from panel.games.kaboom.mapping import KaboomMapping

    small = KaboomMapping({"red": "alarm.red"}, "cross.ok", "cross.up", "lever.big", "down", ("up", "down"),
                          "cross.red", "cross.down", None)
    with pytest.raises(ValueError, match="no button for the blue penguin"):
        KaboomMatch(match(("red", "blue")).settings, small)


def test_an_unknown_action_is_refused_with_the_list():
    m = match()
    why = m.refusal(Action("fly", 0.0))
    assert why.param == "action" and "one of: join, leave, start, pass" in why.reason
    assert act(m, "fly", 0.0) == []
