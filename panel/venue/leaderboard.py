"""The venue's leaderboard, kept up to date as results arrive.

Every counted result adds to the boards of the periods it falls in (its day, its week, all
time): a team's played, wins and points, each cockpit's matches, each tier's landings, and
the top five turns, five-card turns and cooperative crews. A board is read with one
index range per list, so it costs the same with a year of results as with a day's; the
day and week boards a new day or week leaves behind are dropped.

A team is its name, when people chose the name. A walk-up team keeps the default name
its cockpit gave it ("Blue team"), which says nothing about who played: each is a team of
its own, of one cockpit and one match, shown with where and when it played, so strangers
are never counted as one team.

Rule 25: a result with no turn scored (an unplayed match a cockpit sent before it knew
better) counts nowhere; a team that played no turn of a match did not play it.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, Iterable

from panel.core.i18n import languages, translations
from panel.games.airlines.engine.settings import CREW, DEFAULT_TEAMS
from panel.mqtt.protocol import TIERS

PERIODS = ("day", "week", "all")
TOP = 5  # rows in each leaderboard list
# The top lists and their sort keys (ascending; the result's row id, then the turn's
# index, break ties in the order they arrived).
TOPS = ("best", "fastest", "crews")

SCHEMA = """
CREATE TABLE IF NOT EXISTS board_teams (
    period TEXT NOT NULL,
    start REAL NOT NULL,
    team_key TEXT NOT NULL,
    team TEXT NOT NULL,
    cockpit TEXT,              -- a walk-up team's cockpit, its name and the time it played
    name TEXT,
    at REAL,
    played INTEGER NOT NULL,
    wins INTEGER NOT NULL,
    points INTEGER NOT NULL,
    PRIMARY KEY (period, start, team_key)
);
CREATE INDEX IF NOT EXISTS board_teams_rank ON board_teams(period, start, wins DESC, points DESC, played, team);
CREATE TABLE IF NOT EXISTS board_counts (
    period TEXT NOT NULL,
    start REAL NOT NULL,
    kind TEXT NOT NULL,        -- cockpit (its matches) or tier (its landings)
    key TEXT NOT NULL,
    label TEXT,
    n INTEGER NOT NULL,
    PRIMARY KEY (period, start, kind, key)
);
CREATE TABLE IF NOT EXISTS board_tops (
    period TEXT NOT NULL,
    start REAL NOT NULL,
    kind TEXT NOT NULL,        -- best, fastest, crews
    k1 REAL NOT NULL,
    k2 REAL NOT NULL,
    k3 INTEGER NOT NULL,
    k4 INTEGER NOT NULL,
    row TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS board_tops_rank ON board_tops(period, start, kind, k1, k2, k3, k4);
"""


def since(period: str, now: float) -> float:
    """The start of the period holding `now`, on the venue's local calendar (weeks from Monday)."""
    if period == "all":
        return 0.0
    day = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        day -= timedelta(days=day.weekday())
    return day.timestamp()


@lru_cache(maxsize=1)
def default_names() -> frozenset[str]:
    """The names a cockpit gives teams nobody named (walk-up's "Blue team", a crew's "Crew"),
    in every language the cockpits speak."""
    names = set(DEFAULT_TEAMS) | {CREW}
    for lang in languages():
        tr = translations(lang)
        names |= {tr.gettext(n) for n in (*DEFAULT_TEAMS, CREW)}
    return frozenset(names)


def team_key(result: dict[str, Any], team: str) -> tuple[str, bool]:
    """Who a team of a result is at the venue, and whether it is a walk-up team (a default name)."""
    if team in default_names():
        m = result["match"]
        return f"match:{result['cockpit']}:{m['id']}:{m['created']}:{team}", True
    return f"team:{team}", False


def add(db: sqlite3.Connection, result: dict[str, Any], rid: int, at: float, pruned: dict[str, float]) -> None:
    """Count one new result on every board it falls in (inside the caller's transaction).
    `pruned`: the latest start of each period whose older boards were dropped (the
    caller's, so they are dropped once a day or week, not at every result)."""
    turns = result["turns"]
    if not turns:
        return  # rule 25: nothing was played
    scores = result["scores"]
    winners = set(result.get("winner") or [])
    played = {t["team"] for t in turns}
    coop = result["mode"] == "cooperative"
    for period in PERIODS:
        start = since(period, at)
        if period != "all" and start > pruned.get(period, -1.0):  # the boards of the days and weeks gone by
            for table in ("board_teams", "board_counts", "board_tops"):
                db.execute(f"DELETE FROM {table} WHERE period=? AND start<?", (period, start))
            pruned[period] = start
        _count(db, period, start, "cockpit", result["cockpit"], result["name"])
        if coop:
            if result.get("tier"):
                _count(db, period, start, "tier", result["tier"], None)
        else:
            for team, points in scores.items():
                if team not in played:
                    continue
                key, walk_up = team_key(result, team)
                db.execute(
                    "INSERT INTO board_teams(period, start, team_key, team, cockpit, name, at, played, wins, points) "
                    "VALUES(?,?,?,?,?,?,?,1,?,?) ON CONFLICT(period, start, team_key) DO UPDATE SET "
                    "played=played+1, wins=wins+excluded.wins, points=points+excluded.points",
                    (period, start, key, team, result["cockpit"] if walk_up else None,
                     result["name"] if walk_up else None, at if walk_up else None, int(team in winners), points))
        _tops(db, period, start, _candidates(result, rid, at))


def _count(db: sqlite3.Connection, period: str, start: float, kind: str, key: str, label: str | None) -> None:
    db.execute("INSERT INTO board_counts(period, start, kind, key, label, n) VALUES(?,?,?,?,?,1) "
               "ON CONFLICT(period, start, kind, key) DO UPDATE SET n=n+1, label=excluded.label",
               (period, start, kind, key, label))


def _candidates(result: dict[str, Any], rid: int, at: float) -> list[tuple[str, tuple, dict[str, Any]]]:
    """The result's rows for the top lists, each with its sort key (ascending)."""
    out = []
    for i, t in enumerate(result["turns"]):
        row = {"team": t["team"], "name": result["name"], "cockpit": result["cockpit"], "points": t["points"],
               "cards": t["cards"], "counters": t["counters"], "five": t["ended_by"] == "five_cards",
               "seconds": t["seconds"], "at": at}
        if t["points"] > 0:
            out.append(("best", (-t["points"], t["seconds"], rid, i), row))
        if row["five"]:
            out.append(("fastest", (t["seconds"], -t["points"], rid, i), row))
    if result["mode"] == "cooperative":
        total = sum(result["scores"].values())
        out.append(("crews", (-total, 0, rid, 0), {"crew": " & ".join(result["teams"]), "name": result["name"],
                                                   "cockpit": result["cockpit"], "players": result["players"],
                                                   "points": total, "tier": result.get("tier")}))
    return out


def _tops(db: sqlite3.Connection, period: str, start: float, rows: Iterable[tuple[str, tuple, dict]]) -> None:
    """Put the rows that make a top five in, and drop what they push out of it."""
    kinds = set()
    for kind, key, row in rows:
        fifth = db.execute("SELECT k1, k2, k3, k4 FROM board_tops WHERE period=? AND start=? AND kind=? "
                           "ORDER BY k1, k2, k3, k4 LIMIT 1 OFFSET ?", (period, start, kind, TOP - 1)).fetchone()
        if fifth is not None and tuple(key) >= tuple(fifth):
            continue
        db.execute("INSERT INTO board_tops(period, start, kind, k1, k2, k3, k4, row) VALUES(?,?,?,?,?,?,?,?)",
                   (period, start, kind, *key, json.dumps(row)))
        kinds.add(kind)
    for kind in kinds:
        db.execute("DELETE FROM board_tops WHERE rowid IN (SELECT rowid FROM board_tops WHERE period=? AND start=? "
                   "AND kind=? ORDER BY k1, k2, k3, k4 LIMIT -1 OFFSET ?)", (period, start, kind, TOP))


def read(db: sqlite3.Connection, period: str, now: float, problem) -> dict[str, Any]:
    """A period's board: each list read on its own, so a damaged page of the file costs the
    lists it holds and no more (`problem(what, error)` hears of each one that failed)."""
    start = since(period, now)
    out: dict[str, Any] = {"period": period, "since": start, "matches": 0, "cockpits": [], "teams": [],
                           "best_turns": [], "fastest_five": [], "tiers": [{"tier": t, "landings": 0} for t in TIERS],
                           "crews": [], "unreadable": []}

    def section(what: str, fill) -> None:
        try:
            fill()
        except (sqlite3.DatabaseError, ValueError, KeyError, TypeError) as e:
            out["unreadable"].append(what)
            problem(what, e)

    def counts() -> None:
        rows = db.execute("SELECT kind, key, label, n FROM board_counts WHERE period=? AND start=? ORDER BY kind, key",
                          (period, start)).fetchall()
        out["cockpits"] = [{"cockpit": k, "name": label, "matches": n} for kind, k, label, n in rows if kind == "cockpit"]
        out["matches"] = sum(c["matches"] for c in out["cockpits"])
        landed = {k: n for kind, k, _, n in rows if kind == "tier"}
        out["tiers"] = [{"tier": t, "landings": landed.get(t, 0)} for t in TIERS]

    def teams() -> None:
        out["teams"] = [
            {"team": team, "played": p, "wins": w, "points": pts,
             **({"walk_up": True, "cockpit": cockpit, "name": name, "at": at} if cockpit is not None else {})}
            for team, cockpit, name, at, p, w, pts in db.execute(
                "SELECT team, cockpit, name, at, played, wins, points FROM board_teams WHERE period=? AND start=? "
                "ORDER BY wins DESC, points DESC, played, team LIMIT ?", (period, start, TOP))]

    def tops() -> None:
        lists: dict[str, list] = {k: [] for k in TOPS}
        for kind, row in db.execute("SELECT kind, row FROM board_tops WHERE period=? AND start=? "
                                    "ORDER BY kind, k1, k2, k3, k4", (period, start)):
            if kind in lists and len(lists[kind]) < TOP:
                lists[kind].append(json.loads(row))
        out["best_turns"], out["fastest_five"], out["crews"] = lists["best"], lists["fastest"], lists["crews"]

    section("matches", counts)
    section("teams", teams)
    section("turns", tops)
    return out
