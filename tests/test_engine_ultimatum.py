"""The Penguin Ultimatum scorekeeper's rules, one test (or a few) per house rule of
docs/ultimatum.md ("Ultimatum rule N"), and the rulebook's scoring examples as it writes
them: the three examples of who gets the entertainer card, and Lea's end scoring."""

from __future__ import annotations

import pytest

from panel.core.errors import ConfigError
from panel.core.events import Action, InputEvent
from panel.games.ultimatum.engine import Phase, UltimatumGame, malformed
from panel.games.ultimatum.scoring import entertainer_to, final_scoring, line, winner
from panel.games.ultimatum.settings import UltimatumSettings

LEA_MAX_ANA = [{"player": "red", "name": "Lea", "form": "dance"}, {"player": "green", "name": "Max", "form": "music"},
               {"player": "blue", "name": "Ana", "form": "juggling"}]


def game(players=LEA_MAX_ANA) -> UltimatumGame:
    return UltimatumGame(UltimatumSettings.from_dict({"players": players}))


def enter(g: UltimatumGame, name: str, /, **params):
    """The entry's events, or the reason it is refused (in English)."""
    action = Action(name, 1.0, params)
    why = g.refusal(action)
    if why is not None:
        assert g.handle(action) == []  # Ultimatum rule 12: refused, it changes nothing
        return why.text()
    return [e.type for e in g.handle(action)]


def performance(g, colour, form, **points):
    return enter(g, "performance", colour=colour, form=form, points=points)


# ---------------------------------------------------------------- Ultimatum rule 1: the players

def test_two_to_four_players_each_a_colour_and_their_own_performance_card():
    g = game([])
    assert g.phase is Phase.SETUP
    assert enter(g, "add_player", player="red", form="dance", name="Lea") == ["player_added"]
    assert "at least 2 players" in performance(g, "red", "dance", red=3)
    assert "two players have the red pieces" in enter(g, "add_player", player="red", form="music")
    assert "dance performance card" in enter(g, "add_player", player="green", form="dance")
    for colour, form in (("green", "music"), ("blue", "juggling"), ("yellow", "acrobatics")):
        assert enter(g, "add_player", player=colour, form=form) == ["player_added"]
    assert enter(g, "add_player", player="red", form="music") == \
        "player: 4 players already: Penguin Ultimatum is for 2 to 4 players"  # a fifth player


def test_players_sit_down_only_before_the_first_performance():
    g = game()
    performance(g, "red", "dance", red=3)
    assert "the game has started" in enter(g, "add_player", player="yellow", form="acrobatics")


def test_the_set_up_is_checked_every_problem_at_once():
    with pytest.raises(ConfigError) as e:
        UltimatumSettings.from_dict({"players": [{"player": "pink", "form": "dance"},
                                                 {"player": "red", "form": "tap"}, 3], "seats": 4})
    keys = [p.key for p in e.value.problems]
    assert keys == ["match.seats", "match.players[0].player", "match.players[1].form", "match.players[2]"]
    with pytest.raises(ConfigError):
        UltimatumSettings.from_dict({"players": [{"player": c, "form": "dance"} for c in "abcde"]})


# ---------------------------------------------------------------- Ultimatum rule 2: sixteen cards, one of each

def test_each_entertainer_performs_once():
    g = game()
    assert performance(g, "red", "dance", red=9, green=6) == ["performance", "entertainer_awarded"]
    assert "has already performed" in performance(g, "red", "dance", red=1)
    assert performance(g, "red", "music", red=1) == ["performance", "entertainer_awarded"]
    assert len(g.snapshot()["pile"]) == 14


# ---------------------------------------------------------------- Ultimatum rule 3: 10 points each, shown as they are

def test_every_player_starts_at_ten_and_scores_are_shown_as_they_are():
    g = game()
    assert g.snapshot()["scores"] == {"red": 10, "green": 10, "blue": 10}
    enter(g, "penalty", player="red", points=14)
    performance(g, "blue", "music", green=95)
    assert g.snapshot()["scores"] == {"red": -4, "green": 105, "blue": 10}


# ---------------------------------------------------------------- Ultimatum rule 4: a performance

def test_a_performance_adds_each_players_points_and_a_player_left_out_got_zero():
    g = game()
    performance(g, "green", "acrobatics", red=4, blue=7)
    assert g.snapshot()["scores"] == {"red": 14, "green": 10, "blue": 17}
    assert g.snapshot()["entries"][-1]["points"] == {"red": 4, "green": 0, "blue": 7}


def test_a_performance_naming_a_player_not_in_the_game_is_refused():
    g = game()
    assert performance(g, "red", "dance", red=2, yellow=5) == "points: no player has the yellow pieces"
    assert g.snapshot()["scores"] == {"red": 10, "green": 10, "blue": 10}


