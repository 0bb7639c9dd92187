"""The stored matches as history: their debrief summaries, and the retention of their logs.

A match's debrief is kept as a summary (the JSON the debrief page is served), made from the
log once and made again only when the log or the status has changed since: opening the
debrief of a finished match reads one row, never the log. The retention setting removes the
logs of old matches (`penguin-panel matches prune`, and the service once a day); each
match's summary is made first and kept, so its debrief, result and tables stay.

Everything here reads and writes through a `Store` and is meant for a thread other than the
event loop's (the store's reader thread, or the prune command's own process).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, SOURCE, Several, Text, _, ngettext, system, translations
from panel.games.base import Game, record_of
from panel.games.registry import UnknownGame, game_of, named_in
from panel.service.replay import replay_events
from panel.core.errors import BadRow, StoreWriteError
from panel.service.ports import Entry, MatchLog as Store, MatchRecord, Summary

DEFAULT_KEEP_DAYS = 90  # the logs of the last 90 days are kept; every match's summary for ever
PRUNE_BATCH = 20  # matches whose logs go in one transaction: short, so the service's writer never waits long


class _Said(Exception):
    """An exception whose message (marked N_(), with its named values) is said in the
    language of whoever is told (`said`); `str()` is English, for the log and the CLI."""

    def __init__(self, message: str, **values: Any):
        self.said = Text(message, **values)
        super().__init__(str(self.said))


class NotStored(_Said, LookupError):
    """No such match (or none at all)."""


class CannotRebuild(_Said, ValueError):
    """The match's log does not replay (a log from a different engine, a damaged row)."""


REBUILD = N_("match {id} cannot be rebuilt from its log ({problem})")
UNREADABLE = N_("match {id} cannot be read from the store ({problem})")


@dataclass(frozen=True)
class Retention:
    """How long match logs are kept: `days` (None: no age limit) and `matches` (None: no
    count limit). A log goes when it is older than `days` or not among the newest
    `matches`; the match being played never goes."""

    days: int | None = DEFAULT_KEEP_DAYS
    matches: int | None = None

    # The settings file's [service] keys (and `matches prune`'s options) that set it.
    KEYS = {"keep_logs_days": "days", "keep_logs_matches": "matches"}

    @classmethod
    def from_settings(cls, service: dict[str, Any], *, file: str | None = None) -> "Retention":
        """From the settings file's [service] table: a whole number each, 0 for no limit."""
        problems = []
        values: dict[str, int | None] = {}
        for key, field in cls.KEYS.items():
            if key not in service:
                continue
            v = service[key]
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 100_000:
                problems.append(Problem(file, f"service.{key}", Text(
                    N_("must be a whole number of days from 0 (no limit) to 100000, not {value}") if field == "days"
                    else N_("must be a whole number of matches from 0 (no limit) to 100000, not {value}"),
                    value=repr(v))))
                continue
            values[field] = v or None
        if problems:
            raise ConfigError(problems)
        return cls(**values)

    def describe(self) -> str:
        """What is kept, in the system's language (the prune command says it)."""
        if self.days is not None and self.matches is not None:
            # Each count with its own plural ("1 día", "2 días"), then joined.
            days = ngettext("the last {days} day", "the last {days} days", self.days).format(days=self.days)
            matches = ngettext("the newest {matches} match", "the newest {matches} matches",
                               self.matches).format(matches=self.matches)
            return _("logs of {days} and of {matches}").format(days=days, matches=matches)
        if self.days is not None:
            return ngettext("logs of the last {days} day", "logs of the last {days} days", self.days).format(days=self.days)
        if self.matches is not None:
            return ngettext("logs of the newest {matches} match", "logs of the newest {matches} matches",
                            self.matches).format(matches=self.matches)
        return _("every log")


def summarise(record: MatchRecord, entries: list[Entry]) -> dict[str, Any]:
    """A match's debrief: its result and the three tables, from its log."""
    try:
        match, events = replay_events(record, entries)
    except ConfigError as e:
        raise CannotRebuild(REBUILD, id=record.id, problem=Several(e.problems)) from None
    except (ValueError, KeyError, TypeError) as e:
        raise CannotRebuild(REBUILD, id=record.id, problem=f"{type(e).__name__}: {e}") from None
    game = game_of(record.settings)
    return {"game": game.id, "match_id": record.id, "created": record.created, "status": record.status,
            "settings": record.settings, **game.summary(match, events)}


def record_or_latest(store: Store, match_id: int | None) -> MatchRecord:
    record = store.latest_match() if match_id is None else store.match(match_id)
    if record is None:
        if match_id is None:
            raise NotStored(N_("no match stored yet: play one first (set it up on /admin)"))
        raise NotStored(N_("match: no match {id} is stored (see /api/admin/matches)"), id=match_id)
    return record


