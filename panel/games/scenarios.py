"""Scenarios: the scripting contract for driving any game's engine from a file.

A scenario TOML names its game (`game = "kaboom"` at the top or in [match]; Penguin
Airlines when it names none) and the game reads the rest (panel/games/airlines/scenario.py,
panel/games/kaboom/scenario.py): its [match] settings, its [[input]] entries (the shared
verbs, panel/games/scenario_inputs.py), an optional [panel] and `end`. `run_scenario` feeds
them through the one feeder (panel/games/feed.py) and gives the JSON-ready result, with
`game` and `refused` (each input the rules refused at its moment, with the reason).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.toml_file import read_toml
from panel.core.i18n import N_, Text
from panel.games.base import Scenario
from panel.games.feed import play
from panel.games.registry import GAMES, UnknownGame, game_named, named_in, own_settings


def load_scenario(path: str | Path) -> Scenario:
    raw = read_toml(path)
    return parse_scenario(raw, file=str(path), base=Path(path).resolve().parent)


def parse_scenario(raw: dict[str, Any], *, file: str | None = None, base: Path | None = None) -> Scenario:
    """The scenario of the game it names, every problem at once (ConfigError)."""
    match = raw.get("match")
    top = raw.get("game")
    name = top if isinstance(top, str) else named_in(match if isinstance(match, dict) else None)
    try:
        game = game_named(name)
    except UnknownGame:
        raise ConfigError(Problem(file, "game", Text(N_("{value} is not a game of the cockpit ({games})"),
                                                     value=repr(name), games=", ".join(GAMES)))) from None
    raw = {k: v for k, v in raw.items() if k != "game"}
    if isinstance(match, dict):
        raw["match"] = own_settings(match)
    return game.read_scenario(raw, file=file, base=base)


def run_scenario(scenario: Scenario, tr: Any = None) -> dict[str, Any]:
    """The scenario's result; its words (refusals' reasons, controls' plain names) in the
    language of `tr`, English without it (the JSON output)."""
    engine = scenario.new_match()
    refused: list[dict[str, Any]] = []
    events = play(engine, scenario.inputs, scenario.end, refused, tr)
    return {"game": scenario.game.id, **scenario.result(engine, events, refused, tr)}
