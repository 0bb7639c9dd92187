"""The match on the cockpit after a restart, replayed from the store's log.

Match time continues from the last logged entry; a turn that was running comes back
paused (reason "restart"), with the pause logged so that a replay of the log agrees with
the service. A match whose rows cannot be read or replayed is set aside with the reason
(its rows stay for a look) and the cockpit starts with no match: a bad row must not keep
the café's cockpit down in a restart loop.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from panel.core.errors import ConfigError, Refused, StoreError
from panel.core.events import Action
from panel.core.i18n import N_, Text, Word
from panel.core.statuses import STATUS_WHEN_OVER
from panel.games.base import Engine
from panel.games.registry import game_of
from panel.service.ports import MatchLog, MatchRecord
from panel.service.replay import replay

if TYPE_CHECKING:
    from panel.service.cockpit import Cockpit

log = logging.getLogger("penguin-panel")


@dataclass(frozen=True)
class Restored:
    record: MatchRecord
    match: Engine
    last: float  # the match time of the last logged entry
    entries: int  # how many were replayed


def latest(store: MatchLog, warnings: list[Any]) -> Restored | None:
    """The store's latest match replayed from its log, or None (no match, or one set aside:
    then a line for the game master is added to `warnings`)."""
    record = store.latest_match()
    if record is None:
        return None
    if record.status == "set_aside":
        reason = store.set_aside_reason(record.id) or N_("reason not kept")
        warnings.append(Text(N_("match {id} was set aside at an earlier start ({reason}); set up a new match"),
                             id=record.id, reason=Word(reason)))
        return None
    problem, entries = record.problem, []
    if problem is None:
        try:
            entries = store.entries(record.id)
            match, last = replay(record, entries)
        except ConfigError as e:
            problem = "its settings are refused: " + "; ".join(str(p) for p in e.problems)
        except StoreError as e:
            problem = str(e)
        except Exception as e:  # whatever a garbled row makes the engine say: one line, no restart loop
            problem = f"its log cannot be replayed ({type(e).__name__}: {str(e)[:160]})"
    if problem is not None:
        warnings.append(set_aside(store, record, problem))
        return None
    return Restored(record, match, last, len(entries))


def set_aside(store: MatchLog, record: MatchRecord, problem: str) -> Text:
    """`record` marked as set aside with `problem`; the line that says so (also logged)."""
    message = Text(N_("match {id} could not be restored ({problem}): it is set aside and the cockpit started "
                      "with no match"), id=record.id, problem=problem)
    try:
        store.set_aside(record.id, problem)
    except StoreError as e:
        message = Text(N_("match {id} could not be restored ({problem}): it is set aside and the cockpit started "
                          "with no match (it could not be marked as set aside either: {error})"),
                       id=record.id, problem=problem, error=Word(str(e)))
    log.warning("%s", message)
    return message


def restore(owner: "Cockpit") -> None:
    """The latest match back on `owner`, its status made to agree with its log, a running
    turn paused."""
    found = latest(owner.store, owner.warnings)
    if found is None:
        return
    record, match, last = found.record, found.match, found.last
    owner.record = record
    owner.begin(match, at=last)
    owner.positions.update(match.positions)
    if record.status == "active" and match.finished:
        # Killed between the last input and the status update: the log says how it ended.
        owner.set_status(STATUS_WHEN_OVER[match.ended_by])
    elif record.status != "active" and not match.finished:
        # Ended or abandoned before the engine was told (an older log): tell it now, so
        # the pages see a match that is over. Not logged: the record is closed.
        over = "end" if record.status != "abandoned" and "end" in game_of(record.settings).actions else "abandon"
        match.handle(Action(over, last))
    if owner.record.status == "active" and match.clock_running:
        try:
            owner.log_and_handle(Action("pause", last, {"reason": "restart"}))
        except Refused:  # the store cannot write: said on the pages; the turn goes on unlogged
            pass
    log.info("match %s restored from %d logged inputs at %.1f s, %s", record.id, found.entries, last,
             match.phase.value)