@pytest.mark.parametrize("params, why", [
    ({"colour": "pink", "form": "dance", "points": {"red": 1}}, "'pink' is not an entertainer's colour"),
    ({"colour": "red", "form": "tap", "points": {"red": 1}}, "'tap' is not a form"),
    ({"colour": "red", "form": "dance", "points": {"red": -1}}, "not a number of points"),
    ({"colour": "red", "form": "dance", "points": {"red": 1000}}, "0 to 999"),
    ({"colour": "red", "form": "dance", "points": {"red": True}}, "not a number of points"),
    ({"colour": "red", "form": "dance", "points": {}}, "each player's points"),
    ({"colour": "red", "form": "dance"}, "points: missing"),
])
def test_a_malformed_performance_is_said_whatever_the_moment(params, why):
    assert why in malformed(Action("performance", 0.0, params)).text()


# ---------------------------------------------------------------- Ultimatum rule 5: who gets the entertainer card

def test_the_rulebooks_first_example_green_gets_the_entertainer():
    """Red receives 9 points, Green receives 6 points, Blue receives 0 points: Green gets the entertainer."""
    assert entertainer_to({"red": 9, "green": 6, "blue": 0}) == ("green", "fewest")
    g = game()
    assert performance(g, "red", "dance", red=9, green=6, blue=0) == ["performance", "entertainer_awarded"]
    assert g.snapshot()["players"][1]["cards"] == ["red-dance"]


def test_the_rulebooks_second_example_the_entertainer_is_removed_from_the_game():
    """Red receives 9 points, Green receives 6 points, Blue receives 6 points: The entertainer is removed from the game!"""
    assert entertainer_to({"red": 9, "green": 6, "blue": 6}) == (None, "tied")
    g = game()
    assert performance(g, "red", "dance", red=9, green=6, blue=6) == ["performance", "entertainer_out"]
    assert g.snapshot()["out"] == ["red-dance"] and all(not p["cards"] for p in g.snapshot()["players"])


def test_the_rulebooks_third_example_red_gets_the_entertainer():
    """Red receives 9 points, Green receives 0 points, Blue receives 0 points: Red gets the entertainer."""
    assert entertainer_to({"red": 9, "green": 0, "blue": 0}) == ("red", "fewest")
    g = game()
    performance(g, "red", "dance", red=9, green=0, blue=0)
    assert g.snapshot()["players"][0]["cards"] == ["red-dance"]


def test_nobody_scoring_sends_the_card_out_of_the_game():
    assert entertainer_to({"red": 0, "green": 0}) == (None, "nobody")
    g = game()
    assert performance(g, "red", "dance", red=0) == ["performance", "entertainer_out"]
    assert g.snapshot()["out"] == ["red-dance"]


# ---------------------------------------------------------------- Ultimatum rule 6: the kinship penalty

def test_a_penalty_takes_points_off_or_a_card_given_up_leaves_the_game():
    g = game()
    performance(g, "red", "dance", red=3, green=8)  # Lea's
    assert enter(g, "penalty", player="red", points=5) == ["penalty_paid"]
    assert g.snapshot()["scores"]["red"] == 8
    assert "Max has no red dance entertainer card" in enter(g, "penalty", player="green", card="red-dance")
    assert enter(g, "penalty", player="red", card="red-dance") == ["entertainer_given_up"]
    s = g.snapshot()
    assert s["players"][0]["cards"] == [] and s["out"] == ["red-dance"] and s["scores"]["red"] == 8
    assert "either points or an entertainer card" in enter(g, "penalty", player="red")
    assert "either points or an entertainer card" in enter(g, "penalty", player="red", points=2, card="red-music")
    assert "not a penalty" in enter(g, "penalty", player="red", points=0)
    assert "no player has the yellow pieces" in enter(g, "penalty", player="yellow", points=2)


# ---------------------------------------------------------------- Ultimatum rule 7: undo

def test_undo_takes_back_the_last_entry_or_correction_and_stops_at_the_set_up():
    g = game()
    assert enter(g, "undo") == "nothing to undo"  # the seated players are the set-up
    performance(g, "red", "dance", red=3, green=8)
    enter(g, "penalty", player="green", points=4)
    enter(g, "correct", entry=4, points={"red": 9, "green": 8})
    assert g.snapshot()["undo"] == {"undid": "correction", "entry": 4}
    assert enter(g, "undo") == ["entry_undone"]
    assert g.snapshot()["players"][0]["cards"] == ["red-dance"]  # the correction taken back
    assert enter(g, "undo") == ["entry_undone"]
    assert g.snapshot()["scores"] == {"red": 13, "green": 18, "blue": 10}
    enter(g, "undo")
    assert g.snapshot()["scores"] == {"red": 10, "green": 10, "blue": 10} and g.phase is Phase.SETUP
    assert enter(g, "undo") == "nothing to undo"


