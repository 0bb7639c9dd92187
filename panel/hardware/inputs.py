"""One way in: every input adapter hands its events to one asyncio queue.

gpiozero calls back on its own threads. An adapter's callback reads the clock at once
(the edge's time) and hands the edge to the loop with `InputHub.call`; on the loop's
thread the adapter debounces or quantises and `emit`s normalised InputEvents into the
queue. So debouncers, quantisers and the engine are only ever touched by the loop, and
need no locks.

Adapters that wait for time to pass (a release held for the debounce window, a slider
held for its settle time, the next ADC sample) expose ``deadline`` and ``poll(now)``;
while `run()` runs, the hub keeps one timer on the loop for the earliest deadline,
moved whenever something it hands to the loop may have brought an earlier one, and calls
`poll(now)` when it comes, like the engine's `advance`. No deadline, no timer: an idle
panel wakes nothing. Time is the injected clock's, so tests drive it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable, Protocol

from panel.core.events import Action, InputEvent


class Timed(Protocol):
    @property
    def deadline(self) -> float | None: ...

    def poll(self, now: float) -> None: ...


class InputHub:
    """The queue into the loop, and the clock every adapter reads."""

    def __init__(self, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue, *,
                 clock: Callable[[], float] = time.monotonic):
        self.loop = loop
        self.queue = queue
        self.clock = clock
        self._timed: list[Timed] = []
        self._running = False
        self._timer: asyncio.TimerHandle | None = None
        self._armed: float | None = None  # the deadline the timer is set for

    def call(self, fn: Callable, *args) -> None:
        """Run fn(*args) on the loop's thread: at once when already there (a MockPin
        driven from a coroutine), else at the loop's next turn. Then the timer is moved if
        fn brought an earlier deadline (an edge starts a debounce window)."""
        # (asyncio's own test for "a loop runs on this thread", without the RuntimeError
        # get_running_loop raises on gpiozero's thread at every edge)
        if asyncio._get_running_loop() is self.loop:
            self._call(fn, args)
        else:
            self.loop.call_soon_threadsafe(self._call, fn, args)

    def _call(self, fn: Callable, args: tuple) -> None:
        try:
            fn(*args)
        finally:
            self._arm_after(getattr(fn, "__self__", None))

    def _arm_after(self, adapter: object) -> None:
        """After an adapter (`fn`'s owner) was handed an edge: the timer brought forward if
        the adapter's deadline is now the earliest, with no walk over every adapter at each
        edge. A deadline that went away or moved later only leaves the timer early: `_fire`
        finds nothing due and sets it again. Anything else handed over (not an adapter):
        every deadline asked."""
        if not isinstance(getattr(type(adapter), "deadline", None), property):
            self._arm()
            return
        due = adapter.deadline
        if self._running and due is not None and (self._armed is None or due < self._armed):
            if self._timer is not None:
                self._timer.cancel()
            self._armed = due
            self._timer = self.loop.call_later(max(0.0, due - self.clock()), self._fire)

    def emit(self, event: InputEvent | Action) -> None:
        """Queue a normalised event (loop thread only; other threads use `post`)."""
        self.queue.put_nowait(event)

    def post(self, event: InputEvent | Action) -> None:
        """Queue an event from any thread."""
        self.call(self.queue.put_nowait, event)

    def add(self, timed: Timed) -> None:
        self._timed.append(timed)

    def remove(self, timed: Timed) -> None:
        if timed in self._timed:
            self._timed.remove(timed)

    @property
    def deadline(self) -> float | None:
        due = [d for d in (t.deadline for t in self._timed) if d is not None]
        return min(due) if due else None

    def poll(self, now: float | None = None) -> None:
        now = self.clock() if now is None else now
        for t in list(self._timed):
            d = t.deadline
            if d is not None and d <= now:
                t.poll(now)

    async def run(self) -> None:
        """Poll the adapters exactly when their deadlines come, until cancelled: debounce
        windows and settle times end without an edge, so a timer wakes the loop for the
        earliest of them, and for nothing else."""
        self._running = True
        self._arm()
        try:
            await self.loop.create_future()  # until cancelled: the timer does the work
        finally:
            self._running = False
            if self._timer is not None:
                self._timer.cancel()
            self._timer = self._armed = None

    def _arm(self) -> None:
        if not self._running:
            return
        due = self.deadline
        if due == self._armed:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._armed = due
        self._timer = None if due is None else self.loop.call_later(max(0.0, due - self.clock()), self._fire)

    def _fire(self) -> None:
        self._timer = self._armed = None
        try:
            self.poll(self.clock())
        finally:
            self._arm()
