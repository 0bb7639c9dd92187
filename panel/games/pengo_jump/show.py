"""What the pixels and the buzzer do in a game of Pengo Jump: pure functions from the game's
snapshot and the time to a frame (drawn with panel/games/lights.py, as every game's are),
and its tunes. Every sound has its light (Pengo Jump rule 9, the sunset, included).

* ring: the daylight left. As many pixels lit as the bag's share still in it, in the sky's
  colour of the stage: warm yellow by day, orange in the evening, red at dusk; at night (the
  bag empty, the last turn played) one deep blue pixel breathes; won: a white and cyan
  chase (the penguins home); lost: the ring dark blue.
* cues (each with its sound): a draw flashes the chunk's colour (snowy white, sea lion
  brown, frosty ice blue); the sun going lower pulses the new stage's colour across the
  ring; a penguin home flashes cyan; a fall flashes blue and drops; a sea lion token pulses
  brown (twice when the fallen ones are collected back); a turn passed sweeps white; won
  chases, lost fades to night.
* the "counters" pixels: one cyan pixel per penguin home (of 4).
* button lights: in the draw phase each draw button lit in its chunk's colour while that
  kind is still in the bag (dim otherwise: none left); during a turn the reports the rules
  allow now are lit (home cyan, fall blue, the sea lion hops brown, the token falls dim
  brown, END TURN green), the draw buttons dim.
"""

from __future__ import annotations

from typing import Any

from panel.core.colour import Colour
from panel.games.base import Motion
from panel.games import lights
from panel.games.lights import GREEN, OFF, WHITE, blink, count_pixels, drain, put, put_buttons, scale

DIM = 0.2
SKY: dict[str, Colour] = {"day": (255, 200, 40), "evening": (255, 110, 0), "dusk": (220, 20, 10),
                          "night": (10, 10, 90)}
CHUNK: dict[str, Colour] = {"snowy": (255, 255, 255), "sea_lion": (150, 80, 20), "frosty": (60, 200, 255)}
CYAN: Colour = (0, 220, 220)
SEA: Colour = (0, 40, 255)
BROWN: Colour = CHUNK["sea_lion"]
LAST_SECONDS = 0  # no clock ticks: the daylight is the bag

# game event -> (its sound and light cue, the event's detail naming whose colour the cue shows:
# here the chunk's kind)
SOUNDS = {"chunk_drawn": ("pengo_draw", "kind"), "daylight": ("pengo_sunset", "stage"),
          "penguin_home": ("pengo_home", None), "penguin_fell": ("pengo_fell", None),
          "sea_lion_token": ("pengo_sea_lion", None), "tokens_collected": ("pengo_collected", None),
          "token_fell": ("pengo_token_fell", None), "turn_over": ("pengo_turn", None),
          "all_home": ("pengo_won", None), "night_fell": ("pengo_lost", None)}

# How long each cue shows, seconds (each lasts at least its tune).
CUE_SECONDS = {"pengo_draw": 0.6, "pengo_sunset": 2.0, "pengo_home": 1.2, "pengo_fell": 1.0, "pengo_sea_lion": 0.9,
               "pengo_collected": 1.2, "pengo_token_fell": 0.6, "pengo_turn": 0.5, "pengo_won": 5.0,
               "pengo_lost": 5.0}

# The buzzer's tunes (lights.Steps, within 220-3520 Hz) and which cuts which.
TUNES: dict[str, lights.Steps] = {
    **lights.TUNES,
    "pengo_draw": ((1046.5, 0.05), (1318.5, 0.07)),
    "pengo_sunset": ((784.0, 0.25), (659.3, 0.25), (523.3, 0.25), (392.0, 0.5)),  # the sun going down
    "pengo_home": ((1318.5, 0.08), (1568.0, 0.08), (2093.0, 0.2)),
    "pengo_fell": ((880.0, 0.08), (659.3, 0.08), (440.0, 0.08), (293.7, 0.3)),  # a splash
    "pengo_sea_lion": ((261.6, 0.15), (None, 0.05), (261.6, 0.2)),  # a bark
    "pengo_collected": ((261.6, 0.1), (329.6, 0.1), (392.0, 0.2)),
    "pengo_token_fell": ((392.0, 0.06), (261.6, 0.12)),
    "pengo_turn": ((1568.0, 0.05),),
    "pengo_won": ((1046.5, 0.12), (1318.5, 0.12), (1568.0, 0.12), (2093.0, 0.12), (None, 0.08), (2093.0, 0.6)),
    "pengo_lost": ((523.3, 0.4), (392.0, 0.4), (329.6, 0.4), (220.0, 0.9)),
}
PRIORITY = {**lights.PRIORITY, "pengo_turn": 1, "pengo_draw": 1, "pengo_token_fell": 1, "pengo_sea_lion": 2,
            "pengo_collected": 2, "pengo_fell": 2, "pengo_home": 2, "pengo_sunset": 3, "pengo_won": 4,
            "pengo_lost": 4}


