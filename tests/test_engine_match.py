"""One test per house rule of docs/rules.md (the numbers below are its rules), driven through scenarios."""

from __future__ import annotations

import pytest

from panel.games.airlines.engine import Match, MatchSettings, Team
from panel.core.events import Action, InputEvent
from panel.core.layout_file import load_layout

from engine_helpers import SIMPLE, move, of_type, press, run, start, types


def complete_simple(n: int, t0: float = 1.0, step: float = 1.0, first: int = 0) -> list[dict]:
    """Presses that complete the next n cards of the SIMPLE deck, starting at card index `first`."""
    return [press(SIMPLE[first + i]["press"][0], t0 + i * step) for i in range(n)]


# ---------------------------------------------------------------- rule 5: timer

def test_turn_ends_when_the_default_30_second_timer_runs_out():
    out = run([start(0)], end=100)
    ended = of_type(out, "turn_ended")[0]
    assert ended["reason"] == "time" and ended["t"] == pytest.approx(30.0)
    assert ended["points"] == 0


def test_turn_seconds_setting_changes_the_timer():
    out = run([start(2)], end=100, turn_seconds=40)
    assert of_type(out, "turn_ended")[0]["t"] == pytest.approx(42.0)


def test_a_press_after_the_timer_ran_out_is_not_judged():
    out = run([start(0), press("grid.r1c1", 30.5)], end=31)
    assert "card_completed" not in types(out)


# ---------------------------------------------------------------- rules 6 and 7: time counters

def test_each_completed_card_grants_a_counter_while_the_pool_lasts():
    out = run([start(0)] + complete_simple(3), time_counters=2, end=5)
    granted = of_type(out, "counter_granted")
    assert [g["held"] for g in granted] == [1, 2]
    assert granted[-1]["pool"] == 0
    assert len(of_type(out, "card_completed")) == 3


def test_flip_spends_a_counter_and_fills_the_timer_again():
    out = run([start(0), press("grid.r1c1", 1), {"t": 20, "action": "flip"}], end=200)
    spent = of_type(out, "counter_spent")
    assert spent == [{"t": 20.0, "type": "counter_spent", "team": "Ice", "held": 0, "pool": 4}]
    assert of_type(out, "turn_ended")[0]["t"] == pytest.approx(50.0)


def test_flip_without_a_counter_does_nothing():
    out = run([start(0), {"t": 20, "action": "flip"}, press("cockpit.flip", 21)], end=200)
    assert "counter_spent" not in types(out)
    assert of_type(out, "turn_ended")[0]["t"] == pytest.approx(30.0)


def test_the_cockpit_flip_button_spends_a_counter_and_is_never_a_mistake():
    out = run([start(0), press("grid.r1c1", 1), press("cockpit.flip", 2), press("cockpit.flip", 3)], end=100)
    assert len(of_type(out, "counter_spent")) == 1
    assert "mistake" not in types(out)


def test_counters_return_to_the_pool_at_the_end_of_the_turn():
    out = run([start(0)] + complete_simple(2) + [start(40), press(SIMPLE[3]["press"][0], 41)], end=100)
    granted = of_type(out, "counter_granted")
    assert [(g["team"], g["held"], g["pool"]) for g in granted] == [("Ice", 1, 3), ("Ice", 2, 2), ("Snow", 1, 3)]


# ---------------------------------------------------------------- rules 8 and 9: turn endings

def test_the_fifth_completed_card_ends_the_turn():
    out = run([start(0)] + complete_simple(6), end=10)
    ended = of_type(out, "turn_ended")
    assert len(ended) == 1 and ended[0]["reason"] == "five_cards" and ended[0]["t"] == 5.0
    assert len(of_type(out, "card_completed")) == 5


def test_a_second_mistake_ends_the_turn():
    out = run([start(0), press("alarm.red", 1), press("alarm.green", 2), press("grid.r1c1", 3)], end=10)
    ended = of_type(out, "turn_ended")[0]
    assert ended["reason"] == "mistakes" and ended["t"] == 2.0 and ended["points"] == 0
    assert "card_completed" not in types(out)


def test_nothing_is_judged_between_turns():
    out = run([start(0), press("alarm.red", 1), press("alarm.green", 2), press("alarm.black", 3),
               press("grid.r1c1", 4), move("slider.red", 4, 5)], end=20)
    after = [e for e in out["events"] if e["t"] > 2.0]
    assert after == []


# ---------------------------------------------------------------- rules 12, 15 and 16: mistakes

