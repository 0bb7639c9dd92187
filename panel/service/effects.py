"""The seam between the service and its inputs and outputs, and the simulator's LEDs.

A *source* is any object with `async start(queue)` and `close()`: it puts `InputEvent`s
(t = time.monotonic()) or `Action`s on the queue the cockpit owns, from any thread via
`loop.call_soon_threadsafe(queue.put_nowait, event)`. It may also offer `status()` ->
the co-processor link's dict (connected, frames_received, frames_rejected, reconnects,
firmware), and `positions()` -> where the tokens stand now. An *effect* is any object with
`on_events(events, snapshot, now)`: called on the loop after every change, with the full
snapshot (card included) and the match time, it must not block; it may offer `deadline`
(match time) and `update(snapshot, now)` for frames between changes (blinks, tunes).

The hardware and the link helpers plug their GPIO buttons, NeoPixel patterns and serial
link in here; in --sim the only source is the browser and the LEDs are drawn on /sim
from `sim_leds` below: the game's own picture, the one the built panel's strip shows.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Protocol

from panel.core.events import GameEvent
from panel.games.lights import OFF
from panel.games.registry import game_of
from panel.hardware.map import NeoPixelConfig
from panel.core.layout_file import whole_panel

# The simulated cockpit's strip, the status pixels in this order (the page draws them in a
# row, the ring first): role -> pixels. Then one LED under every button of the panel.
SIM_PIXELS = {"timer": 24, "counters": 4, "mistakes": 2}


class Source(Protocol):
    async def start(self, queue) -> None: ...
    def close(self) -> None: ...


class Effect(Protocol):
    def on_events(self, events: list[GameEvent], snapshot: dict[str, Any], now: float) -> None: ...


@lru_cache(maxsize=4)
def sim_strip(layout_path: str | None = None) -> NeoPixelConfig:
    """The simulator's NeoPixel config: a 24-pixel timer ring, the time counters' and the
    mistakes' pixels, then an LED under each button of the whole panel (the cockpit's
    included), as a built panel chains them. No pin, no driver: it is drawn on /sim."""
    segments, first = {}, 0
    for role, count in SIM_PIXELS.items():
        segments[role] = (first, count)
        first += count
    layout = whole_panel(layout_path)
    buttons = {cid: first + i for i, cid in enumerate([*layout.buttons, *layout.cockpit])}
    return NeoPixelConfig(pin=None, driver="sim", count=first + len(buttons), segments=segments, buttons=buttons)


def sim_leds(snapshot: dict[str, Any], *, now: float = 0.0, layout_path: str | None = None) -> dict[str, Any]:
    """What the cockpit's LEDs show on /sim for a snapshot at match time `now`: the game's
    own picture (its show's `render`, as the built panel's strip draws it) on the
    simulator's strip. `pixels` are the status pixels (the ring first), `buttons` the
    lit buttons' LEDs (a button not named is off: a short message for a large panel)."""
    strip = sim_strip(layout_path)
    frame = game_of(snapshot).show.render(snapshot, now, strip)
    status = sum(SIM_PIXELS.values())
    return {"type": "leds", "pixels": [list(p) for p in frame[:status]],
            "buttons": {cid: list(frame[i]) for cid, i in strip.buttons.items() if frame[i] != OFF}}
