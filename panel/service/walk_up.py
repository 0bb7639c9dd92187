"""The walk-up: a café's cockpit plays without anyone at /admin.

With no match in play, a press a game takes (Penguin Airlines' START; where the settings
file allows it, a Penguin Kaboom penguin's colour) sets a match of that game up, with the
settings file's defaults or, after a match of the same game, the same group and rules
again (a new deck or draw), and the same press goes on to the new match. Which presses a
game takes, and what its match is set up with, is the game's own policy
(`Game.walks_up`, `Game.walk_up_body`): asked through the registry, never branched on here.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from panel.core.errors import Refused
from panel.core.i18n import Text
from panel.games.base import Build, Game
from panel.games.registry import DEFAULT, game_named, games
from panel.service.game_master import set_up_match

if TYPE_CHECKING:
    from panel.service.cockpit import Cockpit

log = logging.getLogger("penguin-panel")


def first_asked(last: Game | None) -> Game:
    """The game a walk-up press asks first: the last match's game, else the default one."""
    return last or game_named(DEFAULT)


def game_for(control: str, *, last: Game | None, settings: dict[str, Any] | None, build: Build) -> Game | None:
    """The game a press of `control` with no match in play sets a match up for, if any: the
    last match's game (`last`, with its stored `settings`) is asked first, so START plays
    it again, then the others (asked with no last settings)."""
    first = first_asked(last)
    for game in [first, *(g for g in games() if g is not first)]:
        if game.walks_up(control, build=build, last=settings if game is last else None):
            return game
    return None


def set_up(owner: "Cockpit", game: Game, control: str) -> bool:
    """A match of `game` set up on `owner` for a press of `control`; False, with the reason
    kept for the board (`walk_up_problem`), when it cannot be."""
    again = game is owner.game
    body = game.walk_up_body(control, owner.record.settings if again else None, owner.match if again else None,
                             build=owner.build, language=owner.language)
    if owner.active:
        owner.set_status("finished")
    try:
        # The group at the table keeps its code; the press goes on to the new match, and
        # the lights and pages are told once it is judged (Cockpit._input).
        set_up_match(owner, {"game": game.id, **body}, new_group=False, tell=False)
    except Refused as e:  # e.g. default teams a settings file got wrong: said, not raised
        log.warning("no match could be set up at the panel: %s", e)
        owner.walk_up_problem = Text(game.walk_up_problem, why=e.said)
        return False
    return True


def press(owner: "Cockpit", control: str) -> bool:
    """`control` pressed with no match in play: a match set up if a game takes the press
    (True when one was; the press goes on to it, and tells the lights and pages)."""
    last = owner.game
    game = game_for(control, last=last, settings=owner.record.settings if last is not None else None,
                    build=owner.build)
    if game is not None and set_up(owner, game, control):
        log.info("%s pressed with no match in play: match %s set up (%s)", control, owner.record.id, game.id)
        return True
    return False