def debrief_json(store: Store, match_id: int | None, language: str = SOURCE) -> str:
    """The debrief of a match (the latest when None) as JSON text, in `language`: its
    stored summary when the log has not changed since it was made, else made from the log
    and stored."""
    return said_in(summary_of(store, record_or_latest(store, match_id)).json, language)


def summary_of(store: Store, record: MatchRecord) -> Summary:
    """The match's stored summary when its log has not changed since it was made, else made
    from the log and stored (CannotRebuild when it cannot be)."""
    summary = store.summary(record.id)
    if summary is not None and (record.pruned or (summary.status == record.status
                                                  and summary.seq == store.last_seq(record.id))):
        return summary
    if record.pruned:
        raise CannotRebuild(N_("match {id}: its log was removed on {day} and no summary was kept"),
                            id=record.id, day=record.pruned[:10])
    return _summary(store, record)


def outcome_of(store: Store, record: MatchRecord) -> str | None:
    """How a match that is over came out, in its game's word (its summary's `outcome`: a
    mission's "success", "failed" or "abandoned"), for the debrief's list of matches; None
    while it is played, for a game whose list does not say it (`Game.lists_outcome`), or
    when its log cannot be replayed. Made once per match, then read from its summary."""
    try:
        if record.status == "active" or not game_of(record.settings).lists_outcome:
            return None
        return json.loads(summary_of(store, record).json).get("outcome")
    except (CannotRebuild, UnknownGame):
        return None


def record(store: Store, game: Game) -> dict[str, Any] | None:
    """The cockpit's record of `game` over every stored match of it (`Game.record`, None
    for a game that keeps none): each match as the debrief lists it, with how it came out
    (its summary's outcome, made once per match)."""
    keeps = record_of(game)
    if keeps is None:
        return None
    listed = [{**game.listing(r.settings), "outcome": outcome_of(store, r), "status": r.status}
              for r in store.iter_matches() if named_in(r.settings) == game.id]
    return keeps(listed)


def said_in(summary: str, language: str) -> str:
    """A summary as stored (in the engine's words: English) said in `language`: the
    controls' plain names of an Airlines debrief, made again from the match's layout. The
    rest is numbers and ids, which the pages word themselves."""
    if language == SOURCE:
        return summary
    result = json.loads(summary)
    try:
        game = game_of(result)
    except UnknownGame:
        return summary
    said = game.summary_in_language(result, translations(language))
    return summary if said is None else json.dumps(said)


def _summary(store: Store, record: MatchRecord) -> Summary:
    """The match's summary made from its log, and stored (when the store can write: else
    made again next time)."""
    if record.problem:
        raise CannotRebuild(UNREADABLE, id=record.id, problem=record.problem)
    try:
        entries = store.entries(record.id)
    except BadRow as e:
        raise CannotRebuild(UNREADABLE, id=record.id, problem=str(e)) from None
    text = json.dumps(summarise(record, entries))
    summary = Summary(record.id, entries[-1].seq if entries else 0, record.status, text)
    try:
        store.put_summary(summary)
    except StoreWriteError:
        pass  # served all the same; the store's failure is on the pages already
    return summary


@dataclass
class Pruned:
    removed: list[int]  # the matches whose log went
    kept: list[str]  # why a log that should have gone was kept (one line each)


def prune(store: Store, retention: Retention, *, now: datetime | None = None) -> Pruned:
    """Remove the logs the retention setting no longer keeps, each match's summary made (or
    brought up to date) and kept first."""
    now = now or datetime.now().astimezone()
    cutoff = now - timedelta(days=retention.days) if retention.days is not None else None
    newest_kept = None
    if retention.matches is not None:
        page = store.matches_page(limit=retention.matches)
        newest_kept = page[-1].id if len(page) == retention.matches else 0
    report = Pruned([], [])
    batch = 0
    after = 0
    while True:
        records = store.matches_after(after, with_log=True)
        if not records:
            break
        after = records[-1].id
        for record in records:
            if record.status == "active":
                continue
            old = cutoff is not None and _created(record) < cutoff
            beyond = newest_kept is not None and record.id < newest_kept
            if not (old or beyond):
                continue
            summary = store.summary(record.id)
            if summary is None or summary.status != record.status or summary.seq != store.last_seq(record.id):
                try:
                    summary = _summary(store, record)
                except CannotRebuild as e:  # kept: a log that does not replay is worth a look, not a deletion
                    report.kept.append(_("{problem}; its log is kept").format(problem=e.said.text(system())))
                    continue
            store.remove_log(record.id, summary)
            report.removed.append(record.id)
            batch += 1
            if batch >= PRUNE_BATCH:
                store.sync()  # one short transaction per batch
                batch = 0
    store.sync()
    return report


def _created(record: MatchRecord) -> datetime:
    try:
        return datetime.strptime(record.created, "%Y-%m-%dT%H:%M:%S%z")
    except ValueError:
        return datetime.max.replace(tzinfo=datetime.now().astimezone().tzinfo)  # an odd date: never "old"
