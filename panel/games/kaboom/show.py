"""What the pixels show during a Penguin Kaboom mission: pure functions from the mission's
snapshot and the time to a frame (drawn with panel/games/lights.py, as every game's are).

* ring: before the start, one segment per player in their colour, dim; in play, the
  running clock drains in its player's colour (a clock recharged above its starting time
  shows full); its last 10 s blink red, on for the half second after each whole second
  (when the tick sounds); while an alert waits to be reported flipped, the whole ring
  flashes red; paused: the clock in amber; closing: each player's segment, bright when
  their finger is on their colour, blinking until it is; accomplished: green; failed: red.
* cues (each with its sound): the start and each pass flash the new player's colour, a
  recharge pulses green, the confirmation flashes white, success chases green, failure
  flashes red. The alert's siren sounds again every few seconds while the ring flashes.
* the "counters" pixels: one amber pixel per alert card still face down; the last one
  blinks red.
* button lights: before the start, each colour button lit once its penguin has joined
  and dim until then; in play, each player's button in their colour, bright for the
  player whose clock runs, dim for the others, blinking red while a waiting player has
  under 10 s left; while closing, bright once held and blinking until; at the end all lit
  after a success, and after a failure only the button of the player whose clock ran
  out, red. The recharge button is green when a recharge is taken, the mission button dim
  blue in play and blinking bright blue once its protection is off, the alert button
  flashing red while an alert waits, the deactivate button dim white while a card is face
  up, START green when the mission can start.

A pixel cannot show black: the black penguin is violet on the lights.
"""

from __future__ import annotations

import math
from typing import Any

from panel.core.colour import Colour
from panel.games.base import Motion
from panel.games import lights
from panel.games.lights import AMBER, GREEN, OFF, RED, WHITE, blink, count_pixels, drain, put, put_buttons, scale

PLAYER_COLOURS: dict[str, Colour] = {"red": (255, 0, 0), "blue": (0, 70, 255), "white": (255, 255, 255),
                                     "yellow": (255, 190, 0), "green": (0, 210, 40), "black": (140, 0, 255)}
BLUE: Colour = (0, 70, 255)
LAST_SECONDS = 10
DIM = 0.2
ALERT_HZ = 2.0  # the ring's and the alert button's flashing while an alert waits


# game event -> (the sound and light cue it makes, the event's detail naming whose colour
# the cue shows). The alert's light is the flashing ring, for as long as it waits.
SOUNDS = {"mission_started": ("kaboom_start", "first"), "turn_passed": ("kaboom_pass", "to"),
          "recharge": ("kaboom_recharge", "to"), "alert": ("kaboom_alert", None),
          "mission_confirmed": ("kaboom_confirmed", None), "mission_accomplished": ("kaboom_success", None),
          "mission_failed": ("kaboom_failed", None)}
ALERT_CALL_SECONDS = 4.0  # a waiting alert's siren sounds again this often

# How long each cue shows, seconds (each lasts at least its tune).
CUE_SECONDS = {"kaboom_start": 1.0, "kaboom_pass": 0.6, "kaboom_recharge": 0.8, "kaboom_alert": 1.1,
               "kaboom_confirmed": 1.0, "kaboom_success": 4.0, "kaboom_failed": 4.0}

# The buzzer's tunes (see lights.Steps; within 220-3520 Hz) and which cuts which. The alert
# is a siren, called again while no one reports the card flipped.
TUNES: dict[str, lights.Steps] = {
    **lights.TUNES,
    "kaboom_start": ((880.0, 0.08), (1318.5, 0.12)),
    "kaboom_pass": ((1318.5, 0.06),),
    "kaboom_recharge": ((659.3, 0.06), (880.0, 0.06), (1318.5, 0.1)),
    "kaboom_alert": ((880.0, 0.18), (1318.5, 0.18)) * 3,
    "kaboom_confirmed": ((1046.5, 0.1), (None, 0.05), (1046.5, 0.1), (1568.0, 0.25)),
    "kaboom_success": ((880.0, 0.12), (1108.7, 0.12), (1318.5, 0.12), (1760.0, 0.12), (None, 0.08),
                       (1760.0, 0.6)),
    "kaboom_failed": ((392.0, 0.3), (329.6, 0.3), (261.6, 0.7)),
}
PRIORITY = {**lights.PRIORITY, "kaboom_pass": 1, "kaboom_recharge": 1, "kaboom_start": 1, "kaboom_confirmed": 2,
            "kaboom_alert": 3, "kaboom_success": 4, "kaboom_failed": 4}


class Cue(lights.Cue):
    """A Penguin Kaboom cue: `team` holds the player's colour it shows."""

    __slots__ = ()
    SECONDS = CUE_SECONDS


def motion(snapshot: dict[str, Any]) -> Motion:
    """The clock that runs ticks while the mission is played; the alert's siren is called
    again every ALERT_CALL_SECONDS until the card is reported flipped; the picture moves
    while a clock drains or something blinks."""
    phase = snapshot.get("phase")
    waiting = (snapshot.get("alerts") or {}).get("waiting")
    return (running_left(snapshot) if phase == "playing" else None,
            ("kaboom_alert", ALERT_CALL_SECONDS) if waiting and phase != "finished" else None,
            phase in ("playing", "closing") or bool(waiting))


def player_colour(colour: str | None) -> Colour:
    return PLAYER_COLOURS.get(colour or "", WHITE)


def running_left(snapshot: dict[str, Any]) -> float | None:
    """Seconds left on the clock that runs, None when none runs."""
    for p in snapshot.get("players", []):
        if p.get("running"):
            return p["time_left"]
    return None


