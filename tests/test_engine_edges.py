"""Edge cases of the rules engine found in review: challenges meeting pauses and settling
tokens, the skip rule at the end of the deck, moves made while nothing is judged, ties."""

from __future__ import annotations

import pytest

from engine_helpers import SIMPLE, move, of_type, press, run, scenario, start, types
from panel.core.errors import ConfigError

LEVER_AT_TARGET = {"kind": "simple", "set": {"round_lever.red": 1}}  # round levers start at 1: scores for nothing
SLIDER_CARD = {"kind": "simple", "set": {"slider.red": 3}}


def challenge(t, card="current"):
    return {"t": t, "action": "challenge", "team": "Snow", "card": card}


def rule(t, upheld):
    return {"t": t, "action": "rule", "upheld": upheld}


# ---------------------------------------------------------------- challenges

def test_rejected_challenge_counts_one_card_when_a_card_token_settled_during_the_pause():
    # The slider reaches its target at 1.0, the challenge comes at 1.2, it settles at 1.5 (paused).
    cards = [SLIDER_CARD] + SIMPLE
    out = run([start(0), move("slider.red", 3, 1.0), challenge(1.2), rule(2.0, False)], cards=cards, end=3)
    assert [c["number"] for c in of_type(out, "card_completed")] == [1]
    assert of_type(out, "card_drawn")[-1]["number"] == 2
    assert [g["held"] for g in of_type(out, "counter_granted")] == [1]


@pytest.mark.parametrize("other", ["pause", "link"])
def test_upheld_challenge_ruled_while_paused_for_another_reason_still_deals_a_card(other):
    inputs = [start(0), challenge(5), {"t": 6, "action": "pause", "reason": other}, rule(7, True),
              {"t": 8, "action": "resume", "reason": other}, press(SIMPLE[1]["press"][0], 9)]
    out = run(inputs, end=10)
    assert [d["number"] for d in of_type(out, "card_drawn")] == [1, 2, 3]
    assert [c["number"] for c in of_type(out, "card_completed")] == [2]


def test_rejected_challenge_ruled_while_paused_for_another_reason_completes_the_card():
    inputs = [start(0), challenge(5), {"t": 6, "action": "pause"}, rule(7, False), {"t": 8, "action": "resume"}]
    out = run(inputs, end=100)
    assert [(c["number"], c["by"]) for c in of_type(out, "card_completed")] == [(1, "challenge")]
    assert of_type(out, "turn_ended")[0]["points"] == 1


def test_a_resume_action_cannot_end_a_challenge_only_a_ruling_can():
    out = run([start(0), challenge(5), {"t": 6, "action": "resume"}, press("alarm.red", 7)], end=8)
    assert "resumed" not in types(out) and "mistake" not in types(out)
    assert [r["reason"] for r in out["refused"]] == ["a challenge is open: rule on it to resume"]
    # Naming the challenge's own pause is a mistake of the script, found before playing (rule 18).
    with pytest.raises(ConfigError, match="a challenge stops the timer"):
        scenario([start(0), challenge(5), {"t": 6, "action": "resume", "reason": "challenge"}])


def test_a_fifth_card_by_rejected_challenge_ends_the_turn_with_its_bonus():
    inputs = [start(0)] + [press(SIMPLE[i]["press"][0], 1 + i) for i in range(4)] + [challenge(6), rule(7, False)]
    out = run(inputs, end=8)
    ended = of_type(out, "turn_ended")[0]
    assert ended["reason"] == "five_cards" and ended["t"] == 7.0 and ended["points"] == 5 + 4


# ---------------------------------------------------------------- the skip rule at the end of the deck

def test_a_skippable_card_left_alone_in_the_pile_brings_the_used_cards_back_instead_of_a_free_point():
    cards = [SIMPLE[0], LEVER_AT_TARGET]
    out = run([start(0), press(SIMPLE[0]["press"][0], 1)], cards=cards, end=2)
    assert [c["number"] for c in of_type(out, "card_completed")] == [1]
    last = of_type(out, "card_drawn")[-1]
    assert last["number"] == 1 and last["skipped"] == [2] and last["reshuffled"] is True