def test_pressing_a_button_not_on_a_simple_card_is_a_mistake_and_sticks():
    out = run([start(0), press("alarm.red", 1)], end=5)
    m = of_type(out, "mistake")
    assert len(m) == 1 and m[0]["control"] == "alarm.red" and m[0]["stuck"] is True


def test_pressing_a_card_button_twice_is_no_mistake():
    cards = [{"kind": "simple", "press": ["grid.r1c1", "grid.r1c2"]}] + SIMPLE
    out = run([start(0), press("grid.r1c1", 1), press("grid.r1c1", 2), press("grid.r1c2", 3)], cards=cards, end=5)
    assert "mistake" not in types(out)
    assert of_type(out, "card_completed")[0]["t"] == 3.0


def test_pressing_the_stuck_control_again_is_no_new_mistake():
    out = run([start(0), press("alarm.red", 1), press("alarm.red", 2), press("alarm.red", 3)], end=5)
    assert len(of_type(out, "mistake")) == 1
    assert "turn_ended" not in types(out)


def test_moving_a_token_not_on_the_card_is_a_mistake_once_it_settles():
    out = run([start(0), move("slider.blue", 2, 1.0)], end=5)
    m = of_type(out, "mistake")
    assert len(m) == 1 and m[0]["control"] == "slider.blue" and m[0]["t"] == pytest.approx(1.5)


def test_a_token_moved_and_put_back_within_the_settle_time_is_no_mistake():
    out = run([start(0), move("slider.blue", 2, 1.0), move("slider.blue", 0, 1.3)], end=5)
    assert "mistake" not in types(out)


def test_putting_a_token_back_is_never_a_mistake_and_each_token_errs_once_per_card():
    out = run([start(0), move("switch.left", "up", 1.0), move("switch.left", "down", 2.0),
               move("switch.left", "up", 3.0)], end=5)
    assert [m["control"] for m in of_type(out, "mistake")] == ["switch.left"]


def test_settle_ms_setting_changes_when_a_move_counts():
    out = run([start(0), move("slider.blue", 2, 1.0), move("slider.blue", 0, 1.3)], end=5, settle_ms=200)
    assert of_type(out, "mistake")[0]["t"] == pytest.approx(1.2)


def test_setting_a_card_token_to_a_wrong_position_is_no_mistake():
    cards = [{"kind": "simple", "set": {"round_lever.blue": 2}}] + SIMPLE
    out = run([start(0), move("round_lever.blue", 0, 1), move("round_lever.blue", 2, 2)], cards=cards, end=5)
    assert "mistake" not in types(out)
    assert of_type(out, "card_completed")[0]["t"] == pytest.approx(2.5)


SEQ = [{"kind": "sequence", "section": "cross", "steps": ["up", "up", "down", "right"]}] + SIMPLE


def seq_presses(steps, t0, ok=True):
    out = [press(f"cross.{s}", t0 + 0.1 * i) for i, s in enumerate(steps)]
    if ok:
        out.append(press("cross.ok", t0 + 0.1 * len(steps)))
    return out


def test_a_wrong_sequence_is_a_mistake_on_ok_and_the_entry_starts_over():
    inputs = [start(0)] + seq_presses(["up", "down"], 1) + seq_presses(["up", "up", "down", "right"], 2)
    out = run(inputs, cards=SEQ, end=5)
    m = of_type(out, "mistake")
    assert len(m) == 1 and m[0]["control"] == "cross.ok" and m[0]["entered"] == ["cross.up", "cross.down"]
    assert of_type(out, "card_completed")[0]["t"] == pytest.approx(2.4)


def test_a_button_outside_the_sequence_section_is_a_mistake():
    out = run([start(0), press("grid.r1c1", 1)], cards=SEQ, end=5)
    assert of_type(out, "mistake")[0]["control"] == "grid.r1c1"


def test_the_big_red_button_in_the_cross_spoils_the_sequence():
    inputs = [start(0)] + [press("cross.red", 0.5)] + seq_presses(["up", "up", "down", "right"], 1)
    out = run(inputs, cards=SEQ, end=5)
    assert of_type(out, "mistake")[0]["control"] == "cross.ok"


def test_sequence_card_carries_its_colour_sequence():
    out = run([start(0)], cards=SEQ, end=1)
    assert of_type(out, "card_drawn")[0]["card"]["colours"] == ["blue", "blue", "white", "black"]


