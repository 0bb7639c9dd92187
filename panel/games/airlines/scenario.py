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

The actions and their parameters are `panel.core.events.ACTIONS`; a parameter of the wrong
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
from panel.core.toml_file import read_toml
from panel.core.events import ACTIONS, Action, GameEvent, InputEvent
from panel.core.i18n import N_, Text, Word
from panel.core.layout import Layout
from panel.core.layout_file import load_layout
from panel.games.scenario_inputs import each_input, start_positions

# each verb of an [[input]] entry, and the keys it takes besides t and itself
_ACTION_PARAMS = tuple(dict.fromkeys(p for params in ACTIONS.values() for p in params))
_INPUT_EXTRAS = {"press": set(), "hold": set(), "release": set(), "move": {"to"}, "action": set(_ACTION_PARAMS)}


class Scenario:
    def __init__(self, settings: MatchSettings, layout: Layout, cards: list[Card] | None,
                 inputs: list[InputEvent | Action], end: float | None, positions: dict[str, str]):
        self.settings = settings
        self.layout = layout
        self.cards = cards
        self.inputs = inputs
        self.end = end
        self.positions = positions

    def new_match(self) -> Match:
        return Match(self.settings, self.layout, self.cards, positions=self.positions,
                     shuffle=self.cards is None)


def load_scenario(path: str | Path) -> Scenario:
    file = str(path)
    raw = read_toml(path)
    return parse_scenario(raw, file=file, base=Path(path).resolve().parent)


def parse_scenario(raw: dict[str, Any], *, file: str | None = None, base: Path | None = None) -> Scenario:
    if isinstance(raw.get("match"), dict) and raw["match"].get("mode") == "kaboom":
        from panel.games.kaboom.scenario import parse_kaboom_scenario

        return parse_kaboom_scenario(raw, file=file, base=base)
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
    end = raw.get("end")
    if end is not None and (not isinstance(end, (int, float)) or isinstance(end, bool) or end < 0):
        problems.append(Problem(file, "end", Text(N_("must be a time in seconds (a number >= 0)"))))
        end = None
    if problems:
        raise ConfigError(problems)
    return Scenario(settings, layout, cards, inputs, float(end) if end is not None else None, positions)


def parse_inputs(raw_inputs: Any, layout: Layout, file: str | None,
                 key: str = "input") -> tuple[list[InputEvent | Action], list[Problem]]:
    problems: list[Problem] = []
    out: list[InputEvent | Action] = []
    for e, t, verb, bad in each_input(raw_inputs, file, key, _INPUT_EXTRAS, problems):
        target = e[verb]
        if verb in ("press", "hold", "release"):
            if not isinstance(target, str) or (target not in layout.buttons and target not in layout.cockpit):
                bad(Text(N_("{value} is not a button on the {side} side with the expansion") if layout.expansion
                         else N_("{value} is not a button on the {side} side"), value=repr(target),
                         side=Word(layout.side)), verb)
                continue
            if verb in ("press", "hold"):
                out.append(InputEvent(target, True, t))
            if verb in ("press", "release"):
                out.append(InputEvent(target, False, t))
        elif verb == "move":
            tok = layout.tokens.get(target) if isinstance(target, str) else None
            if tok is None:
                bad(Text(N_("{value} is not a token on this layout"), value=repr(target)), "move")
                continue
            to = e.get("to")
            to = str(to) if isinstance(to, int) and not isinstance(to, bool) else to
            if to not in tok.positions:
                bad(Text(N_("{value} is not a position of {id} ({positions})"), value=repr(to), id=target,
                         positions=", ".join(tok.positions)), "to")
                continue
            out.append(InputEvent(target, to, t))
        else:
            if target == "new_match":
                bad(Text(N_("a scenario plays one match: new_match is the service's, not a scenario's")), "action")
                continue
            params = {p: e[p] for p in _ACTION_PARAMS if p in e}
            action = Action(target, t, params)
            why = malformed(action, layout)
            if why is not None:
                bad(Text(why.message, **why.values), why.param)
                continue
            out.append(action)
    return out, problems


def input_entry(event: InputEvent | Action) -> dict[str, Any]:
    """One logged input as a scenario [[input]] entry (the inverse of parse_inputs)."""
    if isinstance(event, Action):
        return {"t": event.t, "action": event.name, **event.params}
    if isinstance(event.value, bool):
        return {"t": event.t, ("hold" if event.value else "release"): event.control}
    return {"t": event.t, "move": event.control, "to": event.value}


def play(match: Match, inputs: list[InputEvent | Action], end: float | None = None,
         refused: list[dict[str, Any]] | None = None, tr: Any = None) -> list[GameEvent]:
    """Feed the inputs in order; the game events. An action the engine refuses at its
    moment does nothing; when `refused` is given, each refusal is appended to it, its
    reason in the language of `tr` (English without it: the JSON output)."""
    events: list[GameEvent] = []
    for i, event in enumerate(inputs):
        if isinstance(event, Action):
            events += match.advance(event.t)  # asked at its moment: the timer may have run out
            why = match.refusal(event)
            if why is not None:
                if refused is not None:
                    refused.append({"t": event.t, "action": event.name, **event.params, "reason": why.text(tr)})
                continue
        events += match.handle(event)
    if end is not None:
        events += match.advance(end)
    return events


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


def named(event: dict[str, Any], layout: Layout | None, tr: Any) -> dict[str, Any]:
    """An event dict whose control's plain name (`name`, a mistake's) is said in the language
    of `tr` (the engine says it in English); unchanged without a layout or a language."""
    if tr is None or layout is None or "name" not in event or event.get("control") not in layout:
        return event
    return {**event, "name": layout.plain_name(event["control"], tr)}


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


def run_scenario(scenario: Scenario, tr: Any = None) -> dict[str, Any]:
    """The scenario's result; its words (refusals' reasons, controls' plain names) in the
    language of `tr`, English without it (the JSON output)."""
    if getattr(scenario, "mode", None) == "kaboom":
        return scenario.run(tr)
    match = scenario.new_match()
    refused: list[dict[str, Any]] = []
    events = play(match, scenario.inputs, scenario.end, refused, tr)
    return result(match, events, refused, tr)
