"""Penguin Airlines' actions and game events, declared once (the engine, the scenario reader
and the service read them here), and an event named for a reader."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from panel.core.events import declare_event_types

if TYPE_CHECKING:
    from panel.core.layout import Layout

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

# Every type of game event the engine sends, and what it says.
EVENT_TYPES: dict[str, str] = declare_event_types({

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
    "turn_ended": "the turn is over (reason: time, five_cards, mistakes; points scored, of them bonus for counters)",
    "round_ended": "every team has played its turn of the round",
    "game_ended": "the match is over (reason: complete, ended, abandoned; scores and result; the turn in progress "
                  "it left unscored, if any; the turns an end with unequal turns was decided on, if any)",
})


def named(event: dict[str, Any], layout: Layout | None, tr: Any) -> dict[str, Any]:
    """A mistake's event dict with its control's plain name (`name`) in the language of `tr`
    (English without it): the engine says the control's id; named here, once. Other events,
    and any without a layout, unchanged."""
    if layout is None or event.get("type") != "mistake" or event.get("control") not in layout:
        return event
    name = layout.plain_name(event["control"], tr)
    out: dict[str, Any] = {}
    for k, v in event.items():  # the name right after the control, where a reader looks for it
        if k != "name":
            out[k] = v
        if k == "control":
            out["name"] = name
    return out
