"""The game master's requests on the owner's turn: an action (POST /api/admin/action), carried
out if the engine allows it at that moment, and a new match.

A new match comes from the game master's form (POST /api/admin/match) or a walk-up press: the game the body names sets its match up (`Game.set_up`), the store
records it with the next join code, and the pages and the towers are told.

Refused (HTTP) with the reason in the pages' language when it cannot be set up: the
engine's own refusal (a match still in play), a game this cockpit does not play, settings
the game will not take, a store that cannot write.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from panel.core.errors import ConfigError, Refused, StoreWriteError
from panel.core.events import Action
from panel.core.i18n import N_, text_of, translations
from panel.games.airlines.engine import refusal
from panel.games.base import Engine, Game
from panel.games.registry import UnknownGame, game_of, games, own_settings, stored

if TYPE_CHECKING:
    from panel.service.cockpit import Cockpit

log = logging.getLogger("penguin-panel")


def set_up_match(owner: "Cockpit", body: Any, *, new_group: bool = True, tell: bool = True) -> dict[str, Any]:
    """A new match on `owner` (on its task): its id and join code. `new_group`: the game
    master's match, for a new group (a new code if the last group still holds it); a
    walk-up's is the group at the table, which keeps its code (join_codes.py). `tell`: the
    lights and pages told of it now (a walk-up's press tells them itself, once it is judged:
    its light waits for no state the pages are sent before it)."""
    if not isinstance(body, dict):
        raise Refused(400, N_("the body must be a JSON object"))
    why = refusal(owner.match, Action("new_match", owner.now()))
    if why is not None:
        raise Refused.by_engine(why)
    game, match = new_match(body, build=owner.build, positions=owner.positions, language=owner.language)
    code = owner.codes.for_match(new_group=new_group)
    try:
        # (the writer woken once the lights are out, with what else this turn logs: fan_out.py)
        owner.record = owner.store.create_match(stored(game, match), dict(owner.positions), code, wake=False)
    except StoreWriteError as e:
        raise owner.saving.unsaved(e) from None
    owner.saving.saved()
    match_id = owner.record.id
    owner.begin(match, at=0.0)
    owner.walk_up_problem = None
    owner.fan_out.revoke_towers(code)
    log.info("match %s set up: %s", match_id, game.describe(match, code))
    if tell:
        owner.fan_out.publish([])
    return {"match_id": match_id, "code": code}


def action(owner: "Cockpit", name: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
    """A game master's action, carried out if the engine allows it at this moment; the
    engine's refusal otherwise, as HTTP. No rule is kept here."""
    if name == "new_match":
        raise Refused(400, N_("action: a new match is set up with POST /api/admin/match"))
    t = owner.stamp(owner.clock())
    if owner.active:
        owner.advance(t)  # asked at its moment: the timer may have run out meanwhile
    # A parameter sent as null is one left out (the log is written back as TOML, which has no null).
    asked = Action(name, t, {k: v for k, v in params.items() if v is not None})
    why = refusal(owner.match, asked)
    if why is not None:
        raise Refused.by_engine(why)
    return owner.presentation.events(owner.log_and_handle(asked))


def new_match(body: dict[str, Any], *, build: Any, positions: dict[str, str], language: str) -> tuple[Game, Engine]:
    """The game `body` names and its match set up, or why not (Refused, in the pages' language)."""
    try:
        game = game_of(body)
    except UnknownGame:
        raise Refused(400, N_("game: {value} is not a game of this cockpit ({games})"), value=repr(body.get("game")),
                      games=", ".join(g.id for g in games())) from None
    try:
        return game, game.set_up(own_settings(body), build=build, positions=positions, language=language)
    except ConfigError as e:
        # Said now, in the pages' language: the message is the problems' own words.
        raise Refused(400, "; ".join(p.text(translations(language)) for p in e.problems)) from None
    except ValueError as e:  # the engine's own checks: a Text, said in the pages' language
        raise Refused(400, text_of(e.args[0] if e.args else e, translations(language))) from None
