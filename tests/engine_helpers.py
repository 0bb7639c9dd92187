"""Small builders shared by the engine tests: scenarios as Python dicts."""

from __future__ import annotations

from typing import Any

from panel.games.airlines.scenario import Scenario, result
from panel.games.feed import play
from panel.games.scenarios import parse_scenario
from teams import ENGINE_TEAMS as TWO_TEAMS  # the name the engine's tests import

# A fixed deck used by most tests: the first card is a simple press card.
SIMPLE = [{"kind": "simple", "press": [f"grid.r{r}c{c}"]} for r in (1, 2, 3) for c in (1, 2, 3, 4)]


def scenario(inputs: list[dict[str, Any]], *, cards: list[dict] | None = None, end: float | None = None,
             panel: dict | None = None, **match: Any) -> Scenario:
    raw: dict[str, Any] = {"match": {"mode": "competitive", "teams": TWO_TEAMS, **match}, "input": inputs}
    raw["cards"] = cards if cards is not None else SIMPLE
    if end is not None:
        raw["end"] = end
    if panel:
        raw["panel"] = panel
    return parse_scenario(raw)


def run(inputs: list[dict[str, Any]], **kw: Any) -> dict[str, Any]:
    """The scenario's result, with the actions the engine refused under "refused"."""
    sc = scenario(inputs, **kw)
    match = sc.new_match()
    refused: list[dict[str, Any]] = []
    return result(match, play(match, sc.inputs, sc.end, refused), refused)


def types(out: dict[str, Any]) -> list[str]:
    return [e["type"] for e in out["events"]]


def of_type(out: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in out["events"] if e["type"] == kind]


def start(t: float = 0.0) -> dict[str, Any]:
    return {"t": t, "action": "start_turn"}


def press(control: str, t: float) -> dict[str, Any]:
    return {"t": t, "press": control}


def move(token: str, to: str | int, t: float) -> dict[str, Any]:
    return {"t": t, "move": token, "to": to}
