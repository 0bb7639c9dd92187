"""A built cockpit's Pi-side inputs and outputs, as one source and one effect of the service.

The hardware layer's factory (panel.hardware.devices) makes a device for every entry of
the map the Pi reads itself (gpiozero contacts, round levers, the knob's encoder, MCP3008
channels), handing normalised InputEvents to an `InputHub` on the cockpit's queue, and
the `Effects` that drive the NeoPixels and the buzzer from game events and snapshots.
This module plugs them into the cockpit's seam (see effects.py): `start(queue)`/`close()`
and `positions()` as a source; `on_events`, `update` and `deadline` (match time) as an
effect. The co-processor's entries are link_io.py's, a source of their own.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from panel.core.events import GameEvent
from panel.core.layout_file import whole_panel


class HardwareIO:
    """`hmap`: the build's map, checked against the layout (hardware.map.checked_map);
    `map_arg`: how the map was named on the command line, for the messages."""

    def __init__(self, hmap, layout_path: str | None = None, *, map_arg: str | None = None, pin_factory=None,
                 strip=None, clock: Callable[[], float] = time.monotonic):
        from panel.hardware.calibration import default_path, status_at_start

        self.map = hmap
        # The sliders' ends and the knob's home come from `penguin-panel calibrate`; without
        # them the map's defaults are used and the start-up says which command fixes it.
        calibration, warning = status_at_start(self.map, map_arg=map_arg)
        self.warnings = [warning] if warning else []
        if calibration is not None:
            self.map = calibration.apply(self.map)
        self.state_dir = default_path().parent  # the knob's absolute position lives beside it
        self.layout_path = layout_path
        self.pin_factory = pin_factory
        self.strip = strip
        self.clock = clock
        self.hub = None
        self.inputs: dict[str, Any] = {}
        self._playing = True  # (the inputs start at the match's pace until the first snapshot says)
        self.effects = None
        self._task: asyncio.Task | None = None

    async def start(self, queue: asyncio.Queue) -> None:
        from panel.hardware.devices import make_effects, make_inputs
        from panel.hardware.inputs import InputHub

        self.layout = whole_panel(self.layout_path)  # every control; positions are side-free
        self.hub = InputHub(asyncio.get_running_loop(), queue, clock=self.clock)
        self.inputs = make_inputs(self.map, self.layout, hub=self.hub, on_board=False,
                                  pin_factory=self.pin_factory, state_dir=self.state_dir)
        try:
            self.effects = make_effects(self.map, pin_factory=self.pin_factory, strip=self.strip)
        except BaseException:
            self.close()
            raise
        self._task = asyncio.create_task(self.hub.run(), name="hardware-poll")

    def positions(self) -> dict[str, str]:
        """Where every wired token stands now (for the engine's start positions)."""
        return {cid: inp.value for cid, inp in self.inputs.items()
                if cid in self.layout.tokens and inp.value is not None}

    # ------------------------------------------------------------------ effect side
    def on_events(self, events: list[GameEvent], snapshot: dict[str, Any], now: float) -> None:
        if self.effects is not None:
            self.effects.apply(events, snapshot, now)
        playing = snapshot.get("phase") not in (None, "idle", "finished")
        if playing != self._playing:  # sliders sampled at the match's pace only while one is played
            self._playing = playing
            for inp in self.inputs.values():
                pace = getattr(inp, "pace", None)
                if pace is not None:
                    pace(playing)

    def update(self, snapshot: dict[str, Any], now: float) -> None:
        if self.effects is not None:
            self.effects.update(snapshot, now)

    @property
    def deadline(self) -> float | None:
        return self.effects.deadline if self.effects is not None else None

    def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        inputs, self.inputs = self.inputs, {}
        for inp in inputs.values():
            inp.close()
        effects, self.effects = self.effects, None
        if effects is not None:
            effects.close()
