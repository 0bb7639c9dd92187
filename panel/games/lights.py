"""What every game's lights and sounds are made of: the cue, the basic colours, the ring's
drawing helpers and the last-seconds tick.

Each game's own picture and tunes are in its package (panel/games/<game>/show.py), drawn
with these; the built panel's strip (panel/hardware/effects.py) and the simulator
(panel/service/effects.py) both play the game's show, never their own picture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping

from panel.core.colour import Colour

OFF: Colour = (0, 0, 0)
WHITE: Colour = (255, 255, 255)
RED: Colour = (255, 0, 0)
GREEN: Colour = (0, 200, 0)
AMBER: Colour = (255, 120, 0)

Steps = tuple[tuple[float | None, float], ...]  # (frequency in Hz or None for a rest, seconds)

# The tick of a running clock's last seconds: every game's clock ticks the same way. A game's
# TUNES and PRIORITY start with these.
TICK = "tick"
TUNES: dict[str, Steps] = {TICK: ((2093.0, 0.04),)}
PRIORITY: dict[str, int] = {TICK: 0}  # the least: the tick never cuts another tune


@dataclass(frozen=True, slots=True)
class Cue:
    """A light that goes with a sound: `kind` started at `start`. Each game's show makes its
    own kind of cue (a subclass, with `__slots__ = ()`: every press's light makes one and
    reads it) that knows how long each of its cues shows (SECONDS)."""

    kind: str
    start: float
    team: str | None = None  # whose colour the cue shows (a team's, a player's), if anyone's
    # When it stops showing: set once (every frame of a press's light asks it of every cue).
    until: float = field(init=False, repr=False, compare=False)

    SECONDS: ClassVar[Mapping[str, float]] = {}

    def __post_init__(self) -> None:
        object.__setattr__(self, "until", self.start + self.SECONDS[self.kind])  # (a frozen dataclass)

    def active(self, now: float) -> bool:
        return self.start <= now < self.until


def scale(c: Colour, k: float) -> Colour:
    return (round(c[0] * k), round(c[1] * k), round(c[2] * k))


def drain(n: int, fraction: float, colour: Colour) -> list[Colour]:
    """A ring of n pixels holding `fraction` of its sand: full pixels, then one partial."""
    fraction = min(max(fraction, 0.0), 1.0)
    lit = fraction * n
    full = int(lit)
    out = [colour] * full
    if full < n:
        out.append(scale(colour, lit - full))
        out += [OFF] * (n - full - 1)
    return out


def blink(now: float, start: float, hz: float) -> bool:
    """On for the first half of each period since start."""
    return ((now - start) * hz) % 1.0 < 0.5


def count_pixels(n: int, lit: int, colour: Colour) -> list[Colour]:
    lit = min(max(lit, 0), n)
    return [colour] * lit + [OFF] * (n - lit)


NO_PIXELS = (0, 0)  # (first, count) of a role the strip has not


def put(frame: list[Colour], config: Any, role: str, pixels: list[Colour]) -> None:
    """Write a role's pixels (the timer ring, the counters...) into the strip's frame, where
    the NeoPixel config places that role (a role the strip has not: nothing); one slice
    written, not a pixel at a time (this runs in every press's light)."""
    first, count = config.segments.get(role, NO_PIXELS)
    n = count if count < len(pixels) else len(pixels)
    frame[first:first + n] = pixels[:n]


def put_counts(frame: list[Colour], config: Any, *counts: tuple[str, int, Colour]) -> None:
    """Counts shown on their roles' pixels, each (role, lit, colour): the first `lit` of the
    role's pixels in `colour`, the rest off (a role the strip has not: nothing); the three
    counts of every press's light in one call."""
    segments = config.segments
    for role, lit, colour in counts:
        first, count = segments.get(role, NO_PIXELS)
        lit = min(max(lit, 0), count)
        frame[first:first + count] = [colour] * lit + [OFF] * (count - lit)


def put_buttons(frame: list[Colour], config: Any, lights: Mapping[str, Colour]) -> None:
    """Write each button's light (control id -> colour) where the config chains its LED
    (a button the strip has no LED for: nothing; one not named stays as it is, off)."""
    for control, colour in lights.items():
        i = config.buttons.get(control)
        if i is not None:
            frame[i] = colour
