"""The one way inputs reach an engine: for a scenario, a replayed log, the bot and the
service's restore alike, so that each gets the same match from the same inputs.

An action the engine refuses at its moment changes nothing; a press or move it refuses
(one that asks for an action, as a Kaboom player's colour does) is still a fact the engine
takes (where a token stands, who holds a button). Refusals are reported, never raised.
"""

from __future__ import annotations

from typing import Any

from panel.core.events import Action, GameEvent, InputEvent
from panel.games.base import Engine


def play(engine: Engine, inputs: list[InputEvent | Action], end: float | None = None,
         refused: list[dict[str, Any]] | None = None, tr: Any = None) -> list[GameEvent]:
    """Feed the inputs in order, each at its moment (the clocks first run to it), then run
    to `end`; the game events. Each refusal goes into `refused` (when given), its reason in
    the language of `tr` (English without it: the JSON output)."""
    events: list[GameEvent] = []
    for event in inputs:
        events += engine.advance(event.t)  # asked at its moment: a timer may have run out
        asked = event if isinstance(event, Action) else engine.asks(event)
        why = engine.refusal(asked) if asked is not None else None
        if why is not None:
            if refused is not None:
                pressed = {"control": event.control} if isinstance(event, InputEvent) else {}
                refused.append({"t": event.t, "action": asked.name, **asked.params, **pressed, "reason": why.text(tr)})
            if isinstance(event, Action):
                continue
        events += engine.handle(event)
    if end is not None:
        events += engine.advance(end)
    return events


def entry_event(kind: str, t: float, data: dict[str, Any]) -> InputEvent | Action | None:
    """The engine input a log entry stands for (None for a clock advance)."""
    if kind == "input":
        return InputEvent(data["control"], data["value"], t)
    if kind == "action":
        return Action(data["name"], t, dict(data.get("params", {})))
    return None


def entry_of(event: InputEvent | Action) -> tuple[str, dict[str, Any]]:
    """The log entry's kind and data an engine input is kept as (`entry_event` reads it
    back as the same input: the service judges the input it logged with the engine's own
    `handle`, as `apply` does with the entry)."""
    if type(event) is InputEvent:
        return "input", {"control": event.control, "value": event.value}
    return "action", {"name": event.name, "params": event.params}


def apply(engine: Engine, kind: str, t: float, data: dict[str, Any]) -> list[GameEvent]:
    """One logged entry (already judged when it was logged: the log is the truth)."""
    event = entry_event(kind, t, data)
    return engine.advance(t) if event is None else engine.handle(event)
