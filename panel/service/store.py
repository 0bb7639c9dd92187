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
import struct
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..i18n import N_

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
CREATE TABLE IF NOT EXISTS set_aside (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    reason TEXT NOT NULL,
    at TEXT NOT NULL
);
"""

# A match is "active" while it is played, "finished" when the engine ended it, "ended"
# when the game master closed it early (scores stand), "abandoned" when it does not count,
# "set_aside" when a start could not restore it from its rows (the reason in set_aside).
STATUSES = ("active", "finished", "ended", "abandoned", "set_aside")
ENTRY_KINDS = ("input", "action", "advance")


@dataclass(frozen=True)
class MatchRecord:
    id: int
    created: str
    settings: dict[str, Any]
    positions: dict[str, str]
    status: str
    code: str
    problem: str | None = None  # why its settings or positions cannot be read (then both are {})


@dataclass(frozen=True)
class Entry:
    """One line of a match's log: `t` in match seconds (0 = when the match was set up)."""

    seq: int
    t: float
    kind: str  # input | action | advance
    data: dict[str, Any]


class StoreError(Exception):
    """The database cannot be used (not SQLite, newer schema, read-only ...)."""


class StoreWriteError(StoreError):
    """A write the database refused (a full disk, a read-only or failing card): the reason
    in plain words. Nothing of that write is kept; the caller tells whoever asked."""


def _plain(e: sqlite3.Error) -> str:
    text = str(e)
    for cause, words in (("disk is full", N_("the disk is full")), ("readonly", N_("the database is read-only")),
                         ("disk I/O error", N_("the disk could not be written (I/O error)")),
                         ("locked", N_("the database is locked by another program"))):
        if cause in text:
            return words
    return text.splitlines()[0][:160] if text else type(e).__name__


class BadRow(StoreError):
    """A row of the database that cannot be read (invalid JSON, the wrong shape)."""


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


class SQLiteFile:
    """One SQLite file with a versioned schema and a `settings` table; a context manager,
    `close()` idempotent. The cockpit's store and the venue's are both one of these."""

    SCHEMA = ""  # CREATE ... IF NOT EXISTS statements, a `settings (key, value)` table among them
    VERSION = 1
    SYNCHRONOUS = "FULL"
    WHAT = "schema"

    def __init__(self, path: str | Path, *, scan_wal: bool = False):
        """scan_wal: look for damage in a WAL left by a crash before SQLite reads it (only the
        owner of the database may: another process's WAL is being written)."""
        self.path = Path(path)
        self.warnings: list[str] = []  # what a person should hear about the file, one line each
        if scan_wal:
            damage = wal_damage(self.path)
            if damage:
                self.warnings.append(damage)
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

    def quick_check(self) -> str | None:
        """SQLite's quick_check: None when the file is whole, else its first findings."""
        try:
            rows = [r[0] for r in self._db.execute("PRAGMA quick_check(5)")]
        except sqlite3.DatabaseError as e:
            return f"{self.path}: the database is damaged ({e})"
        if rows == ["ok"]:
            return None
        lines = [line.strip() for r in rows for line in str(r).splitlines()
                 if line.strip() and not line.startswith("*** in database")]
        return f"{self.path}: the database is damaged ({'; '.join(lines)[:300]})"

    @contextmanager
    def _writing(self):
        """Every write: an SQLite error becomes a StoreWriteError in plain words."""
        try:
            yield
        except sqlite3.Error as e:
            raise StoreWriteError(_plain(e)) from None

    # ------------------------------------------------------------------ settings
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        row = self._db.execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        with self._writing():
            self._db.execute("INSERT INTO settings(key, value) VALUES(?, ?) "
                             "ON CONFLICT(key) DO UPDATE SET value=excluded.value", (key, value))

    def settings(self) -> dict[str, str]:
        return dict(self._db.execute("SELECT key, value FROM settings"))


