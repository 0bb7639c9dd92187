"""`penguin-panel debrief FILE`: tables for the workshop debrief, from a match's input log."""

from __future__ import annotations

import json
from pathlib import Path

from panel.games.tables import csv_text, markdown_table
from panel.core.i18n import _, system
from panel.games.scenarios import load_scenario, run_scenario


def register(sub) -> None:
    p = sub.add_parser("debrief", help=_("tables of a match for a workshop debrief"))
    p.add_argument("file", metavar=_("FILE"), help=_("a match's input log or any scenario (TOML)"))
    p.add_argument("--json", action="store_true", help=_("print the tables as JSON"))
    p.add_argument("--csv", metavar=_("DIR"),
                   help=_("also write one CSV file per table into %(metavar)s (for a spreadsheet)"))
    p.set_defaults(func=run)


def run(args) -> int:
    # The controls' plain names in the system locale's language (for a spreadsheet too); the
    # JSON, for scripts, in English.
    scenario = load_scenario(args.file)
    game = scenario.game
    result = run_scenario(scenario, None if args.json else system())
    tables = game.tables(result["events"])
    if args.csv:
        out = Path(args.csv)
        out.mkdir(parents=True, exist_ok=True)
        for name, rows in tables.items():  # the same CSV as the debrief page's download
            (out / f"{name}.csv").write_text(csv_text(rows, game.columns[name]), newline="")
    if args.json:
        print(json.dumps(tables, indent=2))
        return 0
    print(game.headline(result))
    for name, rows in tables.items():
        print(f"\n## {_(game.table_titles[name])}\n")
        print(markdown_table(rows))
    return 0
