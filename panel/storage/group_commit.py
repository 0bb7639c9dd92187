"""Group commit: writes queued in order for a writer thread that commits them as one
transaction, off the caller's path; the store's reads laid over what is still queued.

Durability off the press path. A write is queued, in order, for the writer: a thread with
its own connection that commits what is queued as one transaction. Whoever queued it goes
on at once (the cockpit's engine judges a press as soon as its entry is queued); the write
reaches the card within `commit_within` seconds (COMMIT_WITHIN), or at once when somebody
waits for it: whatever answers a person or a script first awaits `flushed()`, which asks
the writer to commit now and returns once everything queued before it is on the card. So
a power cut loses at most the writes of the last COMMIT_WITHIN seconds, never an answered
request, and what it loses is always the end (the database holds every write up to some
point, in order, and nothing after it). One commit for many writes is also what spares
the SD card: one fsync and one WAL page for a batch instead of one per write.

A commit that fails (a full card, an I/O error) keeps its writes queued and is tried again,
waiting longer each time; meanwhile `failure` says why, whoever waits for a commit gets
StoreUnavailable, and every new write is refused with StoreWriteError (nothing of it kept),
so nothing is decided that may never be kept behind the writes that wait.

Reads on the caller's thread use the file's connection; `run(fn, ...)` runs a read on the
store's reader thread with its own connection, for reads that must not hold up the event
loop. A subclass lays `_queued(kind)` over what it reads, under `_reading()`.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from panel.core.errors import StoreError, StoreUnavailable, StoreWriteError
from panel.storage.sqlite import SQLiteFile, plain_error

log = logging.getLogger("penguin-panel")

COMMIT_WITHIN = 5.0  # seconds a queued write may wait for its commit when nobody waits on it
RETRY_FIRST, RETRY_MOST = 0.5, 30.0  # seconds between attempts while the card cannot be written


@dataclass(slots=True)
class QueuedWrite:
    ticket: int
    kind: str  # setting | match | status | set_aside | entry | summary | job
    args: tuple
    at: float  # time.monotonic() when queued


class GroupCommit(SQLiteFile):
    """An SQLite file written through a writer thread (see above). `close()` commits what is queued."""

    def __init__(self, path: str | Path, *, commit_within: float = COMMIT_WITHIN, scan_wal: bool = False):
        self.commit_within = commit_within
        # The condition's lock, held as itself where a press's write is queued and the
        # writer woken: `with` on the RLock is C, on the Condition two Python calls around it.
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._queue: list[QueuedWrite] = []     # waiting for the writer
        self._inflight: list[QueuedWrite] = []  # being committed
        self._ticket = 0                   # the last ticket given
        self._durable = 0                  # every ticket up to this one is committed
        self._wanted = 0                   # somebody waits for the tickets up to this one
        self._waiters: list[tuple[int, asyncio.Future]] = []
        self._closing = False
        self._writer: threading.Thread | None = None
        self._wake_owed = False  # a write was queued with wake=False and the sleeping writer not told yet
        self._reader: ThreadPoolExecutor | None = None
        self._local = threading.local()
        self.failure: str | None = None  # why the writer cannot commit now, or None
        # Called on the writer's thread when `failure` changes (the cockpit shows it on the pages).
        self.listener: Callable[[], None] | None = None
        self._failures = 0  # attempts that failed
        self.commits = 0  # transactions committed by the writer (the benchmarks count them)
        super().__init__(path, scan_wal=scan_wal)

    def _conn(self) -> sqlite3.Connection:
        """The connection of the calling thread: the reader's and the writer's own, else the store's."""
        return getattr(self._local, "db", None) or self._db

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        if getattr(self, "_db", None) is None:
            return
        writer = self._writer
        if writer is not None:
            with self._cond:
                self._closing = True
                self._wanted = self._ticket
                self._cond.notify_all()
            writer.join()
        reader, self._reader = self._reader, None
        if reader is not None:
            reader.submit(self._close_local)
            reader.shutdown(wait=True)
        super().close()

    def __enter__(self):
        return self

    # ------------------------------------------------------------------ durability
    async def flushed(self) -> None:
        """Return once every write queued so far is committed (asking the writer to commit
        now); raise StoreUnavailable when the writer's next attempt fails."""
        with self._cond:
            ticket = self._ticket
            if self._durable >= ticket:
                return
            future = asyncio.get_running_loop().create_future()
            self._waiters.append((ticket, future))
            self._wanted = max(self._wanted, ticket)
            self._cond.notify_all()
        await future

    async def writable(self) -> None:
        """For a request about to write: returns at once while the writer commits. While it
        cannot, the writer tries again now (what waits is committed if it can) and this
        returns once it could, or raises StoreWriteError once it could not: the request
        changes nothing and says why, as it would have from a write of its own."""
        if self.failure is None:
            return
        try:
            await self.flushed()
        except StoreUnavailable as e:
            raise StoreWriteError(str(e)) from None

    def sync(self) -> None:
        """Block until every write queued so far is committed (for commands and tests; the
        service's loop awaits `flushed` instead). Raises StoreUnavailable as `flushed` does."""
        with self._cond:
            ticket = self._ticket
            self._wanted = max(self._wanted, ticket)
            self._cond.notify_all()
            failures = self._failures
            while self._durable < ticket:
                if self._failures != failures:
                    raise StoreUnavailable(self.failure)
                self._cond.wait()

    @property
    def pending(self) -> int:
        """Writes queued or being committed."""
        with self._cond:
            return len(self._queue) + len(self._inflight)

    def _queue_write(self, kind: str, *args: Any, wake: bool = True, decided: bool = False) -> int:
        """Queue one write; StoreWriteError at once while the writer cannot commit (nothing
        of this write is kept, as SQLite keeps nothing of a statement that fails). Refusing
        keeps the log a prefix of what was decided: nothing is judged that a commit behind
        it may never keep. Each refusal asks the writer to try again now. With `wake` False
        a sleeping writer is told only at `wake_writer()` (the write is queued, and read,
        at once). `decided`: a write its caller acted on once `failure` said the store
        wrote (the cockpit's engine judges a press, then its entry is queued): queued even if
        a commit has failed since, to be tried again with what waits before it."""
        if self._db is None:
            raise StoreError(f"{self.path}: the store is closed")
        with self._lock:
            if self.failure is not None and not decided:
                self._wanted = max(self._wanted, self._ticket)
                self._cond.notify_all()
                raise StoreWriteError(self.failure)
            self._ticket += 1
            self._queue.append(QueuedWrite(self._ticket, kind, args, time.monotonic()))
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_loop, name="store-writer", daemon=True)
                self._writer.start()
            elif len(self._queue) == 1:
                if wake:
                    self._cond.notify_all()  # the writer sleeps until something is queued
                else:
                    self._wake_owed = True
            return self._ticket

    def wake_writer(self) -> None:
        """Tell the writer of the writes queued with wake=False. The cockpit queues what a
        press writes before its light (a walk-up's new match) with wake=False and wakes the
        writer once the light is out: the writer's thread waking (it takes the interpreter
        to set its commit's timer) is no part of the press's answer. Nothing is later on the
        card for it: the commit waits COMMIT_WITHIN from when the write was queued."""
        if self._wake_owed:
            with self._lock:  # (the condition's own lock, as in _queue_write)
                self._wake_owed = False
                self._cond.notify_all()

    def _write_loop(self) -> None:
        self._local.db = self._writer_db = db = self._connect()  # (a test fills the disk through it)
        retry = RETRY_FIRST
        try:
            while True:
                batch = self._next_batch()
                if batch is None:
                    return
                try:
                    self._commit(db, batch)
                except sqlite3.Error as e:
                    if self._failed(batch, plain_error(e)):
                        return
                    with self._cond:  # until the backoff ends, or somebody waits for a commit
                        self._wanted = self._durable
                        self._cond.wait_for(lambda: self._wanted > self._durable or self._closing, retry)
                    retry = min(retry * 2, RETRY_MOST)
                    continue
                retry = RETRY_FIRST
                self._committed(batch)
        finally:
            db.close()

    def _next_batch(self) -> list[QueuedWrite] | None:
        """The writes to commit next (the ones a failed commit left first), once there are
        some; None when the store closes with nothing left to write."""
        with self._cond:
            while True:
                while not self._queue and not self._inflight and not self._closing:
                    self._cond.wait()
                # Group commit: gather until somebody waits, or the oldest write has
                # waited commit_within, or the store closes.
                while (self._queue and not self._closing and self._wanted <= self._durable
                       and not self._inflight):
                    left = self._queue[0].at + self.commit_within - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                if not self._queue and not self._inflight:
                    if self._closing:
                        return None
                    continue
                self._inflight += self._queue
                self._queue = []
                return list(self._inflight)

    def _failed(self, batch: list[QueuedWrite], reason: str) -> bool:
        """A commit failed: said, whoever waited told; True when the store is closing (the
        writer gives up), else the writes stay queued for the next attempt."""
        with self._cond:
            first = self.failure is None
            changed = self.failure != reason
            self.failure = reason
            self._failures += 1
            self._cond.notify_all()
            waiters = [w for w in self._waiters]
            self._waiters = []
            closing = self._closing
        if first:
            log.error("cannot write the database %s: %s (%d writes kept, retrying)",
                      self.path, reason, len(batch))
        self._wake(waiters, StoreUnavailable(reason))
        if changed:
            self._tell()
        if closing:
            log.error("stopping with %d writes the database could not take: %s", len(batch), reason)
        return closing

    def _committed(self, batch: list[QueuedWrite]) -> None:
        with self._cond:
            recovered = self.failure is not None
            if recovered:
                log.warning("the database %s takes writes again", self.path)
            self.failure = None
            self.commits += 1
            self._durable = batch[-1].ticket
            self._inflight = []
            done = [w for w in self._waiters if w[0] <= self._durable]
            self._waiters = [w for w in self._waiters if w[0] > self._durable]
            self._cond.notify_all()
        self._wake(done, None)
        if recovered:
            self._tell()

    def _tell(self) -> None:
        """Tell the listener (on the writer's thread) that `failure` changed."""
        listener = self.listener
        if listener is not None:
            try:
                listener()
            except Exception:  # the writer must go on whatever its listener does
                log.exception("the store's listener failed")

    @staticmethod
    def _wake(waiters: list[tuple[int, asyncio.Future]], error: BaseException | None) -> None:
        for _, future in waiters:
            try:
                future.get_loop().call_soon_threadsafe(_settle, future, error)
            except RuntimeError:  # its loop has closed: nobody is waiting any more
                pass

    def _commit(self, db: sqlite3.Connection, batch: list[QueuedWrite]) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            for w in batch:
                try:
                    self._apply(db, w)
                except sqlite3.IntegrityError as e:
                    # One write the database refuses (a bug, or another process's row in the
                    # way) must not hold up every later one: said once, and left out.
                    log.error("the database %s refused a %s write: %s", self.path, w.kind, e)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
    def _apply(self, db: sqlite3.Connection, w: QueuedWrite) -> None:
        """Carry out one queued write inside the writer's transaction (the subclass's tables)."""
        raise NotImplementedError

    def _reading(self) -> threading.Condition:
        """Held by a read that lays the queued writes over what it reads from the file: the
        writer cannot mark a batch committed between the two, when the read would find it
        in neither (a finished match read as still active: its result never sent)."""
        return self._cond

    def _queued(self, kind: str) -> list[tuple]:
        """The args of the writes of one kind not yet committed, in order (laid over reads)."""
        with self._cond:
            return [w.args for w in (*self._inflight, *self._queue) if w.kind == kind]

    # ------------------------------------------------------------------ reads off the loop
    async def run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """fn(*args) on the store's reader thread, whose reads use its own connection."""
        if self._reader is None:
            self._reader = ThreadPoolExecutor(1, thread_name_prefix="store-reader")
        return await asyncio.get_running_loop().run_in_executor(self._reader, self._in_reader, fn, args)

    def _in_reader(self, fn: Callable[..., Any], args: tuple) -> Any:
        if getattr(self._local, "db", None) is None:
            self._local.db = self._connect()
        return fn(*args)

    def _close_local(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            self._local.db = None
            db.close()


def _settle(future: asyncio.Future, error: BaseException | None) -> None:
    if not future.done():
        if error is None:
            future.set_result(None)
        else:
            future.set_exception(error)