def test_a_token_moved_on_a_sequence_card_is_a_mistake():
    out = run([start(0), move("lever.big", "down", 1)], cards=SEQ, end=5)
    assert of_type(out, "mistake")[0]["control"] == "lever.big"


# ---------------------------------------------------------------- rule 11: completion

def test_a_token_already_at_its_target_counts():
    cards = [{"kind": "simple", "press": ["alarm.red"], "set": {"round_lever.red": 1}}] + SIMPLE
    out = run([start(0), press("alarm.red", 1)], cards=cards, end=5)  # round levers start at 1
    assert of_type(out, "card_completed")[0]["t"] == 1.0


def test_completion_waits_for_the_token_to_settle():
    cards = [{"kind": "simple", "press": ["alarm.red"], "set": {"slider.red": 3}}] + SIMPLE
    out = run([start(0), move("slider.red", 3, 1.0), press("alarm.red", 1.2)], cards=cards, end=5)
    assert of_type(out, "card_completed")[0]["t"] == pytest.approx(1.5)


def test_a_token_that_leaves_its_target_before_settling_does_not_count():
    cards = [{"kind": "simple", "set": {"slider.red": 3}}] + SIMPLE
    out = run([start(0), move("slider.red", 3, 1.0), move("slider.red", 4, 1.2)], cards=cards, end=5)
    assert "card_completed" not in types(out)


def test_presses_made_before_the_card_was_drawn_do_not_count():
    cards = [{"kind": "simple", "press": ["grid.r1c1"]}, {"kind": "simple", "press": ["grid.r1c1", "grid.r1c2"]}]
    out = run([start(0), press("grid.r1c1", 1), press("grid.r1c2", 2)], cards=cards + SIMPLE[4:], end=5)
    assert len(of_type(out, "card_completed")) == 1


# ---------------------------------------------------------------- rules 8, 10, 13 and 14: drawing

def test_the_card_in_play_when_a_turn_ends_is_discarded():
    out = run([start(0), start(40)], end=45)
    drawn = [e["number"] for e in of_type(out, "card_drawn")]
    assert drawn == [1, 2]


def test_a_card_that_would_score_for_nothing_goes_to_the_bottom():
    cards = [{"kind": "simple", "set": {"round_lever.red": 1}}] + SIMPLE
    out = run([start(0)], cards=cards, end=1)
    drawn = of_type(out, "card_drawn")[0]
    assert drawn["number"] == 2 and drawn["skipped"] == [1]


def test_with_touch_sensors_such_a_card_is_dealt_and_needs_a_touch():
    cards = [{"kind": "simple", "set": {"round_lever.red": 1}}] + SIMPLE
    out = run([start(0), {"t": 2, "action": "touch", "control": "round_lever.red"}], cards=cards, end=3,
              touch_sensors=True)
    assert "skipped" not in of_type(out, "card_drawn")[0]
    assert of_type(out, "card_completed")[0]["t"] == 2.0


def test_the_deck_is_reshuffled_when_it_runs_out():
    cards = SIMPLE[:2]
    out = run([start(0), press("grid.r1c1", 1), press("grid.r1c2", 2)], cards=cards, end=3)
    drawn = of_type(out, "card_drawn")
    assert len(drawn) == 3 and drawn[2].get("reshuffled") is True and "reshuffled" not in drawn[1]


# ---------------------------------------------------------------- rules 19, 20 and 21: challenges

def test_a_challenge_pauses_the_timer_until_the_ruling():
    out = run([start(0), {"t": 10, "action": "challenge", "team": "Snow"},
               {"t": 50, "action": "rule", "upheld": True}], end=200)
    assert of_type(out, "turn_ended")[0]["t"] == pytest.approx(70.0)
    assert of_type(out, "challenge")[0]["time_left"] == pytest.approx(20.0)


def test_challenge_upheld_on_a_completed_card_removes_it_and_the_current_card():
    inputs = [start(0)] + complete_simple(2) + [{"t": 5, "action": "challenge", "team": "Snow", "card": 0},
                                                 {"t": 6, "action": "rule", "upheld": True}]
    out = run(inputs, end=100)
    ruled = of_type(out, "challenge_ruled")[0]
    assert ruled["upheld"] and ruled["discarded"] == [1, 3] and ruled["completed"] == 1
    assert of_type(out, "turn_ended")[0]["points"] == 1
    assert of_type(out, "card_drawn")[-1]["number"] == 4


