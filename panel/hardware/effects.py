"""Effects: the engine's game events and snapshot drive the pixels and the buzzer.

It depends on the event types and the snapshot, never on the engine's insides. Sounds
and lights go together: each sound starts a light cue, the last-seconds tick sounds as
the ring blinks. The game's show (panel/games/<game>/show.py, found through the
registry) draws the picture and holds the tunes: nothing here knows a game. Nothing
blocks: `update(snapshot, now)` writes a frame when the picture changed, then moves the
buzzer on (the light is a press's first answer, its sound follows within microseconds);
the loop calls it by `deadline`."""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Iterable

from panel.core.events import GameEvent
from panel.games.base import Show
from panel.games.lights import TICK, Cue
from panel.games.registry import game_of
from panel.hardware.resource import Closeable
from panel.hardware.buzzer import BuzzerPlayer
from panel.hardware.leds import PixelStrip
from panel.hardware.map import NeoPixelConfig

SOUNDS_KEPT = 64  # the last sounds started, for the tests and a look at what played


def show_for(snapshot: dict[str, Any]) -> Show:
    """The lights and sounds of the game the snapshot is of (the registry's; the idle
    cockpit's snapshot, which names no game, is the default game's)."""
    return game_of(snapshot).show


class _Shows(dict):
    """show_for of the snapshots that name their game (every engine's does), kept per name:
    every press's light asks it, and a lookup costs none of the registry's three calls."""

    def __missing__(self, game: str) -> Show:
        show = self[game] = show_for({"game": game})
        return show


class Effects(Closeable):
    def __init__(self, strip: PixelStrip | None, config: NeoPixelConfig | None, buzzer: BuzzerPlayer | None = None,
                 *, frame_interval: float = 0.05):
        if strip is not None and config is None:
            raise ValueError("a strip needs its NeoPixel config (which pixel does what)")
        self.strip = strip
        self.config = config
        self.buzzer = buzzer
        self.frame_interval = frame_interval
        self.cues: list[Cue] = []
        self._shows = _Shows()
        # (time, tune) of the last sounds started: bounded, the service runs all day
        self.sounds: deque[tuple[float, str]] = deque(maxlen=SOUNDS_KEPT)
        self._last_frame: tuple | None = None
        self._time_left: float | None = None
        self._phase: str | None = None
        self._next_frame: float | None = None
        self._grid: float | None = None  # the next slot of the frames' fixed grid while something moves
        self._played: dict[str, float] = {}  # tune -> when it last started
        self._tunes: list[tuple[str, float]] = []  # the sounds of this update, started once its frame is out

    def apply(self, events: Iterable[GameEvent], snapshot: dict[str, Any], now: float) -> None:
        """Take the engine's events of one step, then bring the outputs up to date."""
        game = snapshot.get("game")  # (the show of the game it is of, looked up without a call)
        show = self._shows[game] if game is not None else show_for(snapshot)
        for ev in events:
            sound, who = show.SOUNDS.get(ev.type, (None, None))
            if sound is None:
                continue
            if sound == "turn_end" and any(e.type == "game_ended" for e in events):
                continue  # the game-end fanfare says it all
            self._cue(show, sound, ev.t, ev.details.get(who) if who else None)
        self._update(show, snapshot, now)

    def _cue(self, show: Show, sound: str, t: float, team: str | None = None) -> None:
        self.cues.append(show.Cue(sound, t, team))
        self._sound(show, sound, t)

    def _sound(self, show: Show, sound: str, t: float) -> None:
        self.sounds.append((t, sound))
        self._played[sound] = t
        if self.buzzer is not None:
            self._tunes.append((sound, t))

    def update(self, snapshot: dict[str, Any], now: float) -> None:
        """Bring the outputs up to date with no new event (a frame due, a note of a tune)."""
        self.apply((), snapshot, now)

    def _update(self, show: Show, snapshot: dict[str, Any], now: float) -> None:
        phase = snapshot.get("phase")
        left, call, moving = show.motion(snapshot)
        if left is not None and self._phase == phase and self._time_left is not None:
            # the clock passed a whole second of its last ones (... 3, 2, 1) since the last update
            k = math.ceil(left)
            if k < self._time_left and 1 <= k <= show.LAST_SECONDS:
                self._sound(show, TICK, now)
        self._phase, self._time_left = phase, left
        if call is not None:
            tune, every = call
            if now - self._played.get(tune, -math.inf) >= every:
                self._cue(show, tune, now)  # called again, with its light, until what it asks is done
        if self.cues:
            self.cues = [c for c in self.cues if c.until > now]
        if self.strip is not None:
            frame = tuple(show.render(snapshot, now, self.config, self.cues))
            if frame != self._last_frame:
                self.strip.write(frame)
                self._last_frame = frame
        if self.buzzer is not None:  # the light first, then the sound (in the order they came)
            tunes, self._tunes = self._tunes, []
            for sound, t in tunes:
                self.buzzer.play(sound, t, steps=show.TUNES[sound], priority=show.PRIORITY[sound])
            self.buzzer.poll(now)
        # Frames on a fixed grid while something moves (the ring drains, a cue plays), none
        # otherwise: the next frame is the next grid slot after now, never "now + interval",
        # so an update between frames (a press) does not push the grid and the rate does
        # not drift; a late wake-up skips the slots it missed instead of bunching them.
        if not (moving or self.cues):
            self._grid = None
        elif self._grid is None:
            self._grid = now + self.frame_interval
        elif self._grid <= now:
            missed = math.floor((now - self._grid) / self.frame_interval) + 1
            self._grid += missed * self.frame_interval
        self._next_frame = self._grid
        if call is not None:  # a call repeated (off the grid: its own moment)
            again = self._played[call[0]] + call[1]
            self._next_frame = again if self._next_frame is None else min(self._next_frame, again)

    @property
    def deadline(self) -> float | None:
        due = [d for d in (self._next_frame, self.buzzer.deadline if self.buzzer else None) if d is not None]
        return min(due) if due else None

    def close(self) -> None:
        if self.strip is not None:
            self.strip.close()
            self.strip = None
        if self.buzzer is not None:
            self.buzzer.close()
            self.buzzer = None



__all__ = ["Effects", "show_for"]