class Store(SQLiteFile):
    """The cockpit's store."""

    SCHEMA = _SCHEMA
    VERSION = SCHEMA_VERSION

    def __init__(self, path: str | Path, *, scan_wal: bool = False):
        super().__init__(path, scan_wal=scan_wal)
        self._next_seq: dict[int, int] = {}

    def __enter__(self) -> "Store":
        return self

    # ------------------------------------------------------------------ matches
    def create_match(self, settings: dict[str, Any], positions: dict[str, str], code: str) -> int:
        created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        with self._writing():
            cur = self._db.execute(
                "INSERT INTO matches(created, settings_json, positions_json, status, code) VALUES(?,?,?,?,?)",
                (created, json.dumps(settings, sort_keys=True), json.dumps(positions, sort_keys=True),
                 "active", code))
        self._next_seq[cur.lastrowid] = 1
        return cur.lastrowid

    def set_aside(self, match_id: int, reason: str) -> None:
        """Keep a match that cannot be restored out of the way, with the reason (its rows stay)."""
        with self._writing():
            self._db.execute("INSERT INTO set_aside(match_id, reason, at) VALUES(?,?,?) ON CONFLICT(match_id) "
                             "DO UPDATE SET reason=excluded.reason, at=excluded.at",
                             (match_id, reason, time.strftime("%Y-%m-%dT%H:%M:%S%z")))
        self.set_status(match_id, "set_aside")

    def set_aside_reason(self, match_id: int) -> str | None:
        row = self._db.execute("SELECT reason FROM set_aside WHERE match_id=?", (match_id,)).fetchone()
        return row[0] if row else None

    def set_status(self, match_id: int, status: str) -> None:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}")
        with self._writing():
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
        """Append one entry and commit it (autocommit: one durable transaction);
        StoreWriteError when it cannot be written (then nothing of it is kept)."""
        if kind not in ENTRY_KINDS:
            raise ValueError(f"kind must be one of {', '.join(ENTRY_KINDS)}")
        seq = self._next_seq.get(match_id)
        with self._writing():
            if seq is None:
                row = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM inputs WHERE match_id=?",
                                       (match_id,)).fetchone()
                seq = row[0] + 1
            self._db.execute("INSERT INTO inputs(match_id, seq, t, kind, json) VALUES(?,?,?,?,?)",
                             (match_id, seq, float(t), kind, json.dumps(data, sort_keys=True)))
        self._next_seq[match_id] = seq + 1
        return seq

    def entries(self, match_id: int) -> list[Entry]:
        """The match's log in order; BadRow naming the first entry that cannot be read."""
        rows = self._db.execute("SELECT seq, t, kind, json FROM inputs WHERE match_id=? ORDER BY seq",
                                (match_id,)).fetchall()
        out = []
        for seq, t, kind, j in rows:
            try:
                data = json.loads(j)
            except (TypeError, ValueError, RecursionError) as e:
                raise BadRow(f"match {match_id}, log entry {seq}: not valid JSON ({_short(e)})") from None
            if not isinstance(data, dict) or kind not in ENTRY_KINDS or not isinstance(t, (int, float)):
                raise BadRow(f"match {match_id}, log entry {seq}: not an input, action or advance")
            out.append(Entry(seq, t, kind, data))
        return out


def _short(e: BaseException) -> str:
    return str(e).splitlines()[0][:120] if str(e) else type(e).__name__


def _record(row) -> MatchRecord:
    """A match row; one whose settings or positions cannot be read says why in `problem`."""
    mid, created, settings_json, positions_json, status, code = row
    parsed = []
    for name, text in (("settings", settings_json), ("positions", positions_json)):
        try:
            value = json.loads(text)
        except (TypeError, ValueError, RecursionError) as e:
            return MatchRecord(mid, created, {}, {}, status, code, f"its {name} are not valid JSON ({_short(e)})")
        if not isinstance(value, dict):
            return MatchRecord(mid, created, {}, {}, status, code, f"its {name} are not a JSON object")
        parsed.append(value)
    return MatchRecord(mid, created, parsed[0], parsed[1], status, code)


# ---------------------------------------------------------------------------- the WAL

WAL_MAGIC = (0x377F0682, 0x377F0683)  # checksums little- or big-endian


def _wal_checksum(data: bytes, s0: int, s1: int, order: str) -> tuple[int, int]:
    """SQLite's WAL checksum (its file format, section 4.3), continued from (s0, s1)."""
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_damage(db: Path) -> str | None:
    """One line when the WAL a crash left beside `db` has committed changes SQLite will drop.

    SQLite reads a WAL up to the first frame whose checksum fails and silently ignores the
    rest. After a crash in the middle of a write that is only the torn last transaction,
    never acknowledged; but a frame garbled in the middle also drops every commit after
    it. Each frame's checksum chains on the one stored in the frame before, so frames
    after a bad one can still be checked: any whole commit among them means entries that
    were saved will be lost, and the service says so instead of starting as if whole."""
    wal = db.with_name(db.name + "-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if len(data) < 32:
        return None
    magic, _version, page_size, _ckpt, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:32])
    if magic not in WAL_MAGIC or not 512 <= page_size <= 65536:
        return f"{wal}: the journal's header is damaged: changes saved since the last checkpoint are lost"
    order = ">" if magic & 1 else "<"
    header_ok = _wal_checksum(data[:24], 0, 0, order) == (c1, c2)
    size = 24 + page_size
    frames = (len(data) - 32) // size
    previous = (c1, c2)
    first_bad = None if header_ok else 0
    lost_commits = 0
    for i in range(frames):
        frame = data[32 + i * size:32 + (i + 1) * size]
        _page, commit, fs1, fs2, f1, f2 = struct.unpack(">6I", frame[:24])
        ok = (fs1, fs2) == (salt1, salt2) and _wal_checksum(frame[:8] + frame[24:], *previous, order) == (f1, f2)
        previous = (f1, f2)
        if first_bad is None and not ok:
            first_bad = i
        elif first_bad is not None and ok and commit:
            lost_commits += 1
    if first_bad is None or not lost_commits:
        return None
    return (f"{wal}: the journal is damaged at page {first_bad + 1} of {frames}: {lost_commits} saved "
            f"change{'s' if lost_commits != 1 else ''} after it cannot be read and are lost "
            "(the match resumes from what could be read)")
