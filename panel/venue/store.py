"""The venue's SQLite store: every counted match, its teams and turns, the last word of
every cockpit, and the venue's own settings (the admin PIN's hash).

A match is counted once: its key is (cockpit, match id, set-up time), so a result the
broker delivers twice (QoS 1 is "at least once"; the retained result comes again at every
reconnect) is stored once. `at` is the venue's clock when the result first arrived: the
day and the week a match counts in are the venue's, whatever a cockpit's clock says.

Durability: WAL with synchronous=NORMAL. A result lost to a power cut at the venue is sent
again (it is retained on the broker, and the cockpit keeps it in its own log).

The leaderboard is kept up to date in the same transaction as each result (leaderboard.py),
so reading it costs the same with a year of results as with a day's. A row that cannot be
read (bad JSON, a damaged page of the file) is skipped with one warning line: the venue
answers with what it can read.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from typing import Any, Iterable

from panel.storage.sqlite import SQLiteFile
from panel.venue import leaderboard
from panel.venue.leaderboard import PERIODS, since  # noqa: F401  (the store's words for its callers)

log = logging.getLogger("penguin-panel")

SCHEMA_VERSION = 2  # 2: the leaderboard's boards, kept as results arrive
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
""" + leaderboard.SCHEMA

class VenueStore(SQLiteFile):
    """The venue's SQLite file. A context manager; `close()` is idempotent."""

    SCHEMA = _SCHEMA
    VERSION = SCHEMA_VERSION
    SYNCHRONOUS = "NORMAL"
    WHAT = "venue schema"

    def __init__(self, path, **kw: Any):
        self._unreadable: set[str] = set()  # the parts of the file already said to be unreadable
        self._pruned: dict[str, float] = {}  # the boards of days and weeks gone by, dropped up to these
        super().__init__(path, **kw)

    def __enter__(self) -> "VenueStore":
        return self

    def _migrate(self, version: int) -> None:
        super()._migrate(version)
        if 0 < version < 2:  # a venue that counted results before the boards were kept
            self.rebuild_boards()

    def _said(self, what: str, error: Exception) -> None:
        """One warning line for each part of the file that could not be read, once."""
        if what not in self._unreadable:
            self._unreadable.add(what)
            log.warning("venue: skipped what could not be read in %s (%s): %s", self.path, what,
                        str(error).splitlines()[0][:200] if str(error) else type(error).__name__)

    # ------------------------------------------------------------------ cockpits
    def save_cockpit(self, cockpit: str, status: str | None, state: dict[str, Any] | None, seen: float) -> None:
        with self._writing():
            self._db.execute("INSERT INTO cockpits(id, status, state_json, seen) VALUES(?,?,?,?) "
                             "ON CONFLICT(id) DO UPDATE SET status=excluded.status, state_json=excluded.state_json, "
                             "seen=excluded.seen", (cockpit, status, json.dumps(state) if state else None, seen))

    def forget_cockpit(self, cockpit: str) -> None:
        with self._writing():
            self._db.execute("DELETE FROM cockpits WHERE id=?", (cockpit,))

    def cockpits(self) -> list[tuple[str, str | None, dict[str, Any] | None, float]]:
        """The last word of every cockpit; a row that cannot be read is skipped (one warning)."""
        out = []
        try:
            rows = self._db.execute("SELECT id, status, state_json, seen FROM cockpits ORDER BY id").fetchall()
        except sqlite3.DatabaseError as e:
            self._said("cockpits", e)
            return []
        for c, st, s, seen in rows:
            try:
                state = json.loads(s) if s else None
                if state is not None and not isinstance(state, dict):
                    raise ValueError("not a JSON object")
            except ValueError as e:
                self._said(f"cockpit {c}", e)
                state = None
            out.append((c, st, state, seen))
        return out

    # ------------------------------------------------------------------ results
    def add_result(self, result: dict[str, Any], at: float | None = None) -> bool:
        """Count a result (a `result` topic payload). False when it was counted before."""
        return self.add_results([(result, time.time() if at is None else at)]) == 1

    def add_results(self, results: Iterable[tuple[dict[str, Any], float]]) -> int:
        """Count results (each with the venue's time it arrived) in one transaction; how
        many were new."""
        with self._writing():
            self._db.execute("BEGIN")
            try:
                new = sum(self._insert(result, at) for result, at in results)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return new

    def _insert(self, result: dict[str, Any], at: float) -> bool:
        m = result["match"]
        scores = result["scores"]
        winners = set(result.get("winner") or [])
        cur = self._db.execute(
            "INSERT OR IGNORE INTO results(cockpit, match_id, created, at, finished_at, name, mode, status, "
            "players, total, tier, json) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
            (result["cockpit"], m["id"], m["created"], at, result["finished_at"], result["name"], result["mode"],
             m["status"], result["players"], sum(scores.values()), result.get("tier"), json.dumps(result)))
        if cur.rowcount == 0:
            return False
        rid = cur.lastrowid
        self._db.executemany("INSERT INTO standings(result_id, team, points, won) VALUES(?,?,?,?)",
                             [(rid, team, points, int(team in winners)) for team, points in scores.items()])
        self._db.executemany(
            "INSERT INTO turns(result_id, team, round, points, cards, counters, ended_by, seconds) "
            "VALUES(?,?,?,?,?,?,?,?)",
            [(rid, t["team"], t["round"], t["points"], t["cards"], t["counters"], t["ended_by"], t["seconds"])
             for t in result["turns"]])
        leaderboard.add(self._db, result, rid, at, self._pruned)
        return True

    def rebuild_boards(self) -> None:
        """The boards made again from every stored result (a venue upgraded from schema 1);
        a result whose row cannot be read is skipped, with one warning line."""
        self._pruned.clear()
        self._db.execute("BEGIN")
        try:
            for table in ("board_teams", "board_counts", "board_tops"):
                self._db.execute(f"DELETE FROM {table}")
            for rid, at, raw in self._db.execute("SELECT id, at, json FROM results ORDER BY id").fetchall():
                try:
                    leaderboard.add(self._db, json.loads(raw), rid, at, self._pruned)
                except (ValueError, KeyError, TypeError, AttributeError) as e:
                    self._said(f"result {rid}", e)
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    def counted(self) -> list[tuple[str, int]]:
        """(cockpit, match id) of every counted match, in the order they were counted."""
        return [tuple(r) for r in self._db.execute("SELECT cockpit, match_id FROM results ORDER BY id")]

    # ------------------------------------------------------------------ the leaderboard
    def leaderboard(self, period: str, now: float | None = None) -> dict[str, Any]:
        """The period's numbers: matches played (all and per cockpit), the competitive teams
        by wins, the best turns, the fastest five-card turns, the cooperative landings;
        the lists that could not be read (a damaged file) empty and named in `unreadable`."""
        return leaderboard.read(self._db, period, time.time() if now is None else now, self._said)
