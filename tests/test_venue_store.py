"""The venue's leaderboard on a real SQLite file: periods on the venue's calendar, teams by
wins, best and fastest turns, cooperative landings; a result counted once."""

from __future__ import annotations

from datetime import datetime

import pytest

from panel.mqtt import protocol as p
from panel.core.errors import StoreError
from panel.venue.store import VenueStore, since

WEDNESDAY_NOON = datetime(2026, 11, 25, 12, 0).timestamp()
MONDAY_MORNING = datetime(2026, 11, 23, 9, 0).timestamp()
LAST_SUNDAY = datetime(2026, 11, 22, 20, 0).timestamp()
TUESDAY = datetime(2026, 11, 24, 18, 0).timestamp()


def turn(team, points, cards, ended_by, seconds, round_=1):
    return {"team": team, "round": round_, "points": points, "cards": cards, "counters": points - cards,
            "mistakes": 0, "ended_by": ended_by, "seconds": seconds}


def result(cockpit, match_id, scores, turns, *, mode="competitive", winner=None, tier=None, players=4,
           name=None, teams=None):
    return p.validate("result", {
        "v": 1, "cockpit": cockpit, "name": name or f"Cockpit {cockpit}",
        "match": {"id": match_id, "created": f"2026-11-2{match_id % 10}T10:00:00+0000", "status": "finished"},
        "finished_at": 0.0, "mode": mode, "teams": teams or list(scores), "players": players, "scores": scores,
        "winner": winner, "tier": tier, "turns": turns})


@pytest.fixture
def store(tmp_path):
    with VenueStore(tmp_path / "venue.db") as s:
        yield s


def test_periods_are_the_venues_day_and_week():
    assert since("day", WEDNESDAY_NOON) == datetime(2026, 11, 25).timestamp()
    assert since("week", WEDNESDAY_NOON) == datetime(2026, 11, 23).timestamp()  # from Monday
    assert since("week", MONDAY_MORNING) == datetime(2026, 11, 23).timestamp()
    assert since("all", WEDNESDAY_NOON) == 0.0


def test_a_result_counts_once(store):
    r = result("c1", 1, {"Gulls": 5, "Puffins": 2}, [turn("Gulls", 5, 5, "five_cards", 20.0)], winner=["Gulls"])
    assert store.add_result(r, WEDNESDAY_NOON) is True
    assert store.add_result(r, WEDNESDAY_NOON + 60) is False  # delivered again: QoS 1, or retained
    assert store.add_result({**r, "cockpit": "c2"}, WEDNESDAY_NOON) is True  # another cockpit's match 1
    assert store.counted() == [("c1", 1), ("c2", 1)]
    assert store.leaderboard("all", WEDNESDAY_NOON)["matches"] == 2


def test_the_leaderboard_of_each_period(store):
    store.add_result(result("c1", 1, {"Gulls": 9, "Puffins": 3},
                            [turn("Gulls", 9, 5, "five_cards", 24.5), turn("Puffins", 3, 3, "time", 30.0)],
                            winner=["Gulls"]), WEDNESDAY_NOON)
    store.add_result(result("c2", 1, {"Gulls": 2, "Terns": 6},
                            [turn("Gulls", 2, 2, "mistakes", 11.0), turn("Terns", 6, 5, "five_cards", 19.0)],
                            winner=["Terns"]), TUESDAY)
    store.add_result(result("c1", 2, {"Puffins": 12, "Gulls": 1}, [turn("Puffins", 12, 5, "five_cards", 17.0)],
                            winner=["Puffins"]), LAST_SUNDAY)
    store.add_result(result("c3", 1, {"Crew": 24}, [turn("Crew", 7, 5, "five_cards", 28.0)], mode="cooperative",
                            tier="Commander", players=3, teams=["Night owls"]), WEDNESDAY_NOON)

    day = store.leaderboard("day", WEDNESDAY_NOON)
    assert day["matches"] == 2
    assert day["cockpits"] == [{"cockpit": "c1", "name": "Cockpit c1", "matches": 1},
                               {"cockpit": "c3", "name": "Cockpit c3", "matches": 1}]
    assert [(t["team"], t["played"], t["wins"], t["points"]) for t in day["teams"]] == \
        [("Gulls", 1, 1, 9), ("Puffins", 1, 0, 3)]  # a cooperative crew is no team of the table
    assert [(t["team"], t["points"]) for t in day["best_turns"]] == [("Gulls", 9), ("Crew", 7), ("Puffins", 3)]
    assert [(t["team"], t["seconds"]) for t in day["fastest_five"]] == [("Gulls", 24.5), ("Crew", 28.0)]
    assert {t["tier"]: t["landings"] for t in day["tiers"]}["Commander"] == 1
    assert [t["tier"] for t in day["tiers"]] == list(p.TIERS)
    assert day["crews"] == [{"crew": "Night owls", "name": "Cockpit c3", "cockpit": "c3", "players": 3,
                             "points": 24, "tier": "Commander"}]

    week = store.leaderboard("week", WEDNESDAY_NOON)
    assert week["matches"] == 3  # Sunday belongs to last week
    assert [(t["team"], t["played"], t["wins"]) for t in week["teams"]][:2] == [("Gulls", 2, 1), ("Terns", 1, 1)]
    assert week["fastest_five"][0]["team"] == "Terns"

    everything = store.leaderboard("all", WEDNESDAY_NOON)
    assert everything["matches"] == 4
    assert everything["best_turns"][0] == {"team": "Puffins", "name": "Cockpit c1", "cockpit": "c1", "points": 12,
                                           "cards": 5, "counters": 7, "five": True, "seconds": 17.0,
                                           "at": LAST_SUNDAY}
    assert everything["fastest_five"][0]["seconds"] == 17.0
    assert len(everything["best_turns"]) == 5  # the top five only


def test_the_last_word_of_every_cockpit_is_kept(store):
    store.save_cockpit("c1", "online", {"phase": "in_turn"}, WEDNESDAY_NOON)
    store.save_cockpit("c1", "offline", {"phase": "in_turn"}, WEDNESDAY_NOON + 5)
    store.save_cockpit("c2", None, None, WEDNESDAY_NOON)
    assert store.cockpits() == [("c1", "offline", {"phase": "in_turn"}, WEDNESDAY_NOON + 5),
                                ("c2", None, None, WEDNESDAY_NOON)]
    store.forget_cockpit("c1")
    assert [c[0] for c in store.cockpits()] == ["c2"]


def test_not_a_database(tmp_path):
    bad = tmp_path / "venue.db"
    bad.write_text("this is a text file, not SQLite " * 100)
    with pytest.raises(StoreError, match="cannot open the database"):
        VenueStore(bad)
