"""The service's SQLite store: matches, settings, and the input log of every match.

The log is the truth: after a crash or a power cut the match is rebuilt by feeding the
logged entries, in order, to a fresh engine (see `replay`).

Durability off the press path (panel/storage/group_commit.py): a write (`append`,
`create_match`, `set_status`, `set_setting`, `put_summary`) is queued, in order, for the
store's writer thread, which commits what is queued as one transaction; the engine judges
a press as soon as its entry is queued, and whatever answers a person or a script first
awaits `flushed()`. So a power cut loses at most the panel's inputs of the last
COMMIT_WITHIN seconds, never an answered request, and always the end of the log. While the
card cannot be written, `failure` says why and every new write is refused with
StoreWriteError, so nothing is judged that may never be kept behind the writes that wait.

WAL journal with synchronous=FULL: a transaction that committed is on the card.

Reads see everything written through this store, committed or still queued (the queued
writes are laid over what the database returns), so the owner of the match reads its own
writes; `run(fn, ...)` runs a read on the store's reader thread, for the pages' history
reads that must not hold up the event loop.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from panel.core.errors import BadRow, StoreWriteError
from panel.core.statuses import STATUSES
from panel.service.ports import ENTRY_KINDS, Entry, MatchRecord, Summary
from panel.storage.group_commit import COMMIT_WITHIN, GroupCommit, QueuedWrite

log = logging.getLogger("penguin-panel")

SCHEMA_VERSION = 2
# Pages of 1 KiB: a commit rewrites the WAL frames of the pages it changed, and a 4 KiB page's
# frame (4,120 bytes with its header) straddles two of the card's 4 KiB blocks, a 1 KiB one
# mostly sits in one: a third fewer bytes written per commit. Set when a database is made
# (an existing one keeps its page size).
PAGE_SIZE = 1024

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    settings_json TEXT NOT NULL,
    positions_json TEXT NOT NULL,
    status TEXT NOT NULL,
    code TEXT NOT NULL,
    pruned TEXT
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
# Schema 2: a match's debrief kept as a summary (served without reading the log, and kept
# when the retention setting removes the log), and when a match's log was removed.
_SCHEMA_2 = """
CREATE TABLE IF NOT EXISTS summaries (
    match_id INTEGER PRIMARY KEY REFERENCES matches(id),
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    json TEXT NOT NULL
);
"""

_MATCH_COLUMNS = "id, created, settings_json, positions_json, status, code, pruned"


class Store(GroupCommit):
    """The cockpit's store. `close()` commits what is queued."""

    SCHEMA = _SCHEMA
    VERSION = SCHEMA_VERSION
    PAGE_SIZE = PAGE_SIZE

    def __init__(self, path: str | Path, *, commit_within: float = COMMIT_WITHIN, scan_wal: bool = False):
        self._next_seq: dict[int, int] = {}
        super().__init__(path, commit_within=commit_within, scan_wal=scan_wal)

    def _migrate(self, version: int) -> None:
        if version < self.VERSION:  # made now, or made by schema 1: one transaction either way
            self._db.executescript(f"BEGIN IMMEDIATE; {_SCHEMA}"
                                   f"{'ALTER TABLE matches ADD COLUMN pruned TEXT;' if version == 1 else ''}"
                                   f"{_SCHEMA_2} PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")

    def _opened(self) -> None:
        row = self._db.execute("SELECT MAX(id) FROM matches").fetchone()
        seq = self._db.execute("SELECT seq FROM sqlite_sequence WHERE name='matches'").fetchone()
        # Ids are given here, not by SQLite, so a match set up by START is known at once
        # (its first press is judged before the writer has committed it). AUTOINCREMENT's
        # counter is honoured: an id is never given twice, even after its match was removed.
        self._next_id = max(row[0] or 0, seq[0] if seq else 0) + 1

    def __enter__(self) -> "Store":
        return self

    @staticmethod
    def _apply(db: sqlite3.Connection, w: QueuedWrite) -> None:  # the cockpit's tables (see GroupCommit)
        a = w.args
        if w.kind == "entry":
            mid, e = a
            db.execute("INSERT INTO inputs(match_id, seq, t, kind, json) VALUES(?,?,?,?,?)",
                       (mid, e.seq, float(e.t), e.kind, json.dumps(e.data, sort_keys=True)))
        elif w.kind == "setting":
            db.execute("INSERT INTO settings(key, value) VALUES(?, ?) "
                       "ON CONFLICT(key) DO UPDATE SET value=excluded.value", a)
        elif w.kind == "match":
            r = a[0]
            db.execute("INSERT INTO matches(id, created, settings_json, positions_json, status, code) "
                       "VALUES(?,?,?,?,?,?)", (r.id, r.created, json.dumps(r.settings, sort_keys=True),
                                               json.dumps(r.positions, sort_keys=True), r.status, r.code))
        elif w.kind == "status":
            db.execute("UPDATE matches SET status=? WHERE id=?", (a[1], a[0]))
        elif w.kind == "summary":
            s = a[0]
            db.execute("INSERT INTO summaries(match_id, seq, status, json) VALUES(?,?,?,?) "
                       "ON CONFLICT(match_id) DO UPDATE SET seq=excluded.seq, status=excluded.status, "
                       "json=excluded.json", (s.match_id, s.seq, s.status, s.json))
        elif w.kind == "set_aside":
            db.execute("INSERT INTO set_aside(match_id, reason, at) VALUES(?,?,?) ON CONFLICT(match_id) "
                       "DO UPDATE SET reason=excluded.reason, at=excluded.at", a)
        elif w.kind == "job":
            a[0](db)

    # ------------------------------------------------------------------ settings
    def get_setting(self, key: str, default: str | None = None) -> str | None:
        queued = [v for k, v in self._queued("setting") if k == key]
        if queued:
            return queued[-1]
        row = self._conn().execute("SELECT value FROM settings WHERE key=?", (key,)).fetchone()
        return row[0] if row else default

    def set_setting(self, key: str, value: str) -> None:
        self._queue_write("setting", key, value)

    def settings(self) -> dict[str, str]:
        with self._reading():
            out = dict(self._conn().execute("SELECT key, value FROM settings"))
            out.update(self._queued("setting"))
            return out

    # ------------------------------------------------------------------ matches
    def create_match(self, settings: dict[str, Any], positions: dict[str, str], code: str, *,
                     wake: bool = True) -> MatchRecord:
        """Queue a new match's row; its record (its id given now). StoreWriteError and `wake`
        as `_queue_write`'s."""
        record = MatchRecord(self._next_id, time.strftime("%Y-%m-%dT%H:%M:%S%z"), settings, positions,
                             "active", code)
        self._queue_write("match", record, wake=wake)
        self._next_id += 1
        self._next_seq[record.id] = 1
        return record

    def set_aside(self, match_id: int, reason: str) -> None:
        """Keep a match that cannot be restored out of the way, with the reason (its rows stay)."""
        self._queue_write("set_aside", match_id, reason, time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        self.set_status(match_id, "set_aside")

    def set_aside_reason(self, match_id: int) -> str | None:
        for mid, reason, _at in reversed(self._queued("set_aside")):
            if mid == match_id:
                return reason
        row = self._conn().execute("SELECT reason FROM set_aside WHERE match_id=?", (match_id,)).fetchone()
        return row[0] if row else None

    def set_status(self, match_id: int, status: str) -> None:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}")
        self._queue_write("status", match_id, status)

    def match(self, match_id: int) -> MatchRecord | None:
        with self._reading():
            row = self._conn().execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id=?", (match_id,)).fetchone()
            return self._overlaid(_record(row) if row else None, match_id)

    def _overlaid(self, record: MatchRecord | None, match_id: int) -> MatchRecord | None:
        for r, in self._queued("match"):
            if r.id == match_id:
                record = r
        for mid, status in self._queued("status"):
            if mid == match_id and record is not None:
                record = replace(record, status=status)
        return record

    def latest_match(self) -> MatchRecord | None:
        with self._reading():
            queued = [r.id for r, in self._queued("match")]
            if queued:
                return self.match(max(queued))
            row = self._conn().execute(f"SELECT {_MATCH_COLUMNS} FROM matches ORDER BY id DESC LIMIT 1").fetchone()
            return self._overlaid(_record(row), row[0]) if row else None

    def matches_page(self, *, before: int | None = None, limit: int = 50) -> list[MatchRecord]:
        """Up to `limit` matches, newest first, with ids below `before`: the primary key's
        order, so a page costs the same with ten matches stored or ten thousand."""
        before = before if before is not None else 2**62
        with self._reading():
            rows = self._conn().execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id < ? ORDER BY id DESC LIMIT ?",
                                        (before, limit)).fetchall()
            records = {r[0]: _record(r) for r in rows}
            for r, in self._queued("match"):
                if r.id < before:
                    records[r.id] = r
            ids = sorted(records, reverse=True)[:limit]
            return [self._overlaid(records[i], i) for i in ids]

    def matches(self) -> list[MatchRecord]:
        """Every stored match, oldest first (for commands; the pages read them a page at a time)."""
        return list(reversed(list(self.iter_matches())))

    def iter_matches(self, page: int = 200) -> Iterator[MatchRecord]:
        """Every stored match, newest first, read a page at a time."""
        before = None
        while True:
            records = self.matches_page(before=before, limit=page)
            yield from records
            if len(records) < page:
                return
            before = records[-1].id

    # ------------------------------------------------------------------ the log
    def append(self, match_id: int, t: float, kind: str, data: dict[str, Any], *, wake: bool = True,
               decided: bool = False) -> int:
        """Queue one entry for the writer; its sequence number in the match's log.
        StoreWriteError while the writer cannot commit (nothing of it is kept). `wake` and
        `decided`: as `_queue_write`'s."""
        if kind not in ENTRY_KINDS:
            raise ValueError(f"kind must be one of {', '.join(ENTRY_KINDS)}")
        seq = self._next_seq.get(match_id)
        if seq is None:
            seq = self.last_seq(match_id) + 1
        self._queue_write("entry", match_id, Entry(seq, float(t), kind, data), wake=wake, decided=decided)
        self._next_seq[match_id] = seq + 1
        return seq

    def last_seq(self, match_id: int) -> int:
        """The sequence number of the match's last entry (0 for none): one look-up in the
        log's primary key, however long the log."""
        queued = [e.seq for mid, e in self._queued("entry") if mid == match_id]
        row = self._conn().execute("SELECT MAX(seq) FROM inputs WHERE match_id=?", (match_id,)).fetchone()
        return max([row[0] or 0, *queued])

    def entries(self, match_id: int) -> list[Entry]:
        """The match's log in order (what is queued after what is committed); BadRow naming
        the first entry that cannot be read."""
        queued = [e for mid, e in self._queued("entry") if mid == match_id]
        rows = self._conn().execute("SELECT seq, t, kind, json FROM inputs WHERE match_id=? ORDER BY seq",
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
        last = out[-1].seq if out else 0
        return out + [e for e in queued if e.seq > last]

    # ------------------------------------------------------------------ summaries and retention
    def summary(self, match_id: int) -> Summary | None:
        for s, in reversed(self._queued("summary")):
            if s.match_id == match_id:
                return s
        row = self._conn().execute("SELECT match_id, seq, status, json FROM summaries WHERE match_id=?",
                                   (match_id,)).fetchone()
        return Summary(*row) if row else None

    def put_summary(self, summary: Summary) -> None:
        self._queue_write("summary", summary)

    def matches_after(self, after: int = 0, *, limit: int = 200, with_log: bool = False) -> list[MatchRecord]:
        """Up to `limit` matches with ids above `after`, oldest first (with_log: only those
        whose log the retention setting has not removed), in the primary key's order."""
        with self._reading():
            rows = self._conn().execute(f"SELECT {_MATCH_COLUMNS} FROM matches WHERE id > ? "
                                        f"{'AND pruned IS NULL ' if with_log else ''}ORDER BY id LIMIT ?",
                                        (after, limit)).fetchall()
            records = {r[0]: _record(r) for r in rows}
            for r, in self._queued("match"):
                if r.id > after:
                    records[r.id] = r
            ids = sorted(records)[:limit]
            return [self._overlaid(records[i], i) for i in ids]

    def remove_log(self, match_id: int, summary: Summary) -> None:
        """Keep the match's summary and drop its log (the retention setting), in one transaction."""
        pruned = time.strftime("%Y-%m-%dT%H:%M:%S%z")

        def job(db: sqlite3.Connection) -> None:
            Store._apply(db, QueuedWrite(0, "summary", (summary,), 0.0))
            db.execute("DELETE FROM inputs WHERE match_id=?", (match_id,))
            db.execute("UPDATE matches SET pruned=? WHERE id=?", (pruned, match_id))

        self._queue_write("job", job)


def _short(e: BaseException) -> str:
    return str(e).splitlines()[0][:120] if str(e) else type(e).__name__


def _record(row) -> MatchRecord:
    """A match row; one whose settings or positions cannot be read says why in `problem`."""
    mid, created, settings_json, positions_json, status, code, pruned = row
    parsed = []
    for name, text in (("settings", settings_json), ("positions", positions_json)):
        try:
            value = json.loads(text)
        except (TypeError, ValueError, RecursionError) as e:
            return MatchRecord(mid, created, {}, {}, status, code, pruned,
                               problem=f"its {name} are not valid JSON ({_short(e)})")
        if not isinstance(value, dict):
            return MatchRecord(mid, created, {}, {}, status, code, pruned, problem=f"its {name} are not a JSON object")
        parsed.append(value)
    return MatchRecord(mid, created, parsed[0], parsed[1], status, code, pruned)
