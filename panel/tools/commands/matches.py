"""`penguin-panel matches`: the matches the service stored, their logs as scenarios, and the
retention of the logs.

An exported log is an ordinary scenario file: `penguin-panel replay` plays it back and
`penguin-panel debrief` turns it into the workshop's tables. `prune` removes the logs the
retention setting no longer keeps (each match's debrief summary is kept); the service runs
it once a day by itself.
"""

from __future__ import annotations

import sys
from pathlib import Path

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, _, ngettext
from panel.games.scenario_inputs import input_entry
from panel.games.feed import entry_event


def register(sub) -> None:
    p = sub.add_parser("matches", help=_("list stored matches, export a match's log, prune old logs"))
    msub = p.add_subparsers(dest="matches_command", metavar=_("ACTION"))
    msub.required = True
    ls = msub.add_parser("list", help=_("one line per stored match, newest first"))
    ls.add_argument("--db", metavar=_("PATH"), help=_("SQLite database (default: the service's)"))
    ls.add_argument("--limit", type=int, metavar="N", help=_("only the newest N matches"))
    ls.set_defaults(func=list_matches)
    ex = msub.add_parser("export", help=_("a match's input log as a scenario TOML"))
    ex.add_argument("match", type=int, metavar="ID", help=_("the match id (see `matches list`)"))
    ex.add_argument("--db", metavar=_("PATH"), help=_("SQLite database (default: the service's)"))
    ex.add_argument("--out", metavar=_("FILE"), help=_("write here instead of standard output"))
    ex.set_defaults(func=export_match)
    pr = msub.add_parser("prune", help=_("remove the logs the retention setting no longer keeps (debriefs stay)"))
    pr.add_argument("--db", metavar=_("PATH"),
                    help=_("SQLite database (default: the settings file's, else the service's)"))
    pr.add_argument("--settings", metavar=_("FILE"), help=_("the service's settings file (its keep_logs_days and "
                                                       "keep_logs_matches)"))
    pr.add_argument("--keep-days", type=int, metavar="N", help=_("keep the logs of the last N days (0: no age limit)"))
    pr.add_argument("--keep-matches", type=int, metavar="N", help=_("keep the logs of the newest N matches "
                                                                  "(0: no count limit)"))
    pr.set_defaults(func=prune_logs)


def _open(db: str | None):
    from panel.run import default_db
    from panel.storage.store import Store

    path = Path(db) if db else default_db()
    if not path.exists():
        raise ConfigError(Problem(path, None, Text(N_("no such database (has the service run? see --db)"))))
    return Store(path)


def list_matches(args) -> int:
    from itertools import islice

    from panel.service.history import outcome_of

    with _open(args.db) as store:
        shown = 0
        for r in islice(store.iter_matches(), args.limit):
            teams = ", ".join(str(t) for t in _sides(r.settings))
            removed = _("  (log removed, debrief kept)") if r.pruned else ""
            # A mission over says how it came out ("failed"), as the debrief's list does: "finished" says nothing.
            status = outcome_of(store, r) or r.status
            print(f"{r.id:>4}  {r.created}  {status:<9} {r.settings.get('mode', '?'):<11} {teams}{removed}")
            shown += 1
        if not shown:
            print(_("no matches stored yet"))
    return 0


def _sides(settings: dict) -> list:
    """A stored match's teams or players, as its game lists them (`Game.listing`)."""
    from panel.games.registry import UnknownGame, game_of

    try:
        return [t for t in game_of(settings).listing(settings)["teams"] if t]
    except UnknownGame:  # a match of a game this cockpit no longer has
        return []


def export_match(args) -> int:
    import tomli_w

    with _open(args.db) as store:
        record = store.match(args.match)
        if record is None:
            raise ConfigError(Problem(None, "match", Text(N_("no match {id} in the database"), id=args.match)))
        if record.pruned:
            raise ConfigError(Problem(None, "match", Text(N_("match {id}'s log was removed on {day} by the retention "
                                                             "setting (its debrief is kept)"), id=args.match,
                                                          day=record.pruned[:10])))
        entries = store.entries(record.id)
    settings = {k: v for k, v in record.settings.items() if v is not None}
    doc = {"match": settings}
    if record.positions:
        doc["panel"] = dict(record.positions)
    inputs = []
    end = 0.0
    for entry in entries:
        end = max(end, entry.t)
        event = entry_event(entry.kind, entry.t, entry.data)
        if event is not None:
            inputs.append(input_entry(event))
    doc["end"] = end
    doc["input"] = inputs
    text = tomli_w.dumps(doc)
    if args.out:
        Path(args.out).write_text(text)
        print(ngettext("match {id}: {n} input written to {file}", "match {id}: {n} inputs written to {file}",
                       len(inputs)).format(id=record.id, n=len(inputs), file=args.out), file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


def prune_logs(args) -> int:
    from dataclasses import replace

    from panel.service.history import Retention, prune
    from panel.run import read_settings

    service = read_settings(args.settings).get("service", {})
    retention = Retention.from_settings(service, file=args.settings)
    for flag, field, value in (("--keep-days", "days", args.keep_days), ("--keep-matches", "matches", args.keep_matches)):
        if value is None:
            continue
        if value < 0:
            raise ConfigError(Problem(None, flag, Text(N_("must be 0 (no limit) or more, not {value}"), value=value)))
        retention = replace(retention, **{field: value or None})
    with _open(args.db or service.get("db")) as store:
        report = prune(store, retention)
    for line in report.kept:
        print(f"penguin-panel: {line}", file=sys.stderr)
    n = len(report.removed)
    print(ngettext("removed the log of {n} match (its debrief is kept); keeping {kept}",
                   "removed the logs of {n} matches (their debriefs are kept); keeping {kept}", n).format(
        n=n, kept=retention.describe()))
    return 0