# ---------------------------------------------------------------- Ultimatum rule 8: correction

def test_a_correction_recomputes_everything_after_it():
    g = game()
    performance(g, "red", "juggling", red=10, green=6, blue=15)  # a slip: Ana had 5; Max gets the card
    performance(g, "green", "music", red=4, green=3)
    assert g.snapshot()["players"][1]["cards"] == ["red-juggling", "green-music"]
    assert enter(g, "correct", entry=4, points={"red": 10, "green": 6, "blue": 5}) == ["entry_corrected"]
    s = g.snapshot()
    assert [p["cards"] for p in s["players"]] == [[], ["green-music"], ["red-juggling"]]
    assert s["scores"] == {"red": 24, "green": 19, "blue": 15}
    assert [r["scores"] for r in s["entries"][3:]] == [{"red": 20, "green": 16, "blue": 15},
                                                       {"red": 24, "green": 19, "blue": 15}]


def test_a_correction_that_would_make_a_later_entry_impossible_is_refused():
    g = game()
    performance(g, "red", "dance", red=3, green=8)  # Lea's card
    enter(g, "penalty", player="red", card="red-dance")  # ... given up
    why = enter(g, "correct", entry=4, points={"red": 9, "green": 8})  # Max's, had it been so
    assert why == "entry: entry 5 would no longer be possible (card: Lea has no red dance entertainer card to " \
                  "give up): undo or correct it first"
    assert g.snapshot()["out"] == ["red-dance"]


def test_a_correction_keeps_the_kind_and_what_it_does_not_give():
    g = game()
    performance(g, "red", "dance", red=3)
    enter(g, "penalty", player="green", points=4)
    assert enter(g, "correct", entry=5, card="red-dance") == "card: Max has no red dance entertainer card to give up"
    assert "entry 5 takes only player, points, card" in enter(g, "correct", entry=5, form="dance")
    assert enter(g, "correct", entry=5, points=6) == ["entry_corrected"]
    assert g.snapshot()["entries"][4] == {"entry": 5, "kind": "penalty", "player": "green", "points": 6,
                                          "scores": {"red": 13, "green": 4, "blue": 10}}
    assert "already says that" in enter(g, "correct", entry=5, points=6)
    assert enter(g, "correct", entry=2, name="Maxi") == ["entry_corrected"]  # a seated player's name
    assert g.snapshot()["players"][1]["name"] == "Maxi"
    assert "there is no entry 9" in enter(g, "correct", entry=9, points=1)


def test_an_entertainer_corrected_into_one_that_has_already_performed_is_refused():
    g = game()
    performance(g, "red", "dance", red=3)
    performance(g, "red", "music", red=3)
    assert "already performed" in enter(g, "correct", entry=5, form="dance")


# ---------------------------------------------------------------- Ultimatum rules 9, 10 and 11: the end

def lea_game() -> UltimatumGame:
    """The rulebook's example: Lea's performance card is Dance; at the end she has 2
    entertainers, both dancers; one a sheep that nobody else has; the other a seal, and two
    other players also have a seal."""
    g = game()
    performance(g, "green", "dance", red=3, green=8)  # Lea's sheep dancer
    performance(g, "red", "dance", red=2, green=5, blue=7)  # Lea's seal dancer
    performance(g, "red", "music", red=9, green=4, blue=6)  # Max's seal
    performance(g, "red", "juggling", red=10, green=6, blue=5)  # Ana's seal
    performance(g, "blue", "acrobatics", red=9, green=6, blue=6)  # tied: out
    performance(g, "brown", "music", green=7)  # Max's kangaroo
    enter(g, "penalty", player="red", points=2)
    return g


def test_the_rulebooks_end_scoring_example_lea():
    g = lea_game()
    assert enter(g, "end") == ["game_ended", "game_won"]
    final = g.snapshot()["final"]["red"]
    assert final["form_points"] == 4  # "She receives 4 points."
    assert final["majorities"][0] == {"colour": "green", "animal": "sheep", "tied": False, "points": 5}  # "5 more points"
    assert final["majorities"][1] == {"colour": "red", "animal": "seal", "tied": True, "points": 3}  # "All three receive 3"
    assert [g.snapshot()["final"][p]["majorities"][-1]["points"] for p in ("green", "blue")] == [3, 3]
    assert line(final, "Lea") == "Lea: 41 + 4 (2 dancers) + 5 (most sheep) + 3 (seals, tied) = 53"


