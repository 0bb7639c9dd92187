"""One way in: every input adapter hands its events to one asyncio queue.

gpiozero calls back on its own threads. An adapter's callback reads the clock at once
(the edge's time) and hands the edge to the loop with `InputHub.call`; on the loop's
thread the adapter debounces or quantises and `emit`s normalised InputEvents into the
queue. So debouncers, quantisers and the engine are only ever touched by the loop, and
need no locks.

Adapters that wait for time to pass (a release held for the debounce window, a slider
held for its settle time, the next ADC sample) expose ``deadline`` and ``poll(now)``;
the loop calls `InputHub.poll(now)` when `InputHub.deadline` comes, like the engine's
`advance`. Time is the injected clock's, so tests drive it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable, Protocol

from ..events import Action, InputEvent


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

    def _on_loop_thread(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def call(self, fn: Callable, *args) -> None:
        """Run fn(*args) on the loop's thread: at once when already there (a MockPin
        driven from a coroutine), else at the loop's next turn."""
        if self._on_loop_thread():
            fn(*args)
        else:
            self.loop.call_soon_threadsafe(fn, *args)

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

    async def run(self, *, every: float = 0.02) -> None:
        """Poll the adapters when their deadlines come, until cancelled. Debounce windows
        and settle times end without an edge, so the loop wakes for them; and at least
        every `every` seconds, since a new edge may bring an earlier deadline."""
        while True:
            due = self.deadline
            await asyncio.sleep(every if due is None else max(0.0, min(due - self.clock(), every)))
            self.poll(self.clock())
