"""Whether the cockpit's store writes: the one line the pages show while it cannot, and the
pause before the owner tries again to log a deadline the store refused.

A press the store cannot log is refused (503, "not saved"); the match goes on from the
log it has. The error is said once when it starts and once when it ends (no flood in the
journal), and shown on every page in between.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from panel.core.backoff import Backoff
from panel.core.errors import UNSAVED, Refused, StoreError, StoreUnavailable, StoreWriteError
from panel.core.i18n import Word

log = logging.getLogger("penguin-panel")

RETRY_FIRST, RETRY_MOST = 0.5, 8.0  # seconds between tries to log a due deadline the store refused


class Saving:
    """The owner's writes to `store` (the match's log and status) and the store's
    health as they find it. `publish()` tells the pages (and the lights) that it changed."""

    def __init__(self, store: Any, *, publish: Callable[[], Any]):
        self.store = store
        self.publish = publish
        self.error: str | None = None  # why the last write failed, until one succeeds
        self.retry_at: float | None = None  # clock time of the next try to log a due deadline
        # Each wait twice the last, from RETRY_FIRST to RETRY_MOST; no jitter: one cockpit, one store.
        self.retry = Backoff(RETRY_FIRST, RETRY_MOST, jitter=0)
        self._taken: list[tuple[int, float, str, dict[str, Any]]] = []  # entries judged, for the store at flush()

    def append(self, match_id: int, t: float, kind: str, data: dict[str, Any]) -> None:
        """One entry into the match's log, taken now (the engine judges it next) and
        handed to the store at `flush()`, once the lights have answered, in order; Refused
        (503) when the store cannot write, and then nothing is judged. The store keeps
        an entry taken while it wrote even if a commit fails before it is handed over."""
        if self.store.failure is not None:
            self.flush()  # (what was taken before goes first)
            try:
                self.store.append(match_id, t, kind, data)  # refused, and the writer asked to try again now
            except StoreWriteError as e:
                raise self.unsaved(e) from None
            self.saved()  # (it could again, just now)
            return
        self._taken.append((match_id, t, kind, data))

    def flush(self) -> None:
        """The entries taken since handed to the store and its writer told (the owner calls
        it once the lights are out, before any other write, and after every item it takes:
        none is left behind)."""
        taken, self._taken = self._taken, []
        try:
            for match_id, t, kind, data in taken:
                self.store.append(match_id, t, kind, data, wake=False, decided=True)
            self.store.wake_writer()
        except Exception as e:  # (a store closed under it: said in one line, the owner goes on)
            log.error("the log's last entries could not be handed to the store: %s", e)
            return
        if taken and (self.error is not None or self.retry_at is not None):
            self.saved()

    def set_status(self, match_id: int, status: str) -> None:
        """The match's status in the store. Every status follows from the log (a start sets
        it from the log when the row says otherwise), so one the store cannot write is only
        said: the caller keeps it in memory and the match goes on."""
        self.flush()  # the log's entries first: the status follows from them
        try:
            self.store.set_status(match_id, status)
        except StoreWriteError as e:
            self.unsaved(e)
        else:
            self.saved()

    def unsaved(self, e: StoreError) -> Refused:
        """A write failed: shown on the pages, logged once; the Refused to give whoever asked."""
        if self.error is None:  # one line when it starts, one when it ends: no flood
            log.warning("the store cannot write (%s): presses and actions are refused until it can", e)
        if self.error != str(e):
            self.error = str(e)
            self.publish()
        return Refused(503, UNSAVED, reason=Word(str(e)))

    def saved(self) -> None:
        self.retry_at = None
        self.retry.reset()
        if self.error is not None:
            log.warning("the store writes again")
            self.error = None

    def listener(self, loop: asyncio.AbstractEventLoop, queue: Any) -> Callable[[], None]:
        """What the store calls on its writer thread when it fails or writes again: handled
        on the owner's turn (`queue`), in turn with every input."""

        def changed() -> None:
            self.store_changed(self.store.failure)

        def store_changed() -> None:
            loop.call_soon_threadsafe(lambda: queue.put_nowait((changed, loop.create_future())))

        return store_changed

    def store_changed(self, failure: Any) -> None:
        """The store's writer failed to commit (`failure`), or commits again after failing
        (None; it keeps what waits and tries again on its own): the pages say so, and a
        deadline that waited for the store is taken at once."""
        if failure is not None:
            self.unsaved(StoreUnavailable(failure))
        elif self.error is not None:
            self.saved()
            self.publish()

    def refused_deadline(self, now: float) -> None:
        """The store would not log a due deadline: it is tried again after the next pause."""
        self.retry_at = now + self.retry.pause()

    def may_try(self, clock: Callable[[], float]) -> bool:
        """Whether a due deadline may be tried now (no pause after a refusal still running)."""
        return self.retry_at is None or clock() >= self.retry_at

    def retry_in(self, clock: Callable[[], float]) -> float:
        """Seconds until the next try (0 when none waits)."""
        return self.retry_at - clock() if self.retry_at is not None else 0.0
