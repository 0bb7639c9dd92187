"""The games the cockpit plays, by their word (`Game.id`): the one place that knows them all.

Everything outside a game's own package asks here (`game_named`, `game_of`) and then asks
the game; nothing else branches on which game it is.
"""

from __future__ import annotations

from typing import Any, Iterator

from panel.games.airlines.game import GAME as AIRLINES
from panel.games.base import Game
from panel.games.kaboom.game import GAME as KABOOM
from panel.games.pengo_jump.game import GAME as PENGO_JUMP
from panel.games.ultimatum.game import GAME as ULTIMATUM

GAMES: dict[str, Game] = {g.id: g for g in (AIRLINES, KABOOM, ULTIMATUM, PENGO_JUMP)}
DEFAULT = AIRLINES.id  # a match or a scenario that names no game: the cockpit's own game


class UnknownGame(ValueError):
    """A `game` that is none of the registered ones."""


def game_named(name: str) -> Game:
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(name) from None


def named_in(d: dict[str, Any] | None) -> str:
    """The game a stored settings table, a form, a scenario's [match] or a snapshot names.
    Records from before the word `game` marked a Penguin Kaboom mission `mode = "kaboom"`
    (and Penguin Airlines nothing): read here, once, so old logs and scenarios still play."""
    d = d or {}
    name = d.get("game")
    if isinstance(name, str):
        return name
    return KABOOM.id if d.get("mode") == KABOOM.id else DEFAULT


def game_of(d: dict[str, Any] | None) -> Game:
    """The registered game `d` names (see `named_in`); UnknownGame otherwise."""
    return game_named(named_in(d))


def own_settings(d: dict[str, Any]) -> dict[str, Any]:
    """A stored or asked-for settings table without the registry's words (`game`, and the
    old marker `mode = "kaboom"`): what the game's own settings reader takes."""
    out = {k: v for k, v in d.items() if k != "game"}
    if out.get("mode") == KABOOM.id:
        del out["mode"]
    return out


def stored(game: Game, engine: Any) -> dict[str, Any]:
    """The settings a match is stored with: its game's word first, then the game's own."""
    return {"game": game.id, **game.stored_settings(engine)}


def games() -> Iterator[Game]:
    return iter(GAMES.values())


def event_types() -> dict[str, str]:
    """Every game's event types and what each says (the MQTT event topic's schema), each
    declared once in its game's package."""
    out: dict[str, str] = {}
    for game in GAMES.values():
        for name, about in game.event_types.items():
            out.setdefault(name, about)
    return out
