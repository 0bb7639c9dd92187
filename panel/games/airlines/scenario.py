"""Scenarios: the scripting contract for driving the engine from a file.

A scenario TOML has a `[match]` table (the settings), optional `[[cards]]` (a fixed deck
drawn in order), optional `[panel]` (token positions at the start; the layout's start
positions otherwise), an `[[input]]` array and an optional top-level `end = t`.

Each input has `t` (seconds from the start of the match) and one of:
    press = "id"              press and release a button
    hold = "id" / release = "id"
    move = "id", to = position
    action = "start_turn" | "flip" | "end" | "abandon"
    action = "pause" | "resume", optional reason = "pause" | "restart" | "link"
    action = "challenge", team = "...", card = "current" | index of a card completed this turn
    action = "rule", upheld = true | false
    action = "touch", control = "token id"   (builds with touch sensors)

The actions and their parameters are `panel.games.airlines.events.ACTIONS`; a parameter of the wrong
shape is an error of the file, found before anything is played. Whether an action may
happen at its moment is the engine's answer (`Match.refusal`): an action the engine
refuses then (a team challenging its own turn, a flip with no counter) does nothing and
is reported in the result's `refused` list, with the engine's reason.

`run_scenario` returns the JSON-ready result; a match's input log, written back as
`[[input]]` entries, replays to the same result because the engine is deterministic.

With `mode = "kaboom"` in [match], the file is a Penguin Kaboom scenario instead: see
panel/games/kaboom/scenario.py for its fields, inputs and result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.games.airlines.cards import Card
from panel.games.airlines.deck_file import parse_cards
from panel.games.airlines.engine import Match, MatchSettings, malformed
from panel.core.errors import ConfigError, Problem
from panel.core.events import Action, GameEvent, InputEvent
from panel.games.airlines.events import ACTIONS, named
from panel.core.i18n import N_, Text, Word, _
from panel.core.layout import Layout
from panel.core.layout_file import load_layout
from panel.games.scenario_inputs import read_end, read_inputs, start_positions

# the parameters an action entry may give (each checked by the engine's `malformed`)
_ACTION_PARAMS = tuple(dict.fromkeys(p for params in ACTIONS.values() for p in params))


class Scenario:
    def __init__(self, settings: MatchSettings, layout: Layout, cards: list[Card] | None,
                 inputs: list[InputEvent | Action], end: float | None, positions: dict[str, str]):
        self.settings = settings
        self.layout = layout
        self.cards = cards
        self.inputs = inputs
        self.end = end
        self.positions = positions

    @property
    def game(self):
        from panel.games.airlines.game import GAME

        return GAME

    def new_match(self) -> Match:
        return Match(self.settings, self.layout, self.cards, positions=self.positions,
                     shuffle=self.cards is None)

    def result(self, match: Match, events: list[GameEvent], refused: list[dict[str, Any]],
               tr: Any = None) -> dict[str, Any]:
        return result(match, events, refused, tr)


def parse_airlines_scenario(raw: dict[str, Any], *, file: str | None = None, base: Path | None = None) -> Scenario:
    """A Penguin Airlines scenario (panel/games/scenarios.py reads which game a file is)."""
    problems: list[Problem] = []
    for k in raw:
        if k not in ("match", "cards", "input", "end", "panel"):
            problems.append(Problem(file, k, Text(N_("unknown key (expected match, cards, panel, input, end)"))))
    if "match" not in raw:
        raise ConfigError(Problem(file, "match", Text(N_("a scenario needs a [match] table"))))
    settings = MatchSettings.from_dict(raw["match"], file=file)
    layout_path = None
    if settings.layout:
        layout_path = Path(settings.layout)
        if base is not None and not layout_path.is_absolute():
            layout_path = base / layout_path
    layout = load_layout(layout_path, side=settings.side, expansion=settings.expansion)

    cards = None
    if "cards" in raw:
        cards, card_problems = parse_cards(raw["cards"], file)
        problems += card_problems
        from panel.games.airlines.cards import check_card

        for i, c in enumerate(cards):
            for why in check_card(c, layout):
                problems.append(Problem(file, f"cards[{i}]", why))
        if not cards and not card_problems:
            problems.append(Problem(file, "cards", Text(N_("the deck given has no cards"))))

    positions = start_positions(raw.get("panel", {}), layout, file, problems)

    inputs, input_problems = parse_inputs(raw.get("input", []), layout, file)
    problems += input_problems
    end = read_end(raw, file, problems)
    if problems:
        raise ConfigError(problems)
    return Scenario(settings, layout, cards, inputs, end, positions)


def parse_inputs(raw_inputs: Any, layout: Layout, file: str | None,
                 key: str = "input") -> tuple[list[InputEvent | Action], list[Problem]]:
    return read_inputs(
        raw_inputs, layout, file, key=key, action_params=_ACTION_PARAMS, malformed=lambda a: malformed(a, layout),
        not_a_button=lambda v: Text(N_("{value} is not a button on the {side} side with the expansion")
                                    if layout.expansion else N_("{value} is not a button on the {side} side"),
                                    value=repr(v), side=Word(layout.side)),
        not_a_token=lambda v: Text(N_("{value} is not a token on this layout"), value=repr(v)),
        new_match=Text(N_("a scenario plays one match: new_match is the service's, not a scenario's")))


def contract_events(events: list[GameEvent]) -> list[dict[str, Any]]:
    """The engine's events in the scripting contract's vocabulary.

    The contract names eleven event types; the engine says a few more things, which ride
    on those: a card sent to the bottom (`card_skipped`) or a reshuffle before a draw
    become `skipped` and `reshuffled` on the `card_drawn` that follows, and the pause a
    challenge causes is already told by `challenge` and `challenge_ruled`. Only the
    pause/resume actions, an extension, add `paused` and `resumed` events.
    """
    out: list[dict[str, Any]] = []
    skipped: list[int] = []
    reshuffled = False
    for e in events:
        if e.type == "card_skipped":
            skipped.append(e.details["number"])
            continue
        if e.type == "deck_reshuffled":
            reshuffled = True
            continue
        if e.type in ("paused", "resumed") and e.details.get("reason") == "challenge":
            continue
        d = e.as_dict()
        if e.type == "card_drawn":
            if skipped:
                d["skipped"], skipped = skipped, []
            if reshuffled:
                d["reshuffled"], reshuffled = True, False
        out.append(d)
    return out


def result(match: Match, events: list[GameEvent], refused: list[dict[str, Any]] | None = None,
           tr: Any = None) -> dict[str, Any]:
    return {
        "events": [named(e, match.layout, tr) for e in contract_events(events)],
        "refused": list(refused or []),
        "scores": dict(match.scores),
        "round": match.round,
        "finished": match.finished,
        "winner": match.winner,
        "tier": match.tier,
        "outcome": match.outcome,
    }


def print_log(out: dict) -> None:
    """The result as a log a person reads, in the system locale's language (run_scenario
    with its translations); an action the engine refused is a `refused` line at its moment,
    with the engine's reason. Event types and their fields are the scripting contract's
    names, as in the JSON output."""
    lines = []
    for e in out["events"]:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("t", "type", "card", "outcome"))
        lines.append((e["t"], f"{e['t']:8.2f}s  {e['type']:<16} {details}"))
    refused = _("refused")
    for r in out.get("refused", []):
        asked = ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("t", "action", "reason"))
        lines.append((r["t"], f"{r['t']:8.2f}s  {refused:<16} {r['action']}{f' ({asked})' if asked else ''}: "
                              f"{r['reason']}"))
    for _t, line in sorted(lines, key=lambda tl: tl[0]):  # stable: a refusal after that moment's events
        print(line)
    print(_("scores: {scores}").format(scores=", ".join(f"{k} {v}" for k, v in out["scores"].items())))
    if out["finished"]:
        if out["winner"]:
            print(_("winner: {teams}").format(teams=_(" and ").join(out["winner"])))
        if out["tier"]:
            print(_("landing: {tier}: {outcome}").format(tier=_(out["tier"]), outcome=_(out["outcome"])))
    else:
        print(_("match not finished (round {round})").format(round=out["round"]))
