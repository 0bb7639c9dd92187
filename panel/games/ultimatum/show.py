"""What the pixels and the buzzer do while the cockpit keeps a Penguin Ultimatum score:
pure functions from the game's snapshot and the time to a frame (panel/games/lights.py).

* ring: one segment per player in their colour, in the order they sat down; the player
  ahead on points bright, the others dim (before the first performance all dim); while the
  page asks who is shorter, the tied players' segments blink; at the end the winner's
  colour all round (an abandoned game: dim white).
* cues (each with its sound): an entertainer card won flashes its new owner's colour, an
  entertainer out of the game flashes white, a kinship penalty pulses amber, the winner
  chases round in their colour.
* no button light: the scorekeeper uses no control of the panel.
"""

from __future__ import annotations

from typing import Any

from panel.core.colour import Colour
from panel.games.base import Motion
from panel.games import lights
from panel.games.lights import AMBER, OFF, WHITE, blink, put, scale

PLAYER_COLOURS: dict[str, Colour] = {"red": (255, 0, 0), "green": (0, 210, 40), "blue": (0, 70, 255),
                                     "yellow": (255, 190, 0)}
DIM = 0.2
LAST_SECONDS = 0  # no clock ticks

SOUNDS = {"entertainer_awarded": ("ultimatum_card", "to"), "entertainer_out": ("ultimatum_out", None),
          "penalty_paid": ("ultimatum_penalty", None), "entertainer_given_up": ("ultimatum_penalty", None),
          "game_won": ("ultimatum_won", "winner")}
CUE_SECONDS = {"ultimatum_card": 1.0, "ultimatum_out": 0.8, "ultimatum_penalty": 0.8, "ultimatum_won": 4.0}
TUNES: dict[str, lights.Steps] = {
    **lights.TUNES,
    "ultimatum_card": ((784.0, 0.08), (1046.5, 0.14)),
    "ultimatum_out": ((659.3, 0.1), (523.3, 0.16)),
    "ultimatum_penalty": ((392.0, 0.12), (311.1, 0.2)),
    "ultimatum_won": ((784.0, 0.12), (988.0, 0.12), (1174.7, 0.12), (1568.0, 0.5)),
}
PRIORITY = {**lights.PRIORITY, "ultimatum_card": 1, "ultimatum_out": 1, "ultimatum_penalty": 1, "ultimatum_won": 4}


class Cue(lights.Cue):
    """A Penguin Ultimatum cue: `team` holds the player's colour it shows."""

    __slots__ = ()
    SECONDS = CUE_SECONDS


def motion(snapshot: dict[str, Any]) -> Motion:
    """No clock, no sound called again: the picture moves during a tie (it blinks)."""
    return None, None, snapshot.get("phase") == "tie"


def player_colour(colour: str | None) -> Colour:
    return PLAYER_COLOURS.get(colour or "", WHITE)


def ring(snapshot: dict[str, Any], now: float, n: int, cues: list[Cue]) -> list[Colour]:
    for cue in reversed(cues):
        if not cue.active(now):
            continue
        if cue.kind == "ultimatum_won":
            head = int((now - cue.start) * 2 * n) % n
            return [player_colour(cue.team) if (i - head) % n < n // 3 else OFF for i in range(n)]
        if cue.kind == "ultimatum_card":
            return [player_colour(cue.team)] * n
        if cue.kind == "ultimatum_out":
            return [WHITE if blink(now, cue.start, 3) else OFF] * n
        if cue.kind == "ultimatum_penalty":
            return [scale(AMBER, 1.0 - (now - cue.start) / (cue.until - cue.start))] * n
    players = snapshot.get("players", [])
    phase = snapshot.get("phase")
    if phase == "finished":
        won = snapshot.get("winner")
        return [player_colour(won) if won else scale(WHITE, DIM)] * n
    if not players:
        return [OFF] * n
    best = max(p["score"] for p in players)
    tied = set(snapshot.get("tied") or [])
    out = []
    for i in range(n):
        p = players[i * len(players) // n]
        c = player_colour(p["player"])
        if phase == "tie":
            out.append(c if p["player"] in tied and blink(now, 0.0, 2) else scale(c, DIM))
        else:
            out.append(c if phase == "playing" and p["score"] == best else scale(c, DIM))
    return out


def render(snapshot: dict[str, Any], now: float, config: Any, cues: list[Cue] = ()) -> list[Colour]:
    """The whole chain's frame for an Ultimatum snapshot at `now`."""
    frame: list[Colour] = [OFF] * config.count
    put(frame, config, "timer", ring(snapshot, now, len(config.pixels("timer")), list(cues)))
    return frame
