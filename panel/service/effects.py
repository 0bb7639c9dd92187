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
from `sim_leds` below.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from panel.core.events import GameEvent
from panel.games.kaboom import show as kaboom_patterns

RING = 24  # pixels on the timer ring of the simulated cockpit

GREEN, AMBER, RED, BLUE, YELLOW, WHITE_DIM, OFF = (
    (0, 200, 60), (255, 140, 0), (230, 0, 0), (0, 90, 255), (255, 200, 0), (24, 24, 24), (0, 0, 0))


class Source(Protocol):
    async def start(self, queue) -> None: ...
    def close(self) -> None: ...


class Effect(Protocol):
    def on_events(self, events: list[GameEvent], snapshot: dict[str, Any], now: float) -> None: ...


def sim_leds(snapshot: dict[str, Any], *, ring: int = RING, now: float = 0.0) -> dict[str, Any]:
    """What the cockpit's LEDs show for a snapshot: the timer ring draining like the
    hourglass, one pixel per time counter, one per mistake a turn allows, and button LEDs
    (the stuck control red, FLIP lit while the engine allows a flip, START while it allows
    a turn to start). A Kaboom mission's are the built cockpit's own patterns at match
    time `now` (kaboom_patterns): the ring, the alert cards, every button it uses."""
    if snapshot.get("game") == "kaboom":
        return {"type": "leds",
                "pixels": [list(p) for p in kaboom_patterns.ring(snapshot, now, ring, [])
                           + kaboom_patterns.alert_cards(snapshot, now, 4)],
                "buttons": {k: list(v) for k, v in kaboom_patterns.button_lights(snapshot, now).items()}}
    phase = snapshot.get("phase")
    pixels: list[tuple[int, int, int]]
    if phase in ("in_turn", "paused"):
        total = snapshot.get("turn_seconds") or 1
        left = snapshot.get("time_left") or 0.0
        fraction = max(0.0, min(1.0, left / total))
        lit = math.ceil(fraction * ring)
        colour = BLUE if phase == "paused" else GREEN if fraction > 0.5 else AMBER if fraction > 0.2 else RED
        pixels = [colour if i < lit else OFF for i in range(ring)]
    elif phase == "finished":
        pixels = [YELLOW] * ring
    else:
        pixels = [WHITE_DIM] * ring
    held = snapshot.get("counters_held", 0) or 0
    counters = snapshot.get("time_counters", 0) or 0
    pixels += [YELLOW if i < held else WHITE_DIM for i in range(counters)]
    mistakes = snapshot.get("mistakes", 0) or 0
    pixels += [RED if i < mistakes else OFF for i in range(snapshot.get("mistakes_per_turn", 0) or 0)]
    buttons: dict[str, tuple[int, int, int]] = {}
    if snapshot.get("stuck"):
        buttons[snapshot["stuck"]] = RED
    allowed = snapshot.get("actions") or {}
    buttons["cockpit.flip"] = YELLOW if "flip" in allowed else OFF
    buttons["cockpit.start"] = GREEN if "start_turn" in allowed else OFF
    return {"type": "leds", "pixels": [list(p) for p in pixels],
            "buttons": {k: list(v) for k, v in buttons.items()}}