def test_a_colour_nobody_holds_scores_nothing():
    finals = final_scoring({"red": 10, "green": 10}, {"red": "dance", "green": "music"}, {"red": [], "green": []})
    assert all(f.majorities == () and f.total == 10 for f in finals.values())


def test_the_winner_by_points_then_entertainer_points_then_cards_then_the_shorter():
    def finals(*rows):
        return final_scoring({p: base for p, base, _f, _c in rows}, {p: form for p, _b, form, _c in rows},
                             {p: cards for p, _b, _f, cards in rows})

    assert winner(finals(("red", 30, "dance", []), ("green", 20, "music", []))) == ("red", "points", [])
    # 20 + 5 (most sheep) against 25 + 0: entertainer points
    assert winner(finals(("red", 20, "dance", ["green-music"]), ("green", 25, "music", []))) == \
        ("red", "entertainer_points", [])
    # 25 each, 5 each from entertainers (red: most sheep; green: most bears): red holds three cards, green two
    tie = finals(("red", 20, "juggling", ["green-dance", "green-music", "blue-dance"]),
                 ("green", 20, "dance", ["blue-music", "blue-acrobatics"]))
    assert (tie["red"].total, tie["red"].entertainer_points) == (tie["green"].total, tie["green"].entertainer_points)
    assert winner(tie) == ("red", "entertainer_cards", [])
    even = finals(("red", 20, "dance", ["green-dance"]), ("green", 20, "music", ["blue-music"]))
    assert winner(even) == (None, None, ["red", "green"])
    assert winner(even, "green") == ("green", "shorter", ["red", "green"])


def test_the_page_asks_who_is_shorter_and_undo_takes_back_the_end_meanwhile():
    g = game(LEA_MAX_ANA[:2])
    performance(g, "green", "dance", red=6, green=8)
    performance(g, "green", "music", red=8, green=6)
    assert enter(g, "end") == ["game_ended"]
    assert g.phase is Phase.TIE and g.snapshot()["tied"] == ["red", "green"] and not g.finished
    assert g.snapshot()["actions"]["shorter"] == {"player": ["red", "green"]}
    assert "the game has ended" in performance(g, "red", "music", red=1)
    assert enter(g, "undo") == ["entry_undone"] and g.phase is Phase.PLAYING
    enter(g, "end")
    assert enter(g, "shorter", player="red") == ["game_won"]
    assert g.winner == "red" and g.reason == "shorter" and g.finished and g.ended_by == "complete"


def test_shorter_is_refused_without_a_tie_and_for_a_player_not_tied():
    g = game()
    assert "nobody is tied" in enter(g, "shorter", player="red")
    g = game()
    performance(g, "green", "dance", red=6, green=8)
    performance(g, "green", "music", red=8, green=6)
    enter(g, "end")
    assert "is not tied for the win" in enter(g, "shorter", player="blue")


# ---------------------------------------------------------------- Ultimatum rules 12 and 13

def test_over_is_over_and_abandon_ends_with_no_result():
    g = lea_game()
    enter(g, "end")
    assert g.finished and g.winner == "green"
    for name, params in (("undo", {}), ("correct", {"entry": 4, "points": {"red": 1}}), ("end", {})):
        assert enter(g, name, **params) == "the game is over: set up a new one"
    assert g.refusal(Action("new_match", 2.0)) is None
    before = g.snapshot()
    assert g.handle(Action("new_match", 2.0)) == [] and g.snapshot() == before  # asked of it, never played in it
    g = game()
    assert "abandon it first" in g.refusal(Action("new_match", 0.0)).text()
    assert enter(g, "abandon") == ["game_abandoned"] and g.finished and g.ended_by == "abandoned" and g.winner is None


def test_the_panels_controls_change_nothing_but_where_its_tokens_stand():
    g = game()
    before = g.snapshot()
    assert g.handle(InputEvent("cross.ok", True, 1.0)) == [] and g.asks(InputEvent("cross.ok", True, 1.0)) is None
    assert g.handle(InputEvent("lever.big", "down", 2.0)) == []
    after = g.snapshot()
    assert after.pop("positions") == {"lever.big": "down"}
    before.pop("positions")
    assert after == before
    assert g.next_deadline() is None and not g.clock_running


def test_the_actions_allowed_are_the_engines_answers():
    g = game()
    allowed = g.snapshot()["actions"]
    assert allowed["add_player"] == {"player": ["yellow"], "form": ["acrobatics"]}
    assert len(allowed["performance"]["card"]) == 16 and allowed["correct"] == {"entry": [1, 2, 3]}
    assert "undo" not in allowed and "shorter" not in allowed and "end" in allowed
    for name in ("undo", "shorter", "new_match"):
        assert (name in allowed) == (g.refusal(Action(name, 0.0, {"player": "red"} if name == "shorter" else {}))
                                     is None)
