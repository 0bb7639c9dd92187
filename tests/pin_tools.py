"""Test tools for driving gpiozero MockPins: a settable clock, a chatter injector, a
quadrature turner, and a PWM pin that records every frequency it was set to.

MockPin does not simulate contact bounce, so `chatter` writes the bounce: a burst of
level changes, each at its own time on the injected clock, ending at the final level.
"""

from __future__ import annotations

import asyncio

from gpiozero.pins.mock import MockFactory, MockPWMPin


class Clock:
    """The injected clock: tests set `t`; adapters read it at callback time."""

    def __init__(self, t: float = 100.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


class RecordingPWMPin(MockPWMPin):
    """A MockPWMPin that records each note the buzzer starts: its frequency whenever the
    pin begins to sound or changes frequency while sounding."""

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self.notes: list[float] = []

    def _set_frequency(self, value):
        super()._set_frequency(value)
        if value and self.state:
            self.notes.append(value)

    def _set_state(self, value):
        before = self.state
        super()._set_state(value)
        if value and not before and self.frequency:
            self.notes.append(self.frequency)


def factory() -> MockFactory:
    return MockFactory(pin_class=RecordingPWMPin)


def level(pin, closed: bool, active_low: bool = True) -> None:
    (pin.drive_low if closed == active_low else pin.drive_high)()


def chatter(pin, clock: Clock, closed: bool, *, at: float, bounces: tuple[float, ...] = (),
            active_low: bool = True) -> None:
    """Move a contact to `closed` at time `at`, with bounce: after the first edge the
    contact flips back and forth at each offset in `bounces` (seconds after `at`) and
    comes to rest at `closed`. An odd number of offsets ends one extra flip later."""
    clock.t = at
    level(pin, closed, active_low)
    state = closed
    for dt in bounces:
        clock.t = at + dt
        state = not state
        level(pin, state, active_low)
    if state != closed:
        raise ValueError("give an even number of bounces so the contact rests where it went")


def turn(a, b, clock: Clock, steps: int, *, at: float, dt: float = 0.002) -> float:
    """Turn a quadrature encoder `steps` detents (negative: anticlockwise); returns the time after."""
    t = at
    first, second = (a, b) if steps > 0 else (b, a)
    for _ in range(abs(steps)):
        for pin, fn in ((first, "drive_low"), (second, "drive_low"), (first, "drive_high"), (second, "drive_high")):
            clock.t = t
            getattr(pin, fn)()
            t += dt
    return t


def drain(loop: asyncio.AbstractEventLoop, queue: asyncio.Queue) -> list:
    """Let the loop run the callbacks handed to it, then take every queued event."""
    loop.run_until_complete(asyncio.sleep(0))
    out = []
    while not queue.empty():
        out.append(queue.get_nowait())
    return out


class Rig:
    """A loop, its queue, an InputHub on a settable clock, and a recording MockFactory."""

    def __init__(self):
        from panel.hardware.inputs import InputHub

        self.clock = Clock()
        self.loop = asyncio.new_event_loop()
        self.queue: asyncio.Queue = asyncio.Queue()
        self.hub = InputHub(self.loop, self.queue, clock=self.clock)
        self.factory = factory()

    def pin(self, n: int):
        return self.factory.pin(n)

    def events(self, until: float | None = None) -> list:
        """Every event so far; with `until`, after polling the hub at that time."""
        out = drain(self.loop, self.queue)
        if until is not None:
            self.clock.t = until
            self.hub.poll(until)
            out += drain(self.loop, self.queue)
        return out

    def close(self):
        self.factory.reset()
        self.loop.close()

