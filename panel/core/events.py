"""The two event types that cross the middle of the program, and the lists of their names.

Data flows one way: inputs (GPIO, serial, browser, replay) make `InputEvent`s and
`Action`s; the engine turns them into `GameEvent`s; effects (LEDs, buzzer, pages, store)
consume those. Both ends depend on these types, never on each other's insides.

Each game declares its own actions and event types, once, in its package
(panel/games/airlines/events.py, panel/games/kaboom/events.py): the engines, the scenario
readers and the service read them there (the service through `Game.actions`); every
game's event types together are `panel.games.registry.event_types()`. Whether an action
may happen now is the engine's answer (`panel.core.refusal`), never a list kept beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# slots: every press makes one (the press path's first object; made and read in every
# light); a slotted frozen dataclass is made faster than a plain one and read without a __dict__.
@dataclass(frozen=True, slots=True)
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
    """A game-level action: one of its game's `ACTIONS`, with its parameters."""

    name: str
    t: float
    params: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.name, "t": self.t, **self.params}


# The game event types every loaded game declared (`declare_event_types`, called by each
# game's events module as it is imported): a GameEvent of another type is a typo.
_DECLARED: set[str] = set()


def declare_event_types(types: dict[str, str]) -> dict[str, str]:
    """A game's event types (name: what it says), so GameEvent knows them; returns them."""
    _DECLARED.update(types)
    return types


@dataclass(frozen=True, slots=True)
class GameEvent:
    """Something the engine decided: one of its game's `EVENT_TYPES`. `details` is JSON-ready."""

    t: float
    type: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.type not in _DECLARED:  # a typo in the engine, caught where it is made
            raise ValueError(f"{self.type!r} is not a game event type")

    def as_dict(self) -> dict[str, Any]:
        return {"t": round(self.t, 6), "type": self.type, **self.details}
