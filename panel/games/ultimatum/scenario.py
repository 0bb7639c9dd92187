"""Penguin Ultimatum scenarios: the scripting contract with `game = "ultimatum"`.

    game = "ultimatum"

    [match]                                  # the set-up: up to four players (more may sit down by entries)
    players = [{ player = "red", name = "Lea", form = "dance" },
               { player = "green", name = "Max", form = "music" }]

    [[input]]
    t = 1.0
    action = "performance"                   # an entertainer performed
    colour = "red"                           # its colour: green (sheep), brown (kangaroo), red (seal), blue (bear)
    form = "dance"                           # juggling, acrobatics, dance or music
    points = { red = 9, green = 6 }          # each player's guests' points (a player left out: 0)

Each input has `t` (seconds, in order) and `action` with the entry's parameters:
    add_player: player (red, green, blue, yellow), form (their performance card), name (optional)
    performance: colour, form, points (a table player = points)
    penalty: player and either points (a whole number) or card (an entertainer card given up: "red-dance")
    end; shorter: player (who of the players tied on every count is shorter)
    undo; correct: entry (its number: the set-up's players are the first) and what it says now
    abandon
A press or a move of the panel's controls is taken (a logged game has the tokens' moves)
and changes nothing.

The result (`penguin-panel replay --json`): the events; `refused`, each entry the rules
refused at its moment (it changed nothing) with the reason; `players` (each one's colour,
name, performance card, score and entertainer cards); `scores`; `out` (the entertainer
cards out of the game); `finished`; `winner` and `reason` (points, entertainer_points,
entertainer_cards or shorter); `tied` (while the page would ask who is shorter); `final`
(each player's end scoring) and `lines` (the same, one line each).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.events import Action, GameEvent, InputEvent
from panel.core.i18n import N_, Text, _, system
from panel.core.layout import Layout
from panel.core.layout_file import load_layout
from panel.games.scenario_inputs import print_events, read_end, read_inputs, start_positions
from panel.games.ultimatum.engine import UltimatumGame, malformed
from panel.games.ultimatum.events import ACTIONS
from panel.games.ultimatum.scoring import line
from panel.games.ultimatum.settings import UltimatumSettings

_ACTION_PARAMS = tuple(dict.fromkeys(p for params in ACTIONS.values() for p in params))


@lru_cache(maxsize=1)
def whole_panel() -> Layout:
    """Every control of the panel, either side (a logged game's token moves name them)."""
    return load_layout(None, expansion=True)


def label(player: dict[str, Any], tr: Any = None) -> str:
    """A player as people call them: their name, else their colour ("red player")."""
    if player.get("name"):
        return player["name"]
    colour = tr.pgettext("ultimatum player", player["player"]) if tr else player["player"]
    return (tr.gettext if tr else str)(N_("{colour} player")).format(colour=colour)


def lines(players: list[dict[str, Any]], finals: dict[str, Any] | None, tr: Any = None) -> dict[str, str] | None:
    """Each player's breakdown in one line, in the language of `tr` (`players`: a snapshot's)."""
    if finals is None:
        return None
    named = {p["player"]: p for p in players}
    return {p: line(f, label(named.get(p, {"player": p}), tr), tr) for p, f in finals.items()}


class UltimatumScenario:
    def __init__(self, settings: UltimatumSettings, inputs: list[InputEvent | Action], end: float | None,
                 positions: dict[str, str]):
        self.settings = settings
        self.inputs = inputs
        self.end = end
        self.positions = positions

    @property
    def game(self):
        from panel.games.ultimatum.game import GAME

        return GAME

    def new_match(self) -> UltimatumGame:
        return UltimatumGame(self.settings, positions=self.positions)

    def result(self, game: UltimatumGame, events: list[GameEvent], refused: list[dict[str, Any]],
               tr: Any = None) -> dict[str, Any]:
        return result(game, events, refused, tr)


def result(game: UltimatumGame, events: list[GameEvent], refused: list[dict[str, Any]],
           tr: Any = None) -> dict[str, Any]:
    s = game.snapshot()
    return {"events": [e.as_dict() for e in events], "refused": refused,
            "players": s["players"], "scores": s["scores"], "out": s["out"],
            "finished": game.finished, "ended_by": game.ended_by, "winner": s["winner"], "reason": s["reason"],
            "tied": s["tied"], "final": s["final"], "lines": lines(s["players"], s["final"], tr)}


def parse_ultimatum_scenario(raw: dict[str, Any], *, file: str | None = None,
                             base: Path | None = None) -> UltimatumScenario:
    problems: list[Problem] = []
    for k in raw:
        if k not in ("match", "input", "end", "panel"):
            problems.append(Problem(file, k, Text(N_("unknown key for a Penguin Ultimatum scenario "
                                                     "(expected game, match, input, end, panel)"))))
    settings = None
    try:
        settings = UltimatumSettings.from_dict(raw.get("match", {}), file=file)
    except ConfigError as e:
        problems += e.problems
    layout = whole_panel()
    positions = start_positions(raw.get("panel", {}), layout, file, problems)
    inputs, input_problems = read_inputs(
        raw.get("input", []), layout, file, action_params=_ACTION_PARAMS, malformed=malformed,
        not_a_button=lambda v: Text(N_("{value} is not a button of the panel"), value=repr(v)),
        not_a_token=lambda v: Text(N_("{value} is not a token of the panel"), value=repr(v)),
        new_match=Text(N_("a scenario plays one game: new_match is the service's, not a scenario's")))
    problems += input_problems
    end = read_end(raw, file, problems)
    if problems or settings is None:
        raise ConfigError(problems)
    return UltimatumScenario(settings, inputs, end, positions)


def print_log(out: dict[str, Any]) -> None:
    """A result as a log a person reads; a refused entry is a `refused` line at its moment."""
    print_events(out, _("refused"), unsaid=("entries", "final"))  # (the sheet's whole state: in --json only)
    print(_("scores: {scores}").format(scores=", ".join(f"{k} {v}" for k, v in out["scores"].items())))
    for text in (out["lines"] or {}).values():
        print(text)
    if out["winner"]:
        print(winner_text(out))
    elif out["tied"]:
        names = {p["player"]: label(p, system()) for p in out["players"]}
        print(_("tied on every count: who is shorter? ({players})").format(
            players=", ".join(names[p] for p in out["tied"])))
    elif not out["finished"]:
        print(_("game not finished"))


# Why the winner won (Ultimatum rule 11), in words.
REASONS = {"points": N_("most points"), "entertainer_points": N_("tie broken by the points from entertainers"),
           "entertainer_cards": N_("tie broken by the number of entertainer cards"),
           "shorter": N_("tie broken: the shorter player")}


def winner_text(result: dict[str, Any]) -> str:
    """"winner: Lea (most points)", in the system locale's language."""
    names = {p["player"]: label(p, system()) for p in result.get("players", [])}
    return _("winner: {player} ({reason})").format(player=names.get(result["winner"], result["winner"]),
                                                   reason=_(REASONS[result["reason"]]))
