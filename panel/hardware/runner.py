"""The loop that owns the engine on a cockpit: inputs in, decisions, effects out.

Everything the hardware hands in arrives on the InputHub's queue; this is the one place
that calls the engine. `step(now)` does one round of work at a given time (the tests and
the benchmark drive it with their own clock); `run()` is the service's coroutine, which
sleeps until the next event or the earliest deadline of the hub, the engine and the
effects.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from ..events import GameEvent
from .effects import Effects
from .inputs import InputHub


class PanelRunner:
    def __init__(self, match, hub: InputHub, effects: Effects | None = None, *,
                 on_events: Callable[[list[GameEvent]], None] | None = None):
        self.match = match
        self.hub = hub
        self.effects = effects
        self.on_events = on_events
        self.log: list[GameEvent] = []

    def _out(self, events: list[GameEvent], now: float) -> None:
        if events:
            self.log += events
            if self.on_events is not None:
                self.on_events(events)
        if self.effects is not None:
            self.effects.apply(events, self.match.snapshot(now), now)

    def handle(self, event) -> list[GameEvent]:
        out = self.match.handle(event)
        self._out(out, max(event.t, self.match.now))
        return out

    def step(self, now: float) -> list[GameEvent]:
        """Poll the inputs at `now`, judge every queued event, run the engine's clock."""
        self.hub.poll(now)
        out: list[GameEvent] = []
        while not self.hub.queue.empty():
            out += self.handle(self.hub.queue.get_nowait())
        events = self.match.advance(now)
        out += events
        self._out(events, now)
        return out

    def deadline(self) -> float | None:
        due = [d for d in (self.hub.deadline, self.match.next_deadline(),
                           self.effects.deadline if self.effects else None) if d is not None]
        return min(due) if due else None

    async def run(self, *, stop: asyncio.Event | None = None) -> None:
        clock = self.hub.clock
        while stop is None or not stop.is_set():
            due = self.deadline()
            timeout = None if due is None else max(0.0, due - clock())
            try:
                event = await asyncio.wait_for(self.hub.queue.get(), timeout)
            except asyncio.TimeoutError:
                pass
            else:
                self.handle(event)
            self.step(clock())
