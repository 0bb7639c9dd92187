"""Penguin Ultimatum's words for its cards: the players' colours, the four forms of
entertainment (also the four performance cards), the four entertainers' colours and their
animals, and the sixteen entertainer cards (Ultimatum rule 2: one of each colour and form).
Pure data, read by the engine, the scoring, the scenario reader and the pages."""

from __future__ import annotations

from panel.core.i18n import NC_, N_

# Ultimatum rule 1: four sets of playing pieces. The rulebook calls three players by their
# colour (red, green, blue); the fourth set's colour is the house's word.
PLAYER_COLOURS = ("red", "green", "blue", "yellow")
MAX_PLAYERS = len(PLAYER_COLOURS)
MIN_PLAYERS = 2
START_POINTS = 10  # every player's counting card at the start (the rulebook's set-up)

# The forms of entertainment, in the rulebook's order; a performance card shows one of them.
FORMS = ("juggling", "acrobatics", "dance", "music")
# The entertainers' background colours and the animal of each (the family that likes it).
ANIMALS = {"green": "sheep", "brown": "kangaroo", "red": "seal", "blue": "bear"}
ENTERTAINER_COLOURS = tuple(ANIMALS)

# Every entertainer card, "colour-form" (red-dance: the red dancing seal).
CARDS = tuple(f"{c}-{f}" for c in ENTERTAINER_COLOURS for f in FORMS)


def card_id(colour: str, form: str) -> str:
    return f"{colour}-{form}"


def card_parts(card: str) -> tuple[str, str]:
    colour, form = card.split("-", 1)
    return colour, form


# Their names for people (the pages say them in their language: GET /api/games).
PLAYER_NAMES = {"red": NC_("ultimatum player", "red"), "green": NC_("ultimatum player", "green"),
                "blue": NC_("ultimatum player", "blue"), "yellow": NC_("ultimatum player", "yellow")}
FORM_NAMES = {"juggling": N_("juggling"), "acrobatics": N_("acrobatics"), "dance": N_("dance"), "music": N_("music")}
# The breakdown's words for each colour's majority, alone or tied ("most sheep", "seals,
# tied"); the matching forms' counted words ("2 dancers") are scoring.py's (plural forms).
MOST = {"sheep": N_("most sheep"), "kangaroo": N_("most kangaroos"), "seal": N_("most seals"), "bear": N_("most bears")}
TIED = {"sheep": N_("sheep, tied"), "kangaroo": N_("kangaroos, tied"), "seal": N_("seals, tied"),
        "bear": N_("bears, tied")}
ANIMAL_NAMES = {"sheep": N_("sheep"), "kangaroo": N_("kangaroo"), "seal": N_("seal"), "bear": N_("bear")}
COLOUR_NAMES = {"green": NC_("entertainer", "green"), "brown": NC_("entertainer", "brown"),
                "red": NC_("entertainer", "red"), "blue": NC_("entertainer", "blue")}
# How each looks on the pages: the player's pieces, the entertainer's background (with ink
# that reads on it); the name is always written beside the colour.
PLAYER_CSS = {"red": ("#d7263d", "#fff"), "green": ("#1b9e48", "#fff"), "blue": ("#1f5fd0", "#fff"),
              "yellow": ("#f5c518", "#222")}
ENTERTAINER_CSS = {"green": ("#3c9d3c", "#fff"), "brown": ("#8a5a2b", "#fff"), "red": ("#c8302c", "#fff"),
                   "blue": ("#2a62c9", "#fff")}