def in_last_seconds(left: float) -> bool:
    return 0 < left <= LAST_SECONDS


def tick_on(left: float) -> bool:
    """On for the half second after each whole second of the last ten, when the tick sounds."""
    return (math.ceil(left) - left) < 0.5


def segments(n: int, colours: list[Colour]) -> list[Colour]:
    """The ring shared out between the colours, in order (a player alone: the whole ring)."""
    if not colours:
        return [OFF] * n
    return [colours[i * len(colours) // n] for i in range(n)]


def ring(snapshot: dict[str, Any], now: float, n: int, cues: list[Cue]) -> list[Colour]:
    players = snapshot.get("players", [])
    for cue in reversed(cues):
        if not cue.active(now):
            continue
        if cue.kind == "kaboom_success":
            head = int((now - cue.start) * 2 * n) % n
            return [GREEN if (i - head) % n < n // 3 else OFF for i in range(n)]
        if cue.kind == "kaboom_failed":
            return [RED if blink(now, cue.start, 3) else OFF] * n
        if cue.kind == "kaboom_confirmed":
            return [WHITE if blink(now, cue.start, 3) else OFF] * n
        if cue.kind in ("kaboom_start", "kaboom_pass"):
            return [player_colour(cue.team)] * n
        if cue.kind == "kaboom_recharge":
            return [scale(GREEN, 1.0 - (now - cue.start) / (cue.until - cue.start))] * n
    phase = snapshot.get("phase")
    if phase == "finished":
        outcome = snapshot.get("outcome")
        return [GREEN if outcome == "success" else RED if outcome == "failed" else scale(WHITE, DIM)] * n
    if phase == "setup":
        return [scale(c, DIM) for c in segments(n, [player_colour(p["colour"]) for p in players])]
    if phase == "closing":
        shares = segments(n, [p["colour"] for p in players])
        held = {p["colour"] for p in players if p.get("held")}
        return [player_colour(c) if c in held or blink(now, 0.0, 2) else OFF for c in shares]
    waiting = (snapshot.get("alerts") or {}).get("waiting", 0)
    if waiting and blink(now, 0.0, ALERT_HZ):
        return [RED] * n
    active = next((p for p in players if p["colour"] == snapshot.get("active")), None)
    if active is None:
        return [OFF] * n
    left = active["time_left"]
    fraction = left / (snapshot.get("start_seconds") or 1)
    if phase == "paused":
        return drain(n, fraction, AMBER)
    if in_last_seconds(left):
        return drain(n, fraction, RED) if tick_on(left) else [OFF] * n
    return drain(n, fraction, player_colour(active["colour"]))


def alert_cards(snapshot: dict[str, Any], now: float, n: int) -> list[Colour]:
    remaining = (snapshot.get("alerts") or {}).get("remaining", 0)
    if remaining == 1:
        return [RED if blink(now, 0.0, 1) else OFF] + [OFF] * (n - 1)
    return count_pixels(n, remaining, AMBER)


def button_lights(snapshot: dict[str, Any], now: float) -> dict[str, Colour]:
    """Control id -> colour for every control the mission uses (others stay off)."""
    panel = snapshot.get("panel") or {}
    phase = snapshot.get("phase")
    allowed = set(snapshot.get("actions", {}))
    out: dict[str, Colour] = {}
    playing = {p["colour"]: p for p in snapshot.get("players", [])}
    for colour, control in (panel.get("players") or {}).items():
        p = playing.get(colour)
        c = player_colour(colour)
        if phase == "setup":  # joined: lit; the others dim, inviting a press to join
            light = c if p is not None else scale(c, DIM)
        elif p is None:
            light = OFF
        elif phase == "closing":
            light = c if p.get("held") or blink(now, 0.0, 2) else OFF
        elif phase == "finished":
            failed = snapshot.get("failed_colour") == colour
            light = RED if failed else c if snapshot.get("outcome") == "success" else OFF
        elif p.get("running"):
            light = c
        elif phase in ("playing", "paused") and in_last_seconds(p["time_left"]):
            light = RED if blink(now, 0.0, 1) else scale(c, DIM)
        else:
            light = scale(c, DIM)
        out[control] = light
    if panel.get("recharge"):
        out[panel["recharge"]] = GREEN if "recharge" in allowed else OFF
    if panel.get("mission"):
        if "confirm" in allowed:
            out[panel["mission"]] = BLUE if blink(now, 0.0, 2) else scale(BLUE, DIM)
        else:
            out[panel["mission"]] = scale(BLUE, DIM) if phase == "playing" else OFF
    waiting = (snapshot.get("alerts") or {}).get("waiting", 0)
    if panel.get("alert_flipped"):
        out[panel["alert_flipped"]] = RED if waiting and blink(now, 0.0, ALERT_HZ) else OFF
    if panel.get("alert_deactivated"):
        out[panel["alert_deactivated"]] = scale(WHITE, DIM) if "alert_deactivated" in allowed else OFF
    if panel.get("start"):
        out[panel["start"]] = GREEN if "start" in allowed else OFF
    return out


def render(snapshot: dict[str, Any], now: float, config: Any, cues: list[Cue] = ()) -> list[Colour]:
    """The whole chain's frame for a Kaboom snapshot at `now`."""
    frame: list[Colour] = [OFF] * config.count
    cues = list(cues)

    put(frame, config, "timer", ring(snapshot, now, len(config.pixels("timer")), cues))
    if snapshot.get("phase") != "setup":
        put(frame, config, "counters", alert_cards(snapshot, now, len(config.pixels("counters"))))
    put_buttons(frame, config, button_lights(snapshot, now))
    return frame
