"""Rebuild a match from the store: the settings, the token positions at set-up, the log.

The engines are deterministic, so feeding the logged entries in order to a fresh engine of
the match's game (panel/games/registry.py) gives the match the service had when it last
wrote the log. The service uses this at start-up (after a crash or a power cut) and the
crash tests use it as the reference.
"""

from __future__ import annotations

from panel.core.events import GameEvent
from panel.games.base import Engine
from panel.games.feed import apply as apply_entry
from panel.games.registry import game_of, own_settings
from panel.service.ports import Entry, MatchRecord


def new_match(record: MatchRecord) -> Engine:
    """The match a record was set up as, before any of its log."""
    return game_of(record.settings).from_stored(own_settings(record.settings), record.positions)


def apply(match: Engine, entry: Entry) -> list[GameEvent]:
    return apply_entry(match, entry.kind, entry.t, entry.data)


def replay(record: MatchRecord, entries: list[Entry]) -> tuple[Engine, float]:
    """The match after every entry, and the match time of the last one (0 when none)."""
    match = new_match(record)
    last = 0.0
    for entry in entries:
        apply(match, entry)
        last = max(last, entry.t)
    return match, last


def replay_events(record: MatchRecord, entries: list[Entry]) -> tuple[Engine, list[GameEvent]]:
    """The match after every entry, and every game event it made on the way (the debrief
    reads them). Same feeding as `replay`: the log decides, so the events are the ones the
    service published while the match was played."""
    match = new_match(record)
    events: list[GameEvent] = []
    for entry in entries:
        events.extend(apply(match, entry))
    return match, events
