"""What the service draws for pages: the tower's card, in the cockpit's language.

The drawing itself is the game's (panel/games/airlines/card_drawing.py), loaded only when
a tower looks; this module is the one place the service reaches for it, and it turns a
drawing failure into a plain message instead of an exception in the middle of a push to
every page.
"""

from __future__ import annotations

import logging
from typing import Any

from panel.core.layout import Layout

log = logging.getLogger("penguin-panel")


def card_svg(card: dict[str, Any], layout: Layout, language: str) -> str | None:
    """The card drawn with its words in the cockpit's language."""
    from panel.core.i18n import translations
    from panel.games.airlines.card_drawing import card_svg as draw

    try:
        return draw(card, layout, tr=translations(language))
    except ValueError as e:  # a card the drawing cannot place: the tower still gets the card's text
        log.warning("cannot draw card %s: %s", card.get("number"), e)
        return None


def card_lines(card: dict[str, Any], layout: Layout, language: str) -> list[str]:
    """The card in plain words, under its drawing on the tower's phone, in the cockpit's language."""
    from panel.core.i18n import translations
    from panel.games.airlines.card_drawing import card_text

    try:
        return card_text(card, layout, translations(language))
    except (ValueError, KeyError) as e:
        log.warning("cannot word card %s: %s", card.get("number"), e)
        return []