class Cue(lights.Cue):
    """A Pengo Jump cue: `team` holds the chunk's kind (a draw) or the sky's stage (sunset)."""

    __slots__ = ()
    SECONDS = CUE_SECONDS


def motion(snapshot: dict[str, Any]) -> Motion:
    """No clock, no sound called again: only the night's breathing pixel moves with time
    alone (cues move by themselves)."""
    return None, None, bool(snapshot.get("last_turn"))


def _fading(cue: Cue, now: float) -> float:
    return max(0.0, 1.0 - (now - cue.start) / (cue.until - cue.start))


def _cue_ring(cue: Cue, now: float, n: int) -> list[Colour] | None:
    """The ring while `cue` shows, or None for a cue that leaves the ring to the daylight."""
    k = cue.kind
    if k == "pengo_won":
        head = int((now - cue.start) * 2 * n) % n
        return [(WHITE if i % 2 else CYAN) if (i - head) % n < n // 2 else OFF for i in range(n)]
    if k == "pengo_lost":
        return [scale(SKY["night"], 0.5 + _fading(cue, now))] * n if _fading(cue, now) > 0.5 else [SKY["night"]] * n
    if k == "pengo_sunset":
        return [SKY.get(cue.team or "", SKY["dusk"]) if blink(now, cue.start, 2) else OFF] * n
    if k == "pengo_draw":
        return [scale(CHUNK.get(cue.team or "", WHITE), _fading(cue, now))] * n
    if k == "pengo_home":
        return [CYAN if blink(now, cue.start, 4) else OFF] * n
    if k == "pengo_fell":
        lit = round(n * _fading(cue, now))  # the ring drains away: a penguin in the water
        return [SEA if i < lit else OFF for i in range(n)]
    if k in ("pengo_sea_lion", "pengo_collected", "pengo_token_fell"):
        return [scale(BROWN, _fading(cue, now))] * n
    if k == "pengo_turn":
        head = int((now - cue.start) / (cue.until - cue.start) * n)
        return [WHITE if i == head else OFF for i in range(n)]
    return None


def ring(snapshot: dict[str, Any], now: float, n: int, cues: list[Cue]) -> list[Colour]:
    for cue in reversed(cues):
        if cue.active(now):
            shown = _cue_ring(cue, now, n)
            if shown is not None:
                return shown
    if snapshot.get("finished"):
        outcome = snapshot.get("outcome")
        return [CYAN] * n if outcome == "won" else [scale(SKY["night"], 0.6)] * n if outcome == "lost" else [OFF] * n
    stage = snapshot.get("stage", "day")
    if stage == "night":  # the last turn: one pixel breathes
        return [scale(SKY["night"], 1.0 if blink(now, 0.0, 1) else 0.4)] + [OFF] * (n - 1)
    return drain(n, snapshot.get("daylight", 1.0), SKY[stage])


def button_lights(snapshot: dict[str, Any]) -> dict[str, Colour]:
    """Control id -> colour for every button the game uses (others stay off)."""
    panel = snapshot.get("panel") or {}
    allowed = snapshot.get("actions", {})
    out: dict[str, Colour] = {}
    drawing = snapshot.get("phase") == "draw"
    kinds = set((allowed.get("draw") or {}).get("kind", []))
    sizes = {name: set((allowed.get(name) or {}).get("size", [])) for name in ("sea_lion", "token_fell")}
    for role, control in panel.items():
        if role in CHUNK:
            out[control] = CHUNK[role] if role in kinds and drawing else scale(CHUNK[role], DIM) if role in kinds else OFF
        elif role == "home":
            out[control] = CYAN if "home" in allowed else OFF
        elif role == "fell":
            out[control] = SEA if "fell" in allowed else OFF
        elif role.endswith("_sea_lion"):
            out[control] = BROWN if role.split("_")[0] in sizes["sea_lion"] else OFF
        elif role.endswith("_token_fell"):
            out[control] = scale(BROWN, DIM) if role.split("_")[0] in sizes["token_fell"] else OFF
        elif role == "end_turn":
            out[control] = GREEN if "end_turn" in allowed else OFF
        elif role == "start" and snapshot.get("finished"):
            out[control] = GREEN  # START: the same group plays again
    return out


def render(snapshot: dict[str, Any], now: float, config: Any, cues: Any = ()) -> list[Colour]:
    """The whole chain's frame for a Pengo Jump snapshot at `now`."""
    frame: list[Colour] = [OFF] * config.count
    put(frame, config, "timer", ring(snapshot, now, len(config.pixels("timer")), list(cues)))
    put(frame, config, "counters", count_pixels(len(config.pixels("counters")), snapshot.get("home", 0), CYAN))
    put_buttons(frame, config, button_lights(snapshot))
    return frame