def test_a_deck_of_only_skippable_cards_deals_one_that_must_be_worked_for():
    out = run([start(0)], cards=[LEVER_AT_TARGET], end=5)
    assert "card_completed" not in types(out)  # was: five free cards and four counters at t=0
    assert of_type(out, "card_drawn")[0]["number"] == 1
    out = run([start(0), move("round_lever.red", 0, 1), move("round_lever.red", 1, 2)], cards=[LEVER_AT_TARGET],
              end=3)
    assert [c["t"] for c in of_type(out, "card_completed")] == [pytest.approx(2.5)]
    assert "mistake" not in types(out)


# ---------------------------------------------------------------- moves made while nothing is judged

def test_a_token_reset_between_turns_that_settles_after_the_start_is_no_mistake():
    # The crew puts the slider back just before pressing start; it settles 0.3 s into the turn.
    out = run([move("slider.blue", 2, 9.8), start(10)], end=12)
    assert "mistake" not in types(out)


def test_the_last_teams_move_settling_in_the_next_turn_is_not_the_next_teams_mistake():
    out = run([start(0), move("slider.blue", 2, 29.8), start(30.1)], end=32)
    assert "mistake" not in types(out)


def test_a_token_moved_in_turn_that_settles_during_a_pause_is_judged_on_resume():
    out = run([start(0), move("slider.blue", 2, 1.0), {"t": 1.2, "action": "pause"},
               {"t": 5, "action": "resume"}], end=6)
    m = of_type(out, "mistake")
    assert [(x["control"], x["t"]) for x in m] == [("slider.blue", 5.0)]


def test_a_token_moved_during_a_pause_is_no_mistake_after_the_resume():
    # Whether it settles before or after the resume, a move made while paused is not judged.
    for resume_at in (2.0, 1.2):
        out = run([start(0), {"t": 1, "action": "pause"}, move("slider.blue", 2, 1.1),
                   {"t": resume_at, "action": "resume"}], end=5)
        assert "mistake" not in types(out), resume_at


def test_a_move_during_a_challenge_is_not_a_mistake_on_the_card_dealt_by_the_ruling():
    out = run([start(0), challenge(1), move("slider.blue", 2, 1.9), rule(2, True)], end=5)
    assert "mistake" not in types(out)


# ---------------------------------------------------------------- ties and guards

def test_a_token_settling_exactly_when_the_timer_runs_out_counts():
    cards = [SLIDER_CARD] + SIMPLE
    out = run([start(0), move("slider.red", 3, 29.5)], cards=cards, end=31)
    assert of_type(out, "card_completed")[0]["t"] == 30.0
    assert of_type(out, "turn_ended")[0]["points"] == 1


def test_flip_while_paused_and_start_turn_when_finished_do_nothing():
    out = run([start(0), press("grid.r1c1", 1), {"t": 2, "action": "pause"}, {"t": 3, "action": "flip"}], end=4)
    assert "counter_spent" not in types(out)
    out = run([start(0), press("grid.r1c1", 1), start(40), {"t": 80, "action": "start_turn"}], target_points=1, end=100)
    assert out["finished"] and types(out).count("turn_started") == 2


def test_a_settle_computed_to_land_on_the_deadline_lands_on_it():
    # The turn starts at 0.4 (its timer runs out at 30.4); the token moves at 30.1 and
    # 30.1 + 0.3 is 30.400000000000002 in floats: the card still completes, as the rule says.
    cards = [{"kind": "simple", "set": {"slider.red": 3}}] + SIMPLE
    out = run([start(0.4), move("slider.red", 3, 30.1)], cards=cards, settle_ms=300, end=40)
    done = of_type(out, "card_completed")
    assert [c["t"] for c in done] == [30.4]
    assert of_type(out, "turn_ended")[0]["points"] == 1
