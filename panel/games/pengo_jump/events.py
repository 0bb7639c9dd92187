"""Pengo Jump's actions and game events, declared once (the engine, the scenario reader, the
pages and the MQTT schema read them here)."""

from __future__ import annotations

from panel.core.events import declare_event_types
from panel.core.i18n import N_

# The kinds of ice chunk in the box, in the order the pages show them.
KINDS = ("snowy", "sea_lion", "frosty")
# The two sizes of sea lion token (Sea Lions Adventure).
SIZES = ("small", "large")
# Their names for people (the pages and the refusals say them in the reader's language).
KIND_NAMES = {"snowy": N_("snowy"), "sea_lion": N_("sea lion"), "frosty": N_("frosty")}
SIZE_NAMES = {"small": N_("small"), "large": N_("large")}
# The two modes of the rulebook.
MODES = ("happy", "sea_lions")

# Every action, with the parameters each takes. Each is a player's report of what happened at
# the table (the panel's buttons ask for them); `new_match` is asked of the game in play
# (may another replace it now?), never played inside one.
ACTIONS: dict[str, tuple[str, ...]] = {
    "draw": ("kind",),
    "home": (),
    "fell": (),
    "sea_lion": ("size",),
    "token_fell": ("size",),
    "end_turn": (),
    "abandon": (),
    "new_match": (),
}

# Every type of game event the engine sends, and what it says.
EVENT_TYPES: dict[str, str] = declare_event_types({
    "chunk_drawn": "a player drew an ice chunk from the bag (by, kind, the bag after it, left, daylight)",
    "daylight": "the sun went lower as the bag emptied (stage: evening, dusk or night)",
    "penguin_home": "a penguin reached the iceberg (by, home, out)",
    "penguin_fell": "a penguin fell off the sea board (by, falls this turn)",
    "sea_lion_token": "a penguin hopped onto a sea lion tile: its token slid in (by, size, token: whether one was "
                      "free, the tokens after it)",
    "tokens_collected": "the fallen sea lion tokens of a size were collected back (size, count, the tokens after it)",
    "token_fell": "a sea lion token fell off the sea board onto the table (size, the tokens after it)",
    "turn_over": "the turn went to the next player (from, to, why: end_turn or draw)",
    "all_home": "the four penguins reached the iceberg (turns, chunks left)",
    "night_fell": "the bag is empty with penguins still out (reason: bag_empty, home, out)",
    "game_abandoned": "the game master abandoned the game",
})