def test_challenge_upheld_says_the_time_counters_the_crew_keeps():
    """Rule 20: the counters earned stay with the crew; the ruling says how many, so the room
    does not hand them back."""
    inputs = [start(0)] + complete_simple(2) + [{"t": 5, "action": "challenge", "team": "Snow", "card": 0},
                                                 {"t": 6, "action": "rule", "upheld": True}]
    out = run(inputs, end=100)
    held = of_type(out, "counter_granted")[-1]["held"]
    assert held == 2 and of_type(out, "challenge_ruled")[0]["counters_held"] == held


def test_challenge_rejected_completes_the_current_card_with_its_counter():
    inputs = [start(0), {"t": 5, "action": "challenge", "team": "Snow"}, {"t": 6, "action": "rule", "upheld": False}]
    out = run(inputs, end=100)
    assert of_type(out, "card_completed")[0]["by"] == "challenge"
    assert of_type(out, "counter_granted")[0]["held"] == 1
    assert of_type(out, "turn_ended")[0]["points"] == 1


def test_inputs_during_a_challenge_are_not_judged():
    inputs = [start(0), {"t": 5, "action": "challenge", "team": "Snow"}, press("alarm.red", 6),
              press("grid.r1c1", 7)]
    out = run(inputs, end=20)
    assert "mistake" not in types(out) and "card_completed" not in types(out)


# ---------------------------------------------------------------- rule 22: scoring

def test_five_cards_with_two_counters_left_scores_seven():
    # Four cards bring four counters; three are spent; the fifth card brings one back.
    flips = [{"t": 5 + i * 0.1, "action": "flip"} for i in range(3)]
    inputs = [start(0)] + complete_simple(4) + flips + [press(SIMPLE[4]["press"][0], 7)]
    out = run(inputs, end=10)
    assert of_type(out, "counter_granted")[-1]["held"] == 2
    ended = of_type(out, "turn_ended")[0]
    assert ended["reason"] == "five_cards" and ended["counters"] == 2 and ended["points"] == 7
    assert out["scores"]["Ice"] == 7


def test_counters_score_nothing_when_time_runs_out():
    out = run([start(0)] + complete_simple(3), end=100)
    ended = of_type(out, "turn_ended")[0]
    assert ended["counters"] == 3 and ended["points"] == 3


# ---------------------------------------------------------------- rule 23: competitive rounds

def test_roles_rotate_inside_each_team_every_round():
    out = run([start(0), start(40), start(80), start(120)], end=200)
    started = of_type(out, "turn_started")
    assert [(s["team"], s["round"], s["tower"]) for s in started] == [
        ("Ice", 1, "ann"), ("Snow", 1, "cid"), ("Ice", 2, "bob"), ("Snow", 2, "dee")]
    assert [r["round"] for r in of_type(out, "round_ended")] == [1, 2]


def test_the_target_points_end_waits_for_the_end_of_the_round():
    deck = SIMPLE * 3
    inputs = [start(0)] + complete_simple(5, t0=1, first=0) + [start(20)]
    out = run(inputs, cards=deck, target_points=5, end=100)
    assert of_type(out, "turn_ended")[0]["points"] >= 5
    assert "game_ended" in types(out)
    ended = of_type(out, "game_ended")[0]
    assert ended["t"] == pytest.approx(50.0)  # after Snow's turn ran out, not after Ice's
    assert out["winner"] == ["Ice"] and out["finished"]


def test_a_tie_shares_the_win():
    inputs = [start(0), start(40)]
    out = run(inputs, target_points=1, end=100)
    assert not out["finished"]  # nobody reached 1 point
    inputs = [start(0), press("grid.r1c1", 1), start(40), press("grid.r1c3", 41)]
    out = run(inputs, target_points=1, end=100)
    assert out["finished"] and out["winner"] == ["Ice", "Snow"]


# ---------------------------------------------------------------- rule 24: cooperative

def test_cooperative_match_plays_the_tables_rounds_and_reports_tier_and_outcome():
    crew = [{"name": "Penguins", "players": ["ann", "bob", "cid"]}]
    inputs = [start(i * 40.0) for i in range(6)]
    inputs.insert(1, press("grid.r1c1", 1))
    out = run(inputs, teams=crew, mode="cooperative", end=300)
    started = of_type(out, "turn_started")
    assert [s["tower"] for s in started] == ["ann", "bob", "cid", "ann", "bob", "cid"]
    assert out["finished"] and out["winner"] is None
    assert out["scores"] == {"Penguins": 1}
    assert out["tier"] == "Rookie" and out["outcome"].startswith("That was a close one!")


# ---------------------------------------------------------------- rule 3: expansion

