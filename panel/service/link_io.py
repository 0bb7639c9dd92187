"""The co-processor's serial link as one input source of the service (and of the self-test
and the calibration, which read the board the same way).

The link (panel.link) reads the Pico on its own thread; everything it reports is handed
to the loop with `call_soon_threadsafe`, so only the loop touches game state. On the loop
each report goes to the device the map's factory made for it (panel.hardware.devices):
- a matrix key to its PicoKey (a button's press, or a token's position),
- an ADC reading to its PicoSlider: the same calibrated, hysteretic, settling quantiser
  as an MCP3008's, as the map's AdcSource sets it up,
- an encoder count to its PicoKnob;
and link status changes become the engine's pause/resume Action (reason "link"), so a
turn stops while the panel cannot be heard and resumes once the snapshot has resynchronised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path
from typing import Any, Callable

from panel.hardware.map import HardwareMap
from panel.core.layout import Layout

log = logging.getLogger(__name__)


class LinkIO:
    """A source for the cockpit: `start(queue)`, `close()`, `positions()`, `status()`.

    port: the board's port (else the map's, then any Pico found); state_dir: where a knob
    on the board keeps its absolute count; link_options: for the SerialLink (timeouts)."""

    def __init__(self, hmap: HardwareMap, layout: Layout, *, link_factory: Callable[..., Any] | None = None,
                 port: str | None = None, state_dir: str | Path | None = None,
                 link_options: dict[str, Any] | None = None, clock: Callable[[], float] = time.monotonic):
        self.map = hmap
        self.layout = layout
        self.clock = clock
        self.port = port
        self.state_dir = state_dir
        self.link_options = dict(link_options or {})
        self._link_factory = link_factory
        self.devices: dict[str, Any] = {}
        self.hub = None
        self.link = None
        self.connected = asyncio.Event()   # set while the board is heard and in sync
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue | None = None
        self._task: asyncio.Task | None = None
        self._state = "disconnected"

    async def start(self, queue: asyncio.Queue) -> None:
        from panel.hardware.devices import make_inputs
        from panel.hardware.inputs import InputHub
        from panel.link.from_map import link_for_map

        self._loop = asyncio.get_running_loop()
        self._queue = queue
        self.hub = InputHub(self._loop, queue, clock=self.clock)
        self.devices = make_inputs(self.map, self.layout, hub=self.hub, on_board=True, state_dir=self.state_dir)
        factory = self._link_factory or link_for_map
        kw = dict(self.link_options, **({} if self.port is None else {"port": self.port}))
        self.link = factory(self.map, on_event=self._from_thread(self._on_key),
                            on_analog=self._from_thread(self._on_reading),
                            on_status=self._from_thread(self._on_status), clock=self.clock, **kw)
        self.link.start()
        self._task = asyncio.create_task(self.hub.run(), name="link-settle")

    def _from_thread(self, fn: Callable[[Any], None]) -> Callable[[Any], None]:
        hub = self.hub

        def hand_over(item: Any) -> None:
            try:
                hub.call(fn, item)  # (then the hub's timer follows a slider's settle time)
            except RuntimeError:  # the loop closed while the link was still reading
                pass

        return hand_over

    def _on_key(self, event) -> None:
        device = self.devices.get(event.control)
        if device is not None:
            device.feed(event.value, event.t)

    def _on_reading(self, reading) -> None:
        device = self.devices.get(reading.control)
        if device is not None:
            device.feed(reading.raw, reading.t)

    def _on_status(self, status: dict) -> None:
        from panel.link.serial_link import link_action

        state = status.get("state")
        if state == self._state:
            return
        was, self._state = self._state, state
        if state == "connected":
            self.connected.set()
        else:
            self.connected.clear()
            for device in self.devices.values():
                resync = getattr(device, "resync", None)
                if resync is not None:
                    resync()
        if state == "connected" or was == "connected":
            message = f": {status.get('message')}" if status.get("message") else ""
            (log.info if state == "connected" else log.warning)("co-processor link %s%s", state, message)
            self._queue.put_nowait(link_action(status, self.clock()))

    async def wait_connected(self, timeout: float) -> bool:
        """True once the board is heard and in sync, False if not within `timeout` seconds."""
        try:
            await asyncio.wait_for(self.connected.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def sync(self, timeout: float = 30.0) -> bool:
        """The PING/PONG barrier (SerialLink.sync): once this returns True, every frame the
        board sent before now has been handed to its device (the hand-overs were queued on
        the loop before the answer that wakes this coroutine)."""
        return await asyncio.to_thread(self.link.sync, timeout)

    async def settled(self) -> None:
        """Returns once no reading of the board's waits to settle into a position."""
        while (due := self.hub.deadline) is not None:
            await asyncio.sleep(max(0.0, due - self.clock()))
            self.hub.poll(self.clock())

    def positions(self) -> dict[str, str]:
        return {cid: d.value for cid, d in self.devices.items()
                if cid in self.layout.tokens and isinstance(d.value, str)}

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
        devices, self.devices = self.devices, {}
        for device in devices.values():
            device.close()
