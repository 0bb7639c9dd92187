"""Penguin Ultimatum's actions and game events, declared once (the engine, the scenario
reader, the service and the pages read them here).

Every action but `undo`, `correct`, `abandon` and `new_match` is an *entry* of the game's
score sheet (Ultimatum rules 1 to 11): the engine keeps the entries and folds them into the
scores, so that an undo or a correction refolds everything after it.
"""

from __future__ import annotations

from panel.core.events import declare_event_types

# Every action, with the parameters each takes. `player` is a player's colour, `form` a form
# of entertainment (a player's performance card, or an entertainer's form), `colour` an
# entertainer's colour, `points` a table player -> points (a performance) or a number (a
# penalty), `card` an entertainer card ("red-dance"), `entry` an entry's number.
ACTIONS: dict[str, tuple[str, ...]] = {
    "add_player": ("player", "name", "form"),
    "performance": ("colour", "form", "points"),
    "penalty": ("player", "points", "card"),
    "end": (),
    "shorter": ("player",),
    "undo": (),
    "correct": ("entry", "player", "name", "form", "colour", "points", "card"),
    "abandon": (),
    "new_match": (),
}
# The actions that are entries of the score sheet (numbered, correctable but the last two).
ENTRIES = ("add_player", "performance", "penalty", "end", "shorter")
CORRECTABLE = ("add_player", "performance", "penalty")

EVENT_TYPES: dict[str, str] = declare_event_types({
    "player_added": "a player sat down (entry, player, name, form, the players now)",
    "performance": "an entertainer performed (entry, card, colour, form, points each, scores after)",
    "entertainer_awarded": "the entertainer card went to the player with the fewest non-zero points (card, to)",
    "entertainer_out": "the entertainer card left the game (card, why: tied or nobody)",
    "penalty_paid": "a kinship penalty paid in points (entry, player, points, scores after)",
    "entertainer_given_up": "a kinship penalty avoided by giving up an entertainer card (entry, player, card)",
    "entry_undone": "the last entry or correction taken back (undid, entry, entries, scores, cards)",
    "entry_corrected": "an earlier entry corrected and everything after it recomputed (entry, entries, scores, cards)",
    "game_ended": "the end entered and scored (final: each player's breakdown; tied: players the page asks about)",
    "game_won": "the winner known (winner, reason: points, entertainer_points, entertainer_cards or shorter; final)",
    "game_abandoned": "the game master abandoned the game (no result)",
})
