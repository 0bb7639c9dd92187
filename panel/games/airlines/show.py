"""What the pixels show: pure functions from the game's snapshot and the time to a frame.

* timer ring: drains like the hourglass in the team's colour; the last 5 s it blinks red,
  on for the half second after each whole second (when the tick sounds); paused: amber;
  between turns: the next team's colour, dim; turn start: the whole ring flashes the
  team's colour; turn end: three white flashes; game end: the winner's colour chases;
  a challenge: the ring blinks amber.
* time counters: one amber pixel per counter the crew holds.
* mistakes: one red pixel per mistake, blinking while the mistake sound plays.
* card progress: one green pixel per completed card (0-5), the newest flashes white.
* per-button LEDs: the stuck control red (blinking with the mistake cue), START green
  between turns, FLIP amber while the crew holds a counter.

Every sound the buzzer makes has its light here, for players who cannot hear it.
"""

from __future__ import annotations

import math
from typing import Any

from panel.core.colour import Colour
from panel.games.base import Motion
from panel.games import lights
from panel.games.lights import (AMBER, GREEN, NO_PIXELS, OFF, RED, WHITE, blink, drain, put, put_buttons,
                                put_counts, scale)

TEAM_COLOURS: tuple[Colour, ...] = ((0, 80, 255), (255, 0, 40), (0, 220, 60), (255, 200, 0),
                                    (160, 0, 255), (0, 220, 220))
LAST_SECONDS = 5

# How long each cue shows, seconds.
CUE_SECONDS = {"turn_start": 1.0, "mistake": 1.0, "card": 0.6, "turn_end": 1.2, "game_end": 3.0, "challenge": 1.0}

# game event -> (the sound and light cue it makes, the event's detail naming whose colour
# the cue shows)
SOUNDS = {"turn_started": ("turn_start", "team"), "mistake": ("mistake", "team"), "card_completed": ("card", "team"),
          "turn_ended": ("turn_end", "team"), "game_ended": ("game_end", "team"), "challenge": ("challenge", "team")}

# The buzzer's tunes (see lights.Steps; all within 220-3520 Hz, the buzzer's range) and
# which cuts which: a tune cuts one of lower priority, never the mistake or the turn's end.
TUNES: dict[str, lights.Steps] = {
    **lights.TUNES,
    "turn_start": ((880.0, 0.08), (1318.5, 0.12)),
    "card": ((1318.5, 0.07), (1760.0, 0.12)),
    "mistake": ((329.6, 0.15), (None, 0.05), (246.9, 0.35)),
    "turn_end": ((1760.0, 0.15), (1318.5, 0.15), (880.0, 0.35)),
    "game_end": ((880.0, 0.12), (1108.7, 0.12), (1318.5, 0.12), (1760.0, 0.5)),
    "challenge": ((987.8, 0.1), (None, 0.06), (987.8, 0.1), (None, 0.06), (987.8, 0.25)),
}
PRIORITY = {**lights.PRIORITY, "turn_start": 1, "card": 1, "mistake": 2, "challenge": 2, "turn_end": 3, "game_end": 4}


class Cue(lights.Cue):
    """A Penguin Airlines cue: `team` is the team whose colour it shows."""

    __slots__ = ()
    SECONDS = CUE_SECONDS


def motion(snapshot: dict[str, Any]) -> Motion:
    """While a turn runs its timer ticks through its last seconds and drains; no sound is
    called again in this game."""
    if snapshot.get("phase") == "in_turn":
        return snapshot.get("time_left"), None, True
    return None, None, False


def team_colour(snapshot: dict[str, Any], team: str | None = None) -> Colour:
    team = snapshot.get("team") if team is None else team
    teams = snapshot.get("teams")
    if teams:  # (walked, not listed: the ring of every press's light asks it)
        for i, t in enumerate(teams):
            if t["name"] == team:
                return TEAM_COLOURS[i % len(TEAM_COLOURS)]
        return TEAM_COLOURS[0]
    names = list(snapshot.get("scores", {}))
    i = names.index(team) if team in names else 0
    return TEAM_COLOURS[i % len(TEAM_COLOURS)]


def timer_ring(snapshot: dict[str, Any], now: float, n: int, cues: list[Cue]) -> list[Colour]:
    phase = snapshot.get("phase")
    for cue in reversed(cues):
        if not cue.active(now):
            continue
        if cue.kind == "game_end":
            colour = team_colour(snapshot, (snapshot.get("winner") or [None])[0])
            head = int((now - cue.start) * 2 * n) % n
            return [colour if (i - head) % n < n // 3 else OFF for i in range(n)]
        if cue.kind == "turn_end":
            return [WHITE if blink(now, cue.start, 2.5) else OFF] * n
        if cue.kind == "turn_start":
            return [team_colour(snapshot, cue.team)] * n
        if cue.kind == "challenge":
            return [AMBER if blink(now, cue.start, 4) else OFF] * n
    if phase == "finished":
        winners = snapshot.get("winner") or []
        return [team_colour(snapshot, winners[0]) if winners else WHITE] * n
    if phase == "between_turns":
        return [scale(team_colour(snapshot), 0.15)] * n
    time_left = snapshot.get("time_left") or 0.0
    fraction = time_left / (snapshot.get("turn_seconds") or 1)
    if phase == "paused":
        return drain(n, fraction, AMBER)
    if 0 < time_left <= LAST_SECONDS:
        # on for the half second after each whole second, when the tick sounds
        on = (math.ceil(time_left) - time_left) < 0.5
        return drain(n, fraction, RED) if on else [OFF] * n
    return drain(n, fraction, team_colour(snapshot))


def render(snapshot: dict[str, Any], now: float, config: Any, cues: list[Cue] = ()) -> list[Colour]:
    """The whole chain's frame for this snapshot at `now`."""
    frame: list[Colour] = [OFF] * config.count
    in_turn = snapshot.get("phase") in ("in_turn", "paused")

    ring = config.segments.get("timer", NO_PIXELS)[1]
    put(frame, config, "timer", timer_ring(snapshot, now, ring, cues))
    mistake = card = None  # the newest cue of each kind that shows now
    mistake_on = True
    if in_turn:
        for c in reversed(cues):
            if c.kind == "mistake" and mistake is None and c.active(now):
                mistake = c
            elif c.kind == "card" and card is None and c.active(now):
                card = c
        # the mistake cue blinks the mistakes' pixels and the stuck control's light together
        mistake_on = mistake is None or blink(now, mistake.start, 4)
        done = snapshot.get("completed", 0)
        put_counts(frame, config, ("counters", snapshot.get("counters_held", 0), AMBER),
                   ("mistakes", snapshot.get("mistakes", 0) if mistake_on else 0, RED), ("progress", done, GREEN))
        first, count = config.segments.get("progress", NO_PIXELS)
        if card is not None and 0 < done <= count:
            frame[first + done - 1] = WHITE

    # The few lit buttons (the others stay off): no walk over every button of a large panel.
    allowed = snapshot.get("actions") or {}  # the engine's answer: lit when pressing it does something
    lit = {"cockpit.start": GREEN if "start_turn" in allowed else OFF,
           "cockpit.flip": AMBER if "flip" in allowed else OFF}
    stuck = snapshot.get("stuck") if in_turn else None
    if stuck is not None:
        lit[stuck] = RED if mistake_on else OFF
    put_buttons(frame, config, lit)
    return frame
