"""The venue's SQLite store: every counted match, its teams and turns, the last word of
every cockpit, and the venue's own settings (the admin PIN's hash).

A match is counted once: its key is (cockpit, match id, set-up time), so a result the
broker delivers twice (QoS 1 is "at least once"; the retained result comes again at every
reconnect) is stored once. `at` is the venue's clock when the result first arrived: the
day and the week a match counts in are the venue's, whatever a cockpit's clock says.

Durability: WAL with synchronous=NORMAL. A result lost to a power cut at the venue is sent
again (it is retained on the broker, and the cockpit keeps it in its own log).
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from typing import Any

from panel.mqtt.protocol import TIERS
from panel.storage.sqlite import SQLiteFile

SCHEMA_VERSION = 1
_SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    cockpit TEXT NOT NULL,
    match_id INTEGER NOT NULL,
    created TEXT NOT NULL,
    at REAL NOT NULL,
    finished_at REAL NOT NULL,
    name TEXT NOT NULL,
    mode TEXT NOT NULL,
    status TEXT NOT NULL,
    players INTEGER NOT NULL,
    total INTEGER NOT NULL,
    tier TEXT,
    json TEXT NOT NULL,
    UNIQUE (cockpit, match_id, created)
);
CREATE INDEX IF NOT EXISTS results_at ON results(at);
CREATE TABLE IF NOT EXISTS standings (
    result_id INTEGER NOT NULL REFERENCES results(id),
    team TEXT NOT NULL,
    points INTEGER NOT NULL,
    won INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS standings_result ON standings(result_id);
CREATE TABLE IF NOT EXISTS turns (
    result_id INTEGER NOT NULL REFERENCES results(id),
    team TEXT NOT NULL,
    round INTEGER NOT NULL,
    points INTEGER NOT NULL,
    cards INTEGER NOT NULL,
    counters INTEGER NOT NULL,
    ended_by TEXT NOT NULL,
    seconds REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS turns_result ON turns(result_id);
CREATE INDEX IF NOT EXISTS turns_points ON turns(points DESC, seconds);
CREATE INDEX IF NOT EXISTS turns_five ON turns(ended_by, seconds);
CREATE TABLE IF NOT EXISTS cockpits (
    id TEXT PRIMARY KEY,
    status TEXT,
    state_json TEXT,
    seen REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

PERIODS = ("day", "week", "all")
TOP = 5  # rows in each leaderboard list


def since(period: str, now: float) -> float:
    """The start of the period holding `now`, on the venue's local calendar (weeks from Monday)."""
    if period == "all":
        return 0.0
    day = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "week":
        day -= timedelta(days=day.weekday())
    return day.timestamp()


