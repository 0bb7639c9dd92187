"""The two event types that cross the middle of the program, and the lists of their names.

Data flows one way: inputs (GPIO, serial, browser, replay) make `InputEvent`s and
`Action`s; the engine turns them into `GameEvent`s; effects (LEDs, buzzer, pages, store)
consume those. Both ends depend on these types, never on each other's insides.

`ACTIONS` (Penguin Airlines), `KABOOM_ACTIONS` (Penguin Kaboom) and `EVENT_TYPES` (both
games) are the one list of each: the engines, the scenario readers and the service all
read them here. Whether an action may happen now is the engine's answer
(`panel.core.refusal`), never a list kept beside it.
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
    "end": ("when",),
    "abandon": (),
    "new_match": (),
}

# Penguin Kaboom's actions (panel.games.kaboom.engine), with the parameters each takes. A player's
# colour button asks for join or leave before the start and for pass during the mission;
# `new_match` as above.
KABOOM_ACTIONS: dict[str, tuple[str, ...]] = {
    "join": ("colour",),
    "leave": ("colour",),
    "start": (),
    "pass": ("colour",),
    "recharge": (),
    "lift_cover": (),
    "lower_cover": (),
    "confirm": (),
    "alert_flipped": (),
    "alert_deactivated": (),
    "pause": ("reason",),
    "resume": ("reason",),
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
    "paused": "the timer (in Kaboom: every clock) stopped (reason: pause, restart, link, challenge)",
    "resumed": "the timer (in Kaboom: the clocks) runs again",
    "turn_ended": "the turn is over (reason: time, five_cards, mistakes; points scored, of them bonus for counters)",
    "round_ended": "every team has played its turn of the round",
    "game_ended": "the match is over (reason: complete, ended, abandoned; scores and result; the turn in progress "
                  "it left unscored, if any)",
    # Penguin Kaboom
    "player_joined": "a penguin joined before the start (colour, the players now)",
    "player_left": "a penguin left before the start (colour, the players now)",
    "mission_started": "the clocks started (first player, players, names, seconds each, alert cards)",
    "turn_passed": "the turn went on (from, to, why: pass or tie_break, time left of both)",
    "recharge": "time added to the player with the least (to, seconds, capped, before, time left)",
    "alert": "an alert sounded: flip an alert card (number, cards face up and down, alerts waiting)",
    "alert_flipped": "the players reported an alert card flipped face up (cards face up and down)",
    "alert_deactivated": "the players reported an alert card turned back face down",
    "cover_lifted": "the mission button's protection is off",
    "cover_lowered": "the mission button's protection is back on",
    "mission_confirmed": "the mission button was pressed: clocks stopped, every finger on its colour",
    "mission_accomplished": "every player's colour held at once: success (time left)",
    "mission_failed": "the mission is lost (reason: clock_out with the colour, or last_alert; time left)",
    "mission_abandoned": "the game master abandoned the mission",
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
