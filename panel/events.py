"""The two event types that cross the middle of the program.

Data flows one way: inputs (GPIO, serial, browser, replay) make `InputEvent`s and
`Action`s; the engine turns them into `GameEvent`s; effects (LEDs, buzzer, pages, store)
consume those. Both ends depend on these types, never on each other's insides.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Actions a game master, a cockpit button or a script can take.
ACTIONS = ("start_turn", "flip", "challenge", "rule", "pause", "resume", "touch")


@dataclass(frozen=True)
class InputEvent:
    """A control changed: a button (value True = pressed, False = released) or a token
    (value = the position name it now stands at). `t` is seconds on the caller's
    monotonic clock; the engine never reads a clock itself."""

    control: str
    value: bool | str
    t: float

    @property
    def is_press(self) -> bool:
        return self.value is True

    def as_dict(self) -> dict[str, Any]:
        return {"control": self.control, "value": self.value, "t": self.t}


@dataclass(frozen=True)
class Action:
    """A game-level action: start_turn, flip, challenge(team, card), rule(upheld),
    pause/resume (the link to the panel was lost or came back), touch(control)."""

    name: str
    t: float
    params: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.name, "t": self.t, **self.params}


@dataclass(frozen=True)
class GameEvent:
    """Something the engine decided. `details` is JSON-ready."""

    t: float
    type: str
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"t": round(self.t, 6), "type": self.type, **self.details}


GAME_EVENT_TYPES = (
    "turn_started", "card_drawn", "mistake", "card_completed", "counter_granted",
    "counter_spent", "challenge", "challenge_ruled", "turn_ended", "round_ended",
    "game_ended", "paused", "resumed", "card_skipped", "deck_reshuffled", "input_ignored",
)
