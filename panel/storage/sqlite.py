"""The SQLite kit: one file with a versioned schema, its owner's lock, its damage checks.

What the cockpit's store (panel/storage/store.py) and the venue's (panel/venue/store.py)
share and nothing of either's tables: opening a file (WAL, the synchronous level each
chooses, a busy timeout, foreign keys), the schema version in `user_version`, the settings
table, `quick_check`, the scan of a WAL a crash left for commits SQLite would drop, and
the exclusive lock (`<db>.lock`) of the one process that owns a database. Its errors are
the core's (panel.core.errors), so the layers above catch them without importing SQLite.
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
from pathlib import Path
from typing import Any

from panel.core.errors import DatabaseInUse, DatabaseUnusable, StoreError, StoreWriteError
from panel.core.i18n import N_, Text

BUSY_MS = 5000  # how long a connection waits for another process's write (matches prune)


def plain_error(e: sqlite3.Error) -> str:
    text = str(e)
    for cause, words in (("disk is full", N_("the disk is full")), ("readonly", N_("the database is read-only")),
                         ("disk I/O error", N_("the disk could not be written (I/O error)")),
                         ("locked", N_("the database is locked by another program"))):
        if cause in text:
            return words
    return text.splitlines()[0][:160] if text else type(e).__name__


def _damage(e: sqlite3.Error) -> bool:
    """Whether an SQLite error says the file itself is damaged (not the disk or the rights)."""
    text = str(e)
    return any(w in text for w in ("malformed", "not a database", "no such table", "corrupt"))


def move_aside(path: str | Path, *, now: float | None = None) -> Path:
    """Keep an unusable database (and its WAL and shared-memory files) beside it under a new
    name, `<name>.damaged-<date>-<time>`, so a new one can start in its place; the new name."""
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    kept = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while kept.exists():  # two in one second: never over an older one
        n += 1
        kept = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    os.replace(path, kept)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            os.replace(side, kept.with_name(kept.name + suffix))
    return kept


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
            raise StoreError(Text(N_("{db}: cannot open the database (its lock file {file}: {why})"), db=self.db,
                                  file=self.path.name, why=e.strerror)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise DatabaseInUse(Text(N_("{db} is in use by {holder}: stop that one first (or give this one another --db)"),
                                     db=self.db, holder=holder)) from None
        except OSError as e:
            os.close(fd)
            raise StoreError(Text(N_("{db}: cannot open the database (cannot lock {file}: {why})"), db=self.db,
                                  file=self.path.name, why=e.strerror)) from None
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
    PAGE_SIZE: int | None = None  # for a database made now; None: SQLite's own
    WHAT = "schema"

    def __init__(self, path: str | Path, *, scan_wal: bool = False):
        """scan_wal: look for damage in a WAL left by a crash before SQLite reads it (only the
        owner of the database may: another process's WAL is being written)."""
        self.path = Path(path)
        self.warnings: list[Text] = []  # what a person should hear about the file, one line each
        if scan_wal:
            damage = wal_damage(self.path)
            if damage:
                self.warnings.append(damage)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = self._connect()
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > self.VERSION:
                raise DatabaseUnusable(Text(N_("{db}: made by a newer penguin-panel ({what} {version})"),
                                            db=self.path, what=self.WHAT, version=version), path=self.path)
            self._migrate(version)
            self._opened()
        except BaseException as e:
            self.close()  # no connection left on a file that may be moved aside
            if isinstance(e, StoreError):
                raise
            if isinstance(e, sqlite3.OperationalError) and not _damage(e):
                # the disk, the card, the permissions: the file itself may be fine
                raise StoreError(Text(N_("{db}: cannot open the database ({why})"), db=self.path, why=e)) from None
            if isinstance(e, sqlite3.DatabaseError):  # not SQLite, truncated, malformed
                raise DatabaseUnusable(Text(N_("{db}: cannot open the database ({why})"), db=self.path, why=e),
                                       path=self.path) from None
            if isinstance(e, OSError):
                raise StoreError(Text(N_("{db}: cannot open the database ({why})"), db=self.path,
                                      why=e.strerror)) from None
            raise

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        if self.PAGE_SIZE:
            db.execute(f"PRAGMA page_size={self.PAGE_SIZE}")  # before WAL: it takes effect only on a new database
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={self.SYNCHRONOUS}")
        db.execute("PRAGMA foreign_keys=ON")
        return db

    def _migrate(self, version: int) -> None:
        """Bring a database at `version` up to this schema."""
        self._db.executescript(self.SCHEMA)
        if version < self.VERSION:
            self._db.execute(f"PRAGMA user_version={self.VERSION}")

    def _opened(self) -> None:
        """What a subclass reads once the schema is right."""

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

    def quick_check(self) -> Text | None:
        """SQLite's quick_check: None when the file is whole, else its first findings (SQLite's
        own words, in English)."""
        damaged = N_("{path}: the database is damaged ({findings})")
        try:
            rows = [r[0] for r in self._db.execute("PRAGMA quick_check(5)")]
        except sqlite3.DatabaseError as e:
            return Text(damaged, path=str(self.path), findings=str(e))
        if rows == ["ok"]:
            return None
        lines = [line.strip() for r in rows for line in str(r).splitlines()
                 if line.strip() and not line.startswith("*** in database")]
        return Text(damaged, path=str(self.path), findings="; ".join(lines)[:300])

    @contextmanager
    def _writing(self):
        """Every write: an SQLite error becomes a StoreWriteError in plain words."""
        try:
            yield
        except sqlite3.Error as e:
            raise StoreWriteError(plain_error(e)) from None

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


# ---------------------------------------------------------------------------- the WAL

WAL_MAGIC = (0x377F0682, 0x377F0683)  # checksums little- or big-endian


def _wal_checksum(data: bytes, s0: int, s1: int, order: str) -> tuple[int, int]:
    """SQLite's WAL checksum (its file format, section 4.3), continued from (s0, s1)."""
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1


def wal_damage(db: Path) -> Text | None:
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
        return Text(N_("{journal}: the journal's header is damaged: changes saved since the last checkpoint are lost"),
                    journal=str(wal))
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
    return Text(N_("{journal}: the journal is damaged at page {page} of {pages}: the changes saved after it "
                   "({lost} of them) cannot be read and are lost (the match resumes from what could be read)"),
                journal=str(wal), page=first_bad + 1, pages=frames, lost=lost_commits)
