"""The service's SQLite store: matches, settings, and the input log of every match.

The log is the truth. Every input and action is appended (and committed) *before* the
engine sees it, so after a crash or a power cut the match is rebuilt by feeding the
logged entries, in order, to a fresh engine (see `replay`).

Durability: WAL journal with synchronous=FULL. In WAL mode NORMAL survives a killed
process but may lose the last commits on a power cut, which the café's Pi will see;
FULL syncs the WAL on every commit, so an entry that was committed is on the card. The
cost is one fsync per input: a handful per second at most, during a turn.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    settings_json TEXT NOT NULL,
    positions_json TEXT NOT NULL,
    status TEXT NOT NULL,
    code TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS inputs (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    t REAL NOT NULL,
    kind TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

# A match is "active" while it is played, "finished" when the engine ended it, "ended"
# when the game master closed it early (scores stand), "abandoned" when it does not count.
STATUSES = ("active", "finished", "ended", "abandoned")
ENTRY_KINDS = ("input", "action", "advance")


@dataclass(frozen=True)
class MatchRecord:
    id: int
    created: str
    settings: dict[str, Any]
    positions: dict[str, str]
    status: str
    code: str


@dataclass(frozen=True)
class Entry:
    """One line of a match's log: `t` in match seconds (0 = when the match was set up)."""

    seq: int
    t: float
    kind: str  # input | action | advance
    data: dict[str, Any]


class StoreError(Exception):
    """The database cannot be used (not SQLite, newer schema, read-only ...)."""


class SQLiteFile:
    """One SQLite file with a versioned schema and a `settings` table; a context manager,
    `close()` idempotent. The cockpit's store and the venue's are both one of these."""

    SCHEMA = ""  # CREATE ... IF NOT EXISTS statements, a `settings (key, value)` table among them
    VERSION = 1
    SYNCHRONOUS = "FULL"
    WHAT = "schema"

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={self.SYNCHRONOUS}")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > self.VERSION:
                raise StoreError(f"{self.path}: made by a newer penguin-panel ({self.WHAT} {version})")
            self._db.executescript(self.SCHEMA)
            if version < self.VERSION:
                self._db.execute(f"PRAGMA user_version={self.VERSION}")
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open the database ({e})") from None
        except OSError as e:
            raise StoreError(f"{self.path}: cannot open the database ({e.strerror})") from None

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        db, self._db = getattr(self, "_db", None), None
        if db is not None:
            db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._db is None

    # ------------------------------------------------------------------ settings
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        self._db.execute("INSERT INTO settings(key, value) VALUES(?, ?) "
                         "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    def settings(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM settings"))


class Store(SQLiteFile):
    """The cockpit's store."""

    SCHEMA = _SCHEMA
    VERSION = SCHEMA_VERSION

    def __init__(self, path: str | Path):
        super().__init__(path)
        self._next_seq: dict[int, int] = {}

    def __enter__(self) -> "Store":
        return self

    # ------------------------------------------------------------------ matches
    def create_match(self, settings: dict[str, Any], positions: dict[str, str], code: str) -> int:
        created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        cur = self._db.execute(
            "INSERT INTO matches(created, settings_json, positions_json, status, code) VALUES(?,?,?,?,?)",
            (created, json.dumps(settings, sort_keys=True), json.dumps(positions, sort_keys=True),
             "active", code))
        self._next_seq[cur.lastrowid] = 1
        return cur.lastrowid

    def set_status(self, match_id: int, status: str) -> None:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}")
        self._db.execute("UPDATE matches SET status=? WHERE id=?", (status, match_id))

    def match(self, match_id: int) -> MatchRecord | None:
        row = self._db.execute("SELECT id, created, settings_json, positions_json, status, code "
                               "FROM matches WHERE id=?", (match_id,)).fetchone()
        return _record(row) if row else None

    def latest_match(self) -> MatchRecord | None:
        row = self._db.execute("SELECT id, created, settings_json, positions_json, status, code "
                               "FROM matches ORDER BY id DESC LIMIT 1").fetchone()
        return _record(row) if row else None

    def matches(self) -> list[MatchRecord]:
        rows = self._db.execute("SELECT id, created, settings_json, positions_json, status, code "
                                "FROM matches ORDER BY id").fetchall()
        return [_record(r) for r in rows]

    # ------------------------------------------------------------------ the log
    def append(self, match_id: int, t: float, kind: str, data: dict[str, Any]) -> int:
        """Append one entry and commit it (autocommit: one durable transaction)."""
        if kind not in ENTRY_KINDS:
            raise ValueError(f"kind must be one of {', '.join(ENTRY_KINDS)}")
        seq = self._next_seq.get(match_id)
        if seq is None:
            row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM inputs WHERE match_id=?",
                                   (match_id,)).fetchone()
            seq = row[0] + 1
        self._db.execute("INSERT INTO inputs(match_id, seq, t, kind, json) VALUES(?,?,?,?,?)",
                         (match_id, seq, float(t), kind, json.dumps(data, sort_keys=True)))
        self._next_seq[match_id] = seq + 1
        return seq

    def entries(self, match_id: int) -> list[Entry]:
        rows = self._db.execute("SELECT seq, t, kind, json FROM inputs WHERE match_id=? ORDER BY seq",
                                (match_id,)).fetchall()
        return [Entry(seq, t, kind, json.loads(j)) for seq, t, kind, j in rows]


def _record(row) -> MatchRecord:
    mid, created, settings_json, positions_json, status, code = row
    return MatchRecord(mid, created, json.loads(settings_json), json.loads(positions_json), status, code)