EXP = [{"kind": "coordinates", "section": "roman", "steps": ["A1", "C3", "D1"]},
       {"kind": "activation", "word": "FNAP"}] + SIMPLE


def test_expansion_coordinate_and_activation_cards_are_judged():
    inputs = [start(0), press("roman.a1", 1), press("roman.c3", 1.1), press("roman.d1", 1.2), press("roman.ok", 1.3),
              press("keypad.f", 2), press("keypad.n", 2.1), press("keypad.a", 2.2), press("keypad.p", 2.3),
              press("keypad.ok", 2.4)]
    out = run(inputs, cards=EXP, expansion=True, end=5)
    assert [c["number"] for c in of_type(out, "card_completed")] == [1, 2]
    drawn = of_type(out, "card_drawn")
    assert drawn[0]["card"]["colours"] == ["white", "red", "blue"]
    assert drawn[1]["card"]["colours"] == ["blue", "white", "red", "blue"]
    assert drawn[0]["card"]["expansion"] is True


def test_a_misspelt_activation_word_is_a_mistake():
    inputs = [start(0), press("roman.a1", 1), press("roman.c3", 1.1), press("roman.d1", 1.2), press("roman.ok", 1.3),
              press("keypad.f", 2), press("keypad.a", 2.1), press("keypad.ok", 2.4)]
    out = run(inputs, cards=EXP, expansion=True, end=5)
    assert of_type(out, "mistake")[0]["control"] == "keypad.ok"


# ---------------------------------------------------------------- rule 18: pauses, and the API

def test_pause_and_resume_stop_the_timer():
    out = run([start(0), {"t": 10, "action": "pause"}, {"t": 100, "action": "resume"}], end=200)
    assert of_type(out, "turn_ended")[0]["t"] == pytest.approx(120.0)


def test_snapshot_and_next_deadline():
    layout = load_layout()
    settings = MatchSettings(teams=(Team("A", ("a", "b")), Team("B", ("c", "d"))), seed=1)
    from panel.games.airlines.cards import Card

    m = Match(settings, layout, [Card("simple", press=("grid.r1c1",))] * 3)
    assert m.next_deadline() is None
    m.handle(Action("start_turn", 10.0))
    assert m.next_deadline() == 40.0
    snap = m.snapshot(15.0)
    assert snap["phase"] == "in_turn" and snap["time_left"] == 25.0 and snap["team"] == "A"
    assert snap["roles"] == {"tower": "a", "crew": ["b"]}
    m.handle(InputEvent("slider.red", "2", 16.0))
    assert m.next_deadline() == 16.5
    assert m.advance(16.5)[0].type == "mistake"
    assert m.snapshot()["stuck"] == "slider.red"


def test_a_layout_for_the_wrong_side_is_refused():
    with pytest.raises(ValueError, match="gray"):
        Match(MatchSettings(side="gray"), load_layout(side="blue"))


# ---------------------------------------------------------------- rule 22: what a turn's result says

def test_a_turns_end_tells_its_points_bonus_and_time_left():
    inputs = [start(0)] + complete_simple(5, t0=1) + [start(40)] + complete_simple(1, t0=41, first=5) + [
        press("alarm.red", 42), press("alarm.yellow", 43)]
    out = run(inputs, end=100)
    five, slips = of_type(out, "turn_ended")
    assert (five["points"], five["bonus"], five["completed"], five["time_left"]) == (9, 4, 5, 25.0)
    assert (slips["points"], slips["bonus"], slips["completed"], slips["mistakes"], slips["time_left"]) == \
        (1, 0, 1, 2, 27.0)


def test_the_snapshot_keeps_the_last_turn_and_its_round_for_the_pages():
    layout = load_layout()
    from panel.games.airlines.cards import Card
    from panel.games.airlines.game import GAME

    m = Match(MatchSettings(teams=(Team("A", ("a", "b")), Team("B", ("c", "d"))), seed=1), layout,
              [Card("simple", press=(f"grid.r1c{i}",)) for i in (1, 2, 3, 4)] * 3)
    m.handle(Action("start_turn", 0.0))
    m.handle(InputEvent("grid.r1c1", True, 1.0))
    snap = m.snapshot()
    assert snap["completed_cards"] == [1] and snap["last_turn"] is None and snap["round_turns"] == []
    m.handle(InputEvent("alarm.red", True, 2.0))
    m.handle(InputEvent("alarm.black", True, 3.0))
    snap = m.snapshot()
    assert snap["completed_cards"] == []  # no turn in progress
    last = snap["last_turn"]
    assert (last["team"], last["reason"], last["completed"], last["mistakes"], last["points"]) == \
        ("A", "mistakes", [1], 2, 1)
    assert last["stuck"] == "alarm.red"  # the engine says the id; the presentation names it:
    shown = GAME.present(dict(snap), m, None)["last_turn"]
    assert shown["stuck"] == "alarm.red" and shown["stuck_name"] == layout.plain_name("alarm.red")
    assert snap["round_turns"] == [last] and snap["round_left"] == ["B"]
    m.handle(Action("start_turn", 10.0))
    m.advance(40.0)
    snap = m.snapshot()
    assert [t["team"] for t in snap["round_turns"]] == ["A", "B"] and snap["round"] == 2
    assert snap["round_left"] == [] and snap["turns_played"] == {"A": 1, "B": 1}


