"""`penguin-panel matches`: the matches the service stored, and their logs as scenarios.

An exported log is an ordinary scenario file: `penguin-panel replay` plays it back and
`penguin-panel debrief` turns it into the workshop's tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import ConfigError, Problem
from ..i18n import _
from ..scenario import input_entry
from ..service.replay import entry_event


def register(sub) -> None:
    p = sub.add_parser("matches", help="list stored matches, export a match's log")
    msub = p.add_subparsers(dest="matches_command", metavar="ACTION")
    msub.required = True
    ls = msub.add_parser("list", help="one line per stored match")
    ls.add_argument("--db", metavar="PATH", help="SQLite database (default: the service's)")
    ls.set_defaults(func=list_matches)
    ex = msub.add_parser("export", help="a match's input log as a scenario TOML")
    ex.add_argument("match", type=int, metavar="ID", help="the match id (see `matches list`)")
    ex.add_argument("--db", metavar="PATH", help="SQLite database (default: the service's)")
    ex.add_argument("--out", metavar="FILE", help="write here instead of standard output")
    ex.set_defaults(func=export_match)


def _open(db: str | None):
    from ..service.run import default_db
    from ..service.store import Store

    path = Path(db) if db else default_db()
    if not path.exists():
        raise ConfigError(Problem(path, None, "no such database (has the service run? see --db)"))
    return Store(path)


def list_matches(args) -> int:
    with _open(args.db) as store:
        records = store.matches()
        if not records:
            print(_("no matches stored yet"))
        for r in records:
            teams = ", ".join([t["name"] for t in r.settings.get("teams", [])]
                              or [p.get("name") or p["colour"] for p in r.settings.get("players", [])])
            print(f"{r.id:>4}  {r.created}  {r.status:<9} {r.settings.get('mode', '?'):<11} {teams}")
    return 0


def export_match(args) -> int:
    import tomli_w

    with _open(args.db) as store:
        record = store.match(args.match)
        if record is None:
            raise ConfigError(Problem(None, "match", f"no match {args.match} in the database"))
        entries = store.entries(record.id)
    settings = {k: v for k, v in record.settings.items() if v is not None}
    doc = {"match": settings}
    if record.positions:
        doc["panel"] = dict(record.positions)
    inputs = []
    end = 0.0
    for entry in entries:
        end = max(end, entry.t)
        event = entry_event(entry)
        if event is not None:
            inputs.append(input_entry(event))
    doc["end"] = end
    doc["input"] = inputs
    text = tomli_w.dumps(doc)
    if args.out:
        Path(args.out).write_text(text)
        print(_("match {id}: {n} inputs written to {file}").format(id=record.id, n=len(inputs), file=args.out),
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0
