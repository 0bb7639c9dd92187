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

import fcntl
import json
import os
import socket
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


class DatabaseInUse(StoreError):
    """Another `play` owns the database."""


class OwnerLock:
    """The one service that owns a database: an exclusive flock on `<db>.lock` beside it,
    taken before anything is read, restored or written, and held until the process ends
    (the kernel drops it on any exit, SIGKILL and power cut included, so there is nothing
    stale to clean up). The file says who holds it, for the one line a second `play` prints.
    A context manager; `close()` is idempotent. Other commands (matches, debrief,
    reset-pin) read or write a row without it, as SQLite lets them."""

    def __init__(self, db: str | Path):
        self.db = Path(db)
        self.path = self.db.with_name(self.db.name + ".lock")
        self._fd: int | None = None
        self._info: dict[str, Any] = {}

    def acquire(self) -> "OwnerLock":
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise StoreError(f"{self.db}: cannot open the database (its lock file {self.path.name}: {e.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise DatabaseInUse(f"{self.db} is in use by {holder}: stop that one first "
                                "(or give this one another --db)") from None
        except OSError as e:
            os.close(fd)
            raise StoreError(f"{self.db}: cannot open the database (cannot lock {self.path.name}: {e.strerror})") from None
        self._fd = fd
        self.note(pid=os.getpid(), host=socket.gethostname(), since=time.strftime("%Y-%m-%d %H:%M:%S"))
        return self

    def note(self, **info: Any) -> None:
        """Add to what the lock file says about its holder (the address, once it serves)."""
        if self._fd is None:
            return
        self._info.update(info)
        data = json.dumps(self._info, sort_keys=True).encode()
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, data, 0)
        except OSError:
            pass  # only the message of a second play would be poorer

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # drops the lock

    def __enter__(self) -> "OwnerLock":
        return self.acquire() if self._fd is None else self

    def __exit__(self, *exc) -> None:
        self.close()


def _read_holder(fd: int) -> str:
    try:
        info = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        info = {}
    if not isinstance(info, dict) or "pid" not in info:
        return "another penguin-panel play (starting up)"
    where = f", serving {info['url']}" if info.get("url") else ", starting up"
    return f"penguin-panel play (pid {info['pid']} on {info.get('host', '?')}{where}, since {info.get('since', '?')})"


class Store:
    """One SQLite file. A context manager; `close()` is idempotent."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: made by a newer penguin-panel (schema {version})")
            self._db.executescript(_SCHEMA)
            if version < SCHEMA_VERSION:
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: cannot open the database ({e})") from None
        except OSError as e:
            raise StoreError(f"{self.path}: cannot open the database ({e.strerror})") from None
        self._next_seq: dict[int, int] = {}

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        db, self._db = getattr(self, "_db", None), None
        if db is not None:
            db.close()

    def __enter__(self) -> "Store":
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
