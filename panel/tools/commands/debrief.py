"""`penguin-panel debrief FILE`: tables for the workshop debrief, from a match's input log."""

from __future__ import annotations

import json
from pathlib import Path

from panel.games.airlines.debrief import COLUMNS, csv_text, debrief, markdown_table
from panel.core.i18n import N_, _, system
from panel.games.kaboom import debrief as kaboom_debrief
from panel.games.airlines.scenario import load_scenario, run_scenario

TITLES = {"turns": N_("Turns: points, cards and mistakes"), "card_kinds": N_("Instruction types: time and mistakes"),
          "controls": N_("Controls that caused mistakes"),
          # Penguin Kaboom's
          "players": N_("Penguins: where the time went"), "alerts": N_("Alerts: how fast each was reported flipped")}


# How a Kaboom mission ended, in words.
OUTCOMES = {"success": N_("mission accomplished"), "failed": N_("mission failed"), "abandoned": N_("mission abandoned")}
NOT_FINISHED = N_("not finished")


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
    result = run_scenario(load_scenario(args.file), None if args.json else system())
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
        print(_("Time left: {clocks} · {outcome}").format(
            clocks=", ".join(f"{_(c)} {s:.1f} s" for c, s in result["time_left"].items()),
            outcome=_(OUTCOMES.get(result["outcome"], result["outcome"] or NOT_FINISHED))))
    else:
        print(_("Scores: {scores}").format(scores=", ".join(f"{k} {v}" for k, v in result["scores"].items())))
    for name, rows in tables.items():
        print(f"\n## {_(TITLES[name])}\n")
        print(markdown_table(rows))
    return 0
