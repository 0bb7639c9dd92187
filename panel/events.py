"""The two event types that cross the middle of the program, and the lists of their names.

Data flows one way: inputs (GPIO, serial, browser, replay) make `InputEvent`s and
`Action`s; the engine turns them into `GameEvent`s; effects (LEDs, buzzer, pages, store)
consume those. Both ends depend on these types, never on each other's insides.

`ACTIONS` and `EVENT_TYPES` are the one list of each: the engine, the scenario reader and
the service all read them here. Whether an action may happen now is the engine's answer
(`panel.engine.refusal`), never a list kept beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# Every action a game master, a cockpit button, an input source or a script can ask for,
# with the parameters it takes. `new_match` is asked of the match in play (may another
# replace it now?); it is never played inside a match.
ACTIONS: dict[str, tuple[str, ...]] = {
    "start_turn": (),
    "flip": (),
    "pause": ("reason",),
    "resume": ("reason",),
    "challenge": ("team", "card"),
    "rule": ("upheld",),
    "touch": ("control",),
    "end": (),
    "abandon": (),
    "new_match": (),
}

# Every type of game event the engine sends, and what it says.
EVENT_TYPES: dict[str, str] = {
    "turn_started": "a team's turn began (team, round, tower, crew)",
    "card_drawn": "a card came up (number, kind, index in the turn; the card itself for the tower)",
    "card_skipped": "a card that would score for nothing went to the bottom of the deck",
    "deck_reshuffled": "the used cards were shuffled back into the deck",
    "mistake": "a press or move the card did not ask for (control, its plain name, mistakes so far)",
    "card_completed": "the card in play was done (by the crew, or by a rejected challenge)",
    "counter_granted": "the crew took a time counter from the pool",
    "counter_spent": "the crew spent a time counter: the timer is full again",
    "challenge": "a team called a challenge on a card; the timer stopped",
    "challenge_ruled": "the game master ruled on the challenge (upheld or not)",
    "paused": "the timer stopped (reason: pause, restart, link, challenge)",
    "resumed": "the timer runs again",
    "turn_ended": "the turn is over (reason: time, five_cards, mistakes; points scored)",
    "round_ended": "every team has played its turn of the round",
    "game_ended": "the match is over (reason: complete, ended, abandoned; scores and result)",
}


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
    """A game-level action: one of `ACTIONS`, with its parameters."""

    name: str
    t: float
    params: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.name, "t": self.t, **self.params}


@dataclass(frozen=True)
class GameEvent:
    """Something the engine decided: one of `EVENT_TYPES`. `details` is JSON-ready."""

    t: float
    type: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.type not in EVENT_TYPES:  # a typo in the engine, caught where it is made
            raise ValueError(f"{self.type!r} is not a game event type")

    def as_dict(self) -> dict[str, Any]:
        return {"t": round(self.t, 6), "type": self.type, **self.details}