# ---------------------------------------------------------------- rule 23: teams without named players

def test_a_team_may_leave_its_players_unnamed_and_has_no_named_tower():
    teams = [{"name": "Blue team", "players": []}, {"name": "Red team", "players": []}]
    out = run([start(0)], teams=teams, end=10)
    assert of_type(out, "turn_started")[0]["tower"] is None
    assert MatchSettings().teams == (Team("Blue team"), Team("Red team"))  # walk-up's teams


# ---------------------------------------------------------------- rule 25: ending a match early

def end(t, when=None):
    return {"t": t, "action": "end", **({"when": when} if when else {})}


def test_ending_now_leaves_the_turn_in_progress_unscored():
    out = run([start(0)] + complete_simple(1, t0=1) + [start(40)] + complete_simple(2, t0=41, first=2) + [end(45)],
              end=100)
    game = of_type(out, "game_ended")[0]
    assert game["reason"] == "ended" and game["scores"] == {"Ice": 1, "Snow": 0}
    assert game["unscored"] == {"team": "Snow", "round": 1, "completed": 2, "mistakes": 0}
    assert out["winner"] == ["Ice"] and len(of_type(out, "turn_ended")) == 1


def test_ending_at_the_rounds_end_plays_the_turn_and_the_round_out():
    inputs = [start(0)] + complete_simple(1, t0=1) + [end(5, "round"), end(6, "round"), start(40)] + \
        complete_simple(2, t0=41, first=2) + [start(80)]
    out = run(inputs, end=200)
    # Asked twice, the end is refused: it already comes; START after the round: the match is over.
    assert [r["action"] for r in out["refused"]] == ["end", "start_turn"]
    assert "already ends" in out["refused"][0]["reason"] and "over" in out["refused"][1]["reason"]
    game = of_type(out, "game_ended")[0]
    assert game["t"] == pytest.approx(70.0)  # Snow's turn ran out: the round is over
    assert game["reason"] == "ended" and game["unscored"] is None
    assert game["scores"] == {"Ice": 1, "Snow": 2} and out["winner"] == ["Snow"]
    assert len(of_type(out, "turn_started")) == 2


def test_the_end_choices_are_the_engines():
    layout = load_layout()
    from panel.games.airlines.cards import Card

    m = Match(MatchSettings(teams=(Team("A", ("a", "b")), Team("B", ("c", "d"))), seed=1), layout,
              [Card("simple", press=("grid.r1c1",))] * 3)
    assert m.allowed()["end"] == {"when": ["now"]}  # nobody has played: the round is whole
    assert "round" in str(m.refusal(Action("end", 0.0, {"when": "round"})))
    m.handle(Action("start_turn", 0.0))
    assert m.allowed()["end"] == {"when": ["now", "round"]}
    m.handle(Action("end", 1.0, {"when": "round"}))
    snap = m.snapshot()
    assert snap["ending"]
    assert snap["actions"]["end"] == {"when": ["now"]} and snap["round_left"] == ["A", "B"]
    assert str(m.refusal(Action("end", 1.0, {"when": "later"}))).startswith("when: must be")


def test_a_cooperative_match_ended_at_the_rounds_end_finishes_the_turn_and_lands():
    crew = [{"name": "Penguins", "players": ["ann", "bob", "cid"]}]
    out = run([start(0), press("grid.r1c1", 1), end(2, "round")], teams=crew, mode="cooperative", end=100)
    game = of_type(out, "game_ended")[0]
    assert game["t"] == pytest.approx(30.0) and game["reason"] == "ended" and game["unscored"] is None
    assert game["scores"] == {"Penguins": 1} and out["tier"] is not None
