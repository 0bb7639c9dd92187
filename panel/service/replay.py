"""Rebuild a match from the store: the settings, the token positions at set-up, the log.

The engines are deterministic, so feeding the logged entries in order to a fresh `Match`
(or `KaboomMatch`, for a stored Penguin Kaboom mission) gives the match the service had
when it last wrote the log. The service uses this at
start-up (after a crash or a power cut) and the crash tests use it as the reference.
"""

from __future__ import annotations

from functools import lru_cache

from panel.games.airlines.engine import Match, MatchSettings
from panel.games.kaboom.engine import KaboomMatch
from panel.core.events import Action, GameEvent, InputEvent
from panel.games.kaboom.build import kaboom_match
from panel.core.layout import Layout
from panel.core.layout_file import load_layout
from panel.storage.store import Entry, MatchRecord


@lru_cache(maxsize=8)
def layout_for(path: str | None, side: str, expansion: bool) -> Layout:
    return load_layout(path, side=side, expansion=expansion)


def new_match(record: MatchRecord) -> Match | KaboomMatch:
    if record.settings.get("mode") == "kaboom":
        return kaboom_match(record.settings, record.positions)
    settings = MatchSettings.from_dict(record.settings, key="")
    layout = layout_for(settings.layout, settings.side, settings.expansion)
    return Match(settings, layout, positions=record.positions)


def entry_event(entry: Entry) -> InputEvent | Action | None:
    """The engine input a log entry stands for (None for a clock advance)."""
    if entry.kind == "input":
        return InputEvent(entry.data["control"], entry.data["value"], entry.t)
    if entry.kind == "action":
        return Action(entry.data["name"], entry.t, dict(entry.data.get("params", {})))
    return None


def apply(match: Match | KaboomMatch, entry: Entry) -> list[GameEvent]:
    event = entry_event(entry)
    return match.advance(entry.t) if event is None else match.handle(event)


def replay(record: MatchRecord, entries: list[Entry]) -> tuple[Match | KaboomMatch, float]:
    """The match after every entry, and the match time of the last one (0 when none)."""
    match = new_match(record)
    last = 0.0
    for entry in entries:
        apply(match, entry)
        last = max(last, entry.t)
    return match, last


def replay_events(record: MatchRecord, entries: list[Entry]) -> tuple[Match | KaboomMatch, list[GameEvent]]:
    """The match after every entry, and every game event it made on the way (the debrief
    reads them). Same feeding as `replay`: the log decides, so the events are the ones the
    service published while the match was played."""
    match = new_match(record)
    events: list[GameEvent] = []
    for entry in entries:
        events.extend(apply(match, entry))
    return match, events
