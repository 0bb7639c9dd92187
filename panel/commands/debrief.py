"""`penguin-panel debrief FILE`: tables for the workshop debrief, from a match's input log."""

from __future__ import annotations

import json
from pathlib import Path

from ..debrief import COLUMNS, csv_text, debrief, markdown_table
from ..kaboom import debrief as kaboom_debrief
from ..scenario import load_scenario, run_scenario

TITLES = {"turns": "Turns: points, cards and mistakes", "card_kinds": "Instruction types: time and mistakes",
          "controls": "Controls that caused mistakes",
          # Penguin Kaboom's
          "players": "Penguins: where the time went", "alerts": "Alerts: how fast each was reported flipped"}


def register(sub) -> None:
    p = sub.add_parser("debrief", help="tables of a match for a workshop debrief")
    p.add_argument("file", metavar="FILE", help="a match's input log or any scenario (TOML)")
    p.add_argument("--json", action="store_true", help="print the tables as JSON")
    p.add_argument("--csv", metavar="DIR", help="also write one CSV file per table into DIR (for a spreadsheet)")
    p.set_defaults(func=run)


def run(args) -> int:
    result = run_scenario(load_scenario(args.file))
    kaboom = result.get("game") == "kaboom"
    tables = kaboom_debrief.debrief(result["events"]) if kaboom else debrief(result["events"])
    if args.csv:
        out = Path(args.csv)
        out.mkdir(parents=True, exist_ok=True)
        for name, rows in tables.items():  # the same CSV as the debrief page's download
            columns = (kaboom_debrief.COLUMNS if kaboom else COLUMNS)[name]
            (out / f"{name}.csv").write_text(csv_text(rows, columns), newline="")
    if args.json:
        print(json.dumps(tables, indent=2))
        return 0
    if kaboom:
        print("Time left: " + ", ".join(f"{c} {s:.1f} s" for c, s in result["time_left"].items())
              + f" · {result['outcome'] or 'not finished'}")
    else:
        print("Scores: " + ", ".join(f"{k} {v}" for k, v in result["scores"].items()))
    for name, rows in tables.items():
        print(f"\n## {TITLES[name]}\n")
        print(markdown_table(rows))
    return 0
