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


# ---------------------------------------------------------------------------- real teams (issue 23)

def walk_up(cockpit, match_id, blue, red, *, name=None):
    """A walk-up match: the cockpit's default team names, nobody named."""
    scores = {"Blue team": blue, "Red team": red}
    best = max(scores.values())
    return result(cockpit, match_id, scores, [turn("Blue team", blue, blue, "time", 30.0),
                                              turn("Red team", red, red, "time", 30.0)],
                  winner=[t for t, s in scores.items() if s == best], players=0, name=name)


def test_walk_up_teams_are_told_apart_and_named_teams_add_up(store):
    """Three walk-up matches on two cockpits: six teams of one match each, shown with where
    they played, never "Blue team 3 played, 3 wins"; the same name chosen by people is one team."""
    store.add_result(walk_up("c1", 1, 3, 1, name="By the window"), WEDNESDAY_NOON)
    store.add_result(walk_up("c2", 1, 4, 2, name="At the bar"), WEDNESDAY_NOON + 60)
    store.add_result(walk_up("c1", 2, 5, 0, name="By the window"), WEDNESDAY_NOON + 120)
    store.add_result(result("c1", 3, {"Gulls": 2, "Terns": 1}, [turn("Gulls", 2, 2, "time", 30.0),
                                                                 turn("Terns", 1, 1, "time", 30.0)],
                            winner=["Gulls"]), WEDNESDAY_NOON + 180)
    store.add_result(result("c2", 2, {"Gulls": 3, "Terns": 0}, [turn("Gulls", 3, 3, "time", 30.0),
                                                                 turn("Terns", 0, 0, "time", 30.0)],
                            winner=["Gulls"]), WEDNESDAY_NOON + 240)
    day = store.leaderboard("day", WEDNESDAY_NOON + 300)
    rows = [(t["team"], t.get("name"), t["played"], t["wins"], t["points"]) for t in day["teams"]]
    assert rows[0] == ("Gulls", None, 2, 2, 5)  # named by people: one team, wherever it played
    assert rows[1:] == [("Blue team", "By the window", 1, 1, 5), ("Blue team", "At the bar", 1, 1, 4),
                        ("Blue team", "By the window", 1, 1, 3), ("Red team", "At the bar", 1, 0, 2)]
    assert day["teams"][1]["walk_up"] is True and day["teams"][1]["at"] == WEDNESDAY_NOON + 120
    assert "walk_up" not in day["teams"][0]
    # In the cockpits' other language too ("Equipo azul"): a default name is nobody's name.
    from panel.venue.leaderboard import default_names
    assert {"Blue team", "Red team", "Crew"} <= default_names() and len(default_names()) > 3


def test_a_result_with_no_turn_played_counts_nowhere(store):
    """Rule 25: a 0-0 "shared win" sent by a cockpit before it knew better is no match, no
    win; a team that played no turn of a match did not play it."""
    store.add_result(result("c1", 1, {"Gulls": 0, "Terns": 0}, [], winner=["Gulls", "Terns"]), WEDNESDAY_NOON)
    board = store.leaderboard("all", WEDNESDAY_NOON)
    assert board["matches"] == 0 and board["teams"] == [] and board["cockpits"] == []
    store.add_result(result("c1", 2, {"Gulls": 4, "Terns": 0}, [turn("Gulls", 4, 4, "time", 30.0)], winner=None),
                     WEDNESDAY_NOON)
    board = store.leaderboard("all", WEDNESDAY_NOON)
    assert board["matches"] == 1 and [(t["team"], t["played"], t["wins"]) for t in board["teams"]] == [("Gulls", 1, 0)]


