"""Pengo Jump scenarios: the scripting contract for driving its engine from a file.

    game = "pengo-jump"

    [match]
    mode = "sea_lions"                 # happy (Happy Penguins) | sea_lions (Sea Lions Adventure)
    players = ["Lea", "Tom", "Ana"]    # in the order they play; or a number: players = 1 (solo)
    layout = "my-panel.toml"           # optional: a layout with a [pengo_jump] table

    [[input]]
    t = 0.0
    action = "draw"
    kind = "frosty"                    # snowy | sea_lion | frosty

Each input has `t` (seconds from the start, in order) and one of:
    press = "id"                                  a button of the panel (the [pengo_jump] table's:
                                                  the three draws, home, fell, the sea lions, end turn)
    action = "draw", kind = "snowy" | "sea_lion" | "frosty"
    action = "home" | "fell" | "end_turn" | "abandon"
    action = "sea_lion" | "token_fell", size = "small" | "large"

The result (`penguin-panel replay --json`): the `events`; `refused`, each input the rules
refused at its moment (it changed nothing: a draw from an empty bag, a kind none of is left,
a report before the turn's draw, a second move in a turn, a sea lion in Happy Penguins...)
with the action it asked for and the reason; the `bag` by kind and `left`; `home` and `out`
(penguins); `tokens` (by size: free, board, fallen; null in Happy Penguins); `turn` and
`current` (whose turn, by their place in the order); `finished`; `outcome` (won, lost or
abandoned) and `reason` (bag_empty when lost).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.events import Action, GameEvent, InputEvent
from panel.core.i18n import N_, Text, _
from panel.core.layout import Layout
from panel.games.pengo_jump.engine import PENGUINS, PengoMatch, malformed
from panel.games.pengo_jump.events import ACTIONS, KIND_NAMES
from panel.games.pengo_jump.mapping import PengoMapping
from panel.games.pengo_jump.mapping_file import panel_for
from panel.games.pengo_jump.settings import PengoSettings
from panel.games.scenario_inputs import print_events, read_end, read_inputs, start_positions

_ACTION_PARAMS = tuple(dict.fromkeys(p for params in ACTIONS.values() for p in params))


class PengoScenario:
    def __init__(self, settings: PengoSettings, layout: Layout, mapping: PengoMapping | None,
                 inputs: list[InputEvent | Action], end: float | None, positions: dict[str, str]):
        self.settings, self.layout, self.mapping = settings, layout, mapping
        self.inputs, self.end, self.positions = inputs, end, positions

    @property
    def game(self):
        from panel.games.pengo_jump.game import GAME

        return GAME

    def new_match(self) -> PengoMatch:
        return PengoMatch(self.settings, self.mapping, layout=self.layout, positions=self.positions)

    def result(self, match: PengoMatch, events: list[GameEvent], refused: list[dict[str, Any]],
               tr: Any = None) -> dict[str, Any]:
        return result(match, events, refused)


def result(match: PengoMatch, events: list[GameEvent], refused: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "events": [e.as_dict() for e in events],
        "refused": refused,
        "mode": match.settings.mode,
        "bag": dict(match.bag),
        "left": match.left,
        "home": match.home,
        "out": PENGUINS - match.home,
        "tokens": None if match.tokens is None else {s: dict(v) for s, v in match.tokens.items()},
        "turn": match.turn,
        "current": None if match.finished else match.current,
        "finished": match.finished,
        "outcome": match.outcome,
        "reason": match.reason,
    }


def parse_pengo_scenario(raw: dict[str, Any], *, file: str | None = None, base: Path | None = None) -> PengoScenario:
    problems: list[Problem] = []
    for k in raw:
        if k not in ("match", "input", "end", "panel"):
            problems.append(Problem(file, k, Text(N_("unknown key for a Pengo Jump scenario (expected match, panel, "
                                                     "input, end)"))))
    raw_match = dict(raw.get("match") or {}) if isinstance(raw.get("match", {}), dict) else raw.get("match")
    layout_path = raw_match.pop("layout", None) if isinstance(raw_match, dict) else None
    settings = None
    try:
        settings = PengoSettings.from_dict(raw_match, file=file, key="match")
    except ConfigError as e:
        problems += e.problems
    if layout_path is not None and not isinstance(layout_path, str):
        problems.append(Problem(file, "match.layout", Text(N_("must be a string"))))
        layout_path = None
    if layout_path is not None and base is not None and not Path(layout_path).is_absolute():
        layout_path = str(base / layout_path)
    layout, mapping = panel_for(layout_path)
    positions = start_positions(raw.get("panel", {}), layout, file, problems)
    inputs, input_problems = read_inputs(
        raw.get("input", []), layout, file, action_params=_ACTION_PARAMS, malformed=malformed,
        not_a_button=lambda v: Text(N_("{value} is not a button of the panel (Pengo Jump uses {buttons})"),
                                    value=repr(v), buttons=", ".join(mapping.buttons.values()) if mapping else "-"),
        not_a_token=lambda v: Text(N_("{value} is not a token of the panel"), value=repr(v)),
        new_match=Text(N_("a scenario plays one game: new_match is the service's, not a scenario's")))
    problems += input_problems
    end = read_end(raw, file, problems)
    if problems:
        raise ConfigError(problems)
    return PengoScenario(settings, layout, mapping, inputs, end, positions)


def print_log(out: dict[str, Any]) -> None:
    """A Pengo Jump result as a log a person reads; a refused input is a `refused` line at its
    moment, with the reason."""
    print_events(out, _("refused"))
    print(headline(out))


def headline(out: dict[str, Any]) -> str:
    """One line: the bag, the penguins home, how it ended."""
    bag = ", ".join(f"{n} {_(k.replace('_', ' '))}" for k, n in out["bag"].items())
    said = _("Bag: {bag} · penguins home: {home} of 4").format(bag=bag, home=out["home"])
    if not out["finished"]:
        return f"{said} · {_('not finished')}"
    ending = {"won": _("won: the four penguins reached the iceberg"),
              "lost": _("lost: the bag is empty with penguins still out"),
              "abandoned": _("abandoned")}.get(out["outcome"], out["outcome"])
    return f"{said} · {ending}"
