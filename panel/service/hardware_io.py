"""A built cockpit's Pi-side inputs and outputs, as one source and one effect of the service.

The hardware layer (panel.hardware) makes the adapters from the hardware map: gpiozero
contacts, round levers, the knob's encoder and MCP3008 channels hand normalised
InputEvents to an `InputHub` on the cockpit's queue, and `Effects` drive the NeoPixels and
the buzzer from game events and snapshots. This module plugs them into the cockpit's seam
(see effects.py): `start(queue)`/`close()` and `positions()` as a source; `on_events`,
`update` and `deadline` (match time) as an effect. The co-processor's link is another
source, added beside this one when it lands.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from ..events import GameEvent
from .replay import layout_for

POLL = 0.02  # seconds between polls of the inputs' debounce and settle deadlines


class HardwareIO:
    def __init__(self, map_path: str, layout_path: str | None = None, *, pin_factory=None, strip=None,
                 clock: Callable[[], float] = time.monotonic):
        from ..hardware.map import load_map

        from ..calibration import default_path, status_at_start

        self.map = load_map(map_path)  # a bad map is reported before anything starts
        # The sliders' ends and the knob's home come from `penguin-panel calibrate`; without
        # them the map's defaults are used and the start-up says which command fixes it.
        calibration, warning = status_at_start(self.map, map_arg=map_path)
        self.warnings = [warning] if warning else []
        if calibration is not None:
            self.map = calibration.apply(self.map)
        self.state_dir = default_path().parent  # the knob's absolute position lives beside it
        self.layout_path = layout_path
        self.pin_factory = pin_factory
        self.strip = strip
        self.clock = clock
        self.hardware = None
        self.hub = None
        self._task: asyncio.Task | None = None

    async def start(self, queue: asyncio.Queue) -> None:
        from ..hardware.build import Hardware
        from ..hardware.inputs import InputHub

        layout = layout_for(self.layout_path, "blue", True)  # every control; positions are side-free
        self.hub = InputHub(asyncio.get_running_loop(), queue, clock=self.clock)
        self.hardware = Hardware(self.map, layout, self.hub, pin_factory=self.pin_factory, strip=self.strip,
                                 state_dir=self.state_dir)
        self._task = asyncio.create_task(self._poll(), name="hardware-poll")

    async def _poll(self) -> None:
        # Debounce windows and settle times end without an edge: poll when they are due
        # (and every POLL at most, since a new edge may bring a new deadline).
        while True:
            due = self.hub.deadline
            wait = POLL if due is None else max(0.0, min(due - self.clock(), POLL))
            await asyncio.sleep(wait)
            self.hub.poll(self.clock())

    def positions(self) -> dict[str, str]:
        return self.hardware.positions() if self.hardware is not None else {}

    # ------------------------------------------------------------------ effect side
    def on_events(self, events: list[GameEvent], snapshot: dict[str, Any], now: float) -> None:
        if self.hardware is not None and self.hardware.effects is not None:
            self.hardware.effects.apply(events, snapshot, now)

    def update(self, snapshot: dict[str, Any], now: float) -> None:
        if self.hardware is not None and self.hardware.effects is not None:
            self.hardware.effects.update(snapshot, now)

    @property
    def deadline(self) -> float | None:
        if self.hardware is None or self.hardware.effects is None:
            return None
        return self.hardware.effects.deadline

    def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        hw, self.hardware = self.hardware, None
        if hw is not None:
            hw.close()
