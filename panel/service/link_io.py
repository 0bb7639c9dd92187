"""The co-processor's serial link as one input source of the service.

The link (panel.link) reads the Pico on its own thread; everything it reports is handed
to the loop with `call_soon_threadsafe`, so only the loop touches game state:
- key frames are already InputEvents (matrix cell -> control id);
- ADC readings go through the same calibrated, hysteretic quantiser as an MCP3008's
  (panel.hardware.analog.SliderQuantiser) and become token positions;
- link status changes become the engine's pause/resume Action (reason "link"), so a turn
  stops while the panel cannot be heard and resumes once the snapshot has resynchronised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable

from ..events import InputEvent
from ..hardware.analog import SliderQuantiser
from ..hardware.map import AdcSource, HardwareMap
from ..layout import Layout

log = logging.getLogger(__name__)

ADC_FULL_SCALE = 4095  # the board reports 12-bit readings
POLL = 0.02  # seconds between settle checks of the analog quantisers


class LinkIO:
    """A source for the cockpit: `start(queue)`, `close()`, `positions()`, `status()`."""

    def __init__(self, hmap: HardwareMap, layout: Layout, *, link_factory: Callable[..., Any] | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.map = hmap
        self.clock = clock
        self._link_factory = link_factory
        self._quantisers: dict[str, SliderQuantiser] = {}
        self._last_raw: dict[str, float] = {}
        for cid, src in hmap.controls.items():
            if isinstance(src, AdcSource) and src.on == "pico" and cid in layout.tokens:
                self._quantisers[cid] = SliderQuantiser(layout.tokens[cid].positions, calibration=src.calibration,
                                                        hysteresis=src.hysteresis, settle=src.settle_ms / 1000)
        self.link = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue | None = None
        self._task: asyncio.Task | None = None
        self._state = "disconnected"

    async def start(self, queue: asyncio.Queue) -> None:
        from ..link.from_map import link_for_map

        self._loop = asyncio.get_running_loop()
        self._queue = queue
        factory = self._link_factory or link_for_map
        self.link = factory(self.map, on_event=self._from_thread(self._on_event),
                            on_analog=self._from_thread(self._on_analog),
                            on_status=self._from_thread(self._on_status), clock=self.clock)
        self.link.start()
        self._task = asyncio.create_task(self._settle_poll(), name="link-analog")

    def _from_thread(self, fn: Callable[[Any], None]) -> Callable[[Any], None]:
        loop = self._loop

        def hand_over(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(fn, item)
            except RuntimeError:  # the loop closed while the link was still reading
                pass

        return hand_over

    def _on_event(self, event: InputEvent) -> None:
        self._queue.put_nowait(event)

    def _on_analog(self, reading: Any) -> None:
        q = self._quantisers.get(reading.control)
        if q is None or reading.kind != "adc":
            return
        raw = reading.raw / ADC_FULL_SCALE
        self._last_raw[reading.control] = raw
        self._quantise(reading.control, raw, reading.t)

    def _quantise(self, control: str, raw: float, t: float) -> None:
        pos = self._quantisers[control].update(raw, t)
        if pos is not None:
            self._queue.put_nowait(InputEvent(control, pos, t))

    async def _settle_poll(self) -> None:
        # A board reports a slider only when it changes; its position settles without a
        # new reading, so the last reading is offered again until it has.
        while True:
            await asyncio.sleep(POLL)
            now = self.clock()
            for control, raw in self._last_raw.items():
                self._quantise(control, raw, now)

    def _on_status(self, status: dict) -> None:
        from ..link.serial_link import link_action

        state = status.get("state")
        if state == self._state:
            return
        was, self._state = self._state, state
        if state == "connected" or was == "connected":
            log.warning("co-processor link %s%s", state, f": {status.get('message')}" if status.get("message") else "")
            self._queue.put_nowait(link_action(status, self.clock()))

    def positions(self) -> dict[str, str]:
        return {c: q.position for c, q in self._quantisers.items() if q.position is not None}

    def status(self) -> dict[str, Any]:
        if self.link is None:
            return {"state": "not started", "connected": False}
        s = dict(self.link.status())
        s.setdefault("connected", s.get("state") == "connected")
        s.setdefault("firmware", (s.get("board") or {}).get("fw"))  # what the game master's page shows
        return s

    def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
        link, self.link = self.link, None
        if link is not None:
            link.close()