class VenueStore(SQLiteFile):
    """The venue's SQLite file. A context manager; `close()` is idempotent."""

    SCHEMA = _SCHEMA
    VERSION = SCHEMA_VERSION
    SYNCHRONOUS = "NORMAL"
    WHAT = "venue schema"

    def __enter__(self) -> "VenueStore":
        return self

    # ------------------------------------------------------------------ cockpits
    def save_cockpit(self, cockpit: str, status: str | None, state: dict[str, Any] | None, seen: float) -> None:
        self._db.execute("INSERT INTO cockpits(id, status, state_json, seen) VALUES(?,?,?,?) "
                         "ON CONFLICT(id) DO UPDATE SET status=excluded.status, state_json=excluded.state_json, "
                         "seen=excluded.seen", (cockpit, status, json.dumps(state) if state else None, seen))

    def forget_cockpit(self, cockpit: str) -> None:
        self._db.execute("DELETE FROM cockpits WHERE id=?", (cockpit,))

    def cockpits(self) -> list[tuple[str, str | None, dict[str, Any] | None, float]]:
        rows = self._db.execute("SELECT id, status, state_json, seen FROM cockpits ORDER BY id").fetchall()
        return [(c, st, json.loads(s) if s else None, seen) for c, st, s, seen in rows]

    # ------------------------------------------------------------------ results
    def add_result(self, result: dict[str, Any], at: float | None = None) -> bool:
        """Count a result (a `result` topic payload). False when it was counted before."""
        at = time.time() if at is None else at
        m = result["match"]
        scores = result["scores"]
        winners = set(result.get("winner") or [])
        self._db.execute("BEGIN")
        try:
            cur = self._db.execute(
                "INSERT OR IGNORE INTO results(cockpit, match_id, created, at, finished_at, name, mode, status, "
                "players, total, tier, json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                (result["cockpit"], m["id"], m["created"], at, result["finished_at"], result["name"], result["mode"],
                 m["status"], result["players"], sum(scores.values()), result.get("tier"), json.dumps(result)))
            if cur.rowcount == 0:
                self._db.execute("ROLLBACK")
                return False
            rid = cur.lastrowid
            self._db.executemany("INSERT INTO standings(result_id, team, points, won) VALUES(?,?,?,?)",
                                 [(rid, team, points, int(team in winners)) for team, points in scores.items()])
            self._db.executemany(
                "INSERT INTO turns(result_id, team, round, points, cards, counters, ended_by, seconds) "
                "VALUES(?,?,?,?,?,?,?,?)",
                [(rid, t["team"], t["round"], t["points"], t["cards"], t["counters"], t["ended_by"], t["seconds"])
                 for t in result["turns"]])
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return True

    def counted(self) -> list[tuple[str, int]]:
        """(cockpit, match id) of every counted match, in the order they were counted."""
        return [tuple(r) for r in self._db.execute("SELECT cockpit, match_id FROM results ORDER BY id")]

    # ------------------------------------------------------------------ the leaderboard
    def leaderboard(self, period: str, now: float | None = None) -> dict[str, Any]:
        """The period's numbers: matches played (all and per cockpit), the competitive teams
        by wins, the best turns, the fastest five-card turns, the cooperative landings."""
        start = since(period, time.time() if now is None else now)
        q = self._db.execute
        played = q("SELECT COUNT(*) FROM results WHERE at >= ?", (start,)).fetchone()[0]
        per_cockpit = [{"cockpit": c, "name": n, "matches": k} for c, n, k in q(
            "SELECT cockpit, MAX(name), COUNT(*) FROM results WHERE at >= ? GROUP BY cockpit ORDER BY cockpit",
            (start,))]
        teams = [{"team": t, "played": p, "wins": w, "points": pts} for t, p, w, pts in q(
            "SELECT s.team, COUNT(*), SUM(s.won), SUM(s.points) FROM standings s JOIN results r ON r.id = s.result_id "
            "WHERE r.at >= ? AND r.mode = 'competitive' GROUP BY s.team "
            "ORDER BY SUM(s.won) DESC, SUM(s.points) DESC, COUNT(*) ASC, s.team LIMIT ?", (start, TOP))]
        turn_cols = "t.team, r.name, r.cockpit, t.points, t.cards, t.counters, t.ended_by, t.seconds, r.at"

        def turn_rows(where: str, order: str) -> list[dict[str, Any]]:
            return [{"team": team, "name": name, "cockpit": c, "points": pts, "cards": cards, "counters": counters,
                     "five": ended_by == "five_cards", "seconds": secs, "at": at}
                    for team, name, c, pts, cards, counters, ended_by, secs, at in q(
                        f"SELECT {turn_cols} FROM turns t JOIN results r ON r.id = t.result_id "
                        f"WHERE r.at >= ? AND {where} ORDER BY {order}, r.id LIMIT ?", (start, TOP))]

        best = turn_rows("t.points > 0", "t.points DESC, t.seconds ASC")
        fastest = turn_rows("t.ended_by = 'five_cards'", "t.seconds ASC, t.points DESC")
        landed = dict(q("SELECT tier, COUNT(*) FROM results WHERE at >= ? AND mode = 'cooperative' GROUP BY tier",
                        (start,)).fetchall())
        tiers = [{"tier": t, "landings": landed.get(t, 0)} for t in TIERS]
        crews = []
        for j, n, c, p, total, tier in q("SELECT json, name, cockpit, players, total, tier FROM results "
                                         "WHERE at >= ? AND mode = 'cooperative' ORDER BY total DESC, id LIMIT ?",
                                         (start, TOP)):
            crews.append({"crew": " & ".join(json.loads(j)["teams"]), "name": n, "cockpit": c, "players": p,
                          "points": total, "tier": tier})
        return {"period": period, "since": start, "matches": played, "cockpits": per_cockpit, "teams": teams,
                "best_turns": best, "fastest_five": fastest, "tiers": tiers, "crews": crews}