def test_the_boards_are_kept_as_results_arrive_and_days_gone_by_are_dropped(store):
    """A board is read from its own rows, never from the results: the day's board after a
    year of days holds only the day's rows."""
    for day in range(10):
        store.add_result(result("c1", day + 1, {"Gulls": day, "Terns": 1},
                                [turn("Gulls", day, day, "time", 30.0), turn("Terns", 1, 1, "time", 30.0)],
                                winner=["Gulls"] if day > 1 else ["Terns"]), MONDAY_MORNING + day * 86400)
    q = store._db.execute
    assert q("SELECT COUNT(DISTINCT start) FROM board_teams WHERE period='day'").fetchone()[0] == 1
    assert q("SELECT COUNT(DISTINCT start) FROM board_teams WHERE period='week'").fetchone()[0] == 1
    assert q("SELECT COUNT(*) FROM board_tops WHERE period='all' AND kind='best'").fetchone()[0] == 5
    last = MONDAY_MORNING + 9 * 86400
    assert store.leaderboard("day", last)["matches"] == 1
    assert store.leaderboard("all", last)["teams"][0] == {"team": "Gulls", "played": 10, "wins": 8, "points": 45}
    assert [t["points"] for t in store.leaderboard("all", last)["best_turns"]] == [9, 8, 7, 6, 5]


# ---------------------------------------------------------------------------- damaged files (issue 24)

def test_a_cockpit_row_with_bad_json_is_skipped_with_one_warning(tmp_path, caplog):
    with VenueStore(tmp_path / "venue.db") as s:
        s.save_cockpit("c1", "online", {"phase": "in_turn"}, WEDNESDAY_NOON)
        s.save_cockpit("c2", "online", {"phase": "idle"}, WEDNESDAY_NOON)
        s._db.execute("UPDATE cockpits SET state_json='{not json' WHERE id='c1'")
    with caplog.at_level("WARNING", logger="penguin-panel"), VenueStore(tmp_path / "venue.db") as s:
        assert s.cockpits() == [("c1", "online", None, WEDNESDAY_NOON), ("c2", "online", {"phase": "idle"},
                                                                         WEDNESDAY_NOON)]
        s.cockpits()
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "cockpit c1" in said[0] and "\n" not in said[0]


def test_a_venue_of_schema_1_gets_its_boards_from_its_results(tmp_path, caplog):
    """A venue upgraded with results counted: the boards are made from them once; a result
    row with bad JSON is skipped with one line."""
    db = tmp_path / "venue.db"
    with VenueStore(db) as s:
        for i in (1, 2):
            s.add_result(result("c1", i, {"Gulls": 3, "Terns": 1}, [turn("Gulls", 3, 3, "time", 30.0),
                                                                    turn("Terns", 1, 1, "time", 30.0)],
                                winner=["Gulls"]), WEDNESDAY_NOON)
        s._db.execute("UPDATE results SET json='{broken' WHERE match_id=2")
        for table in ("board_teams", "board_counts", "board_tops"):
            s._db.execute(f"DROP TABLE {table}")
        s._db.execute("PRAGMA user_version=1")
    with caplog.at_level("WARNING", logger="penguin-panel"), VenueStore(db) as s:
        board = s.leaderboard("all", WEDNESDAY_NOON)
        assert board["matches"] == 1 and board["teams"][0] == {"team": "Gulls", "played": 1, "wins": 1, "points": 3}
    assert [r.getMessage() for r in caplog.records if "result 2" in r.getMessage()] != []


def damage(db, table: str) -> None:
    """Garble the first page of a table's tree (its root page), as a failing SD card does."""
    import sqlite3

    con = sqlite3.connect(db)
    page_size = con.execute("PRAGMA page_size").fetchone()[0]
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name=?", (table,)).fetchone()[0]
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    with open(db, "r+b") as f:
        f.seek((root - 1) * page_size)
        f.write(b"\xa5" * page_size)


def test_a_damaged_page_costs_only_the_lists_it_holds(tmp_path, caplog):
    db = tmp_path / "venue.db"
    with VenueStore(db) as s:
        s.add_result(result("c1", 1, {"Gulls": 9, "Terns": 1}, [turn("Gulls", 9, 5, "five_cards", 20.0),
                                                                turn("Terns", 1, 1, "time", 30.0)],
                            winner=["Gulls"]), WEDNESDAY_NOON)
    damage(db, "board_tops")
    with caplog.at_level("WARNING", logger="penguin-panel"), VenueStore(db) as s:
        for _ in range(3):
            board = s.leaderboard("all", WEDNESDAY_NOON)
        assert board["unreadable"] == ["turns"] and board["best_turns"] == []
        assert board["matches"] == 1 and board["teams"][0]["team"] == "Gulls"  # what it can read
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and "turns" in said[0] and "\n" not in said[0]
