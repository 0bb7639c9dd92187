"""`penguin-panel replay FILE`: run a scenario (or an exported match log) through the engine."""

from __future__ import annotations

import json

from panel.core.i18n import _, system
from panel.games.airlines.scenario import load_scenario, run_scenario


def register(sub) -> None:
    p = sub.add_parser("replay", help=_("run a scenario file through the rules engine"),
                       description=_("Run a scenario through the rules engine. An action the engine refuses at its "
                                   "moment (a team challenging its own turn, a flip with no counter) does nothing "
                                   "and is listed with the engine's reason: a 'refused' line, or the 'refused' "
                                   "list of the JSON output."))
    p.add_argument("file", metavar=_("FILE"), help=_("scenario TOML ([match], [[cards]], [[input]])"))
    p.add_argument("--json", action="store_true", help=_("print the result as JSON"))
    p.set_defaults(func=replay)


def replay(args) -> int:
    scenario = load_scenario(args.file)
    if args.json:  # for scripts: English, whatever the locale
        print(json.dumps(run_scenario(scenario), indent=2))
        return 0
    out = run_scenario(scenario, system())
    if out.get("game") == "kaboom":
        from panel.games.kaboom.scenario import print_log as print_kaboom_log

        print_kaboom_log(out)
    else:
        print_log(out)
    return 0


def print_log(out: dict) -> None:
    """The result as a log a person reads, in the system locale's language (run_scenario
    with its translations); an action the engine refused is a `refused` line at its moment,
    with the engine's reason. Event types and their fields are the scripting contract's
    names, as in the JSON output."""
    lines = []
    for e in out["events"]:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("t", "type", "card", "outcome"))
        lines.append((e["t"], f"{e['t']:8.2f}s  {e['type']:<16} {details}"))
    refused = _("refused")
    for r in out.get("refused", []):
        asked = ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("t", "action", "reason"))
        lines.append((r["t"], f"{r['t']:8.2f}s  {refused:<16} {r['action']}{f' ({asked})' if asked else ''}: "
                              f"{r['reason']}"))
    for _t, line in sorted(lines, key=lambda tl: tl[0]):  # stable: a refusal after that moment's events
        print(line)
    print(_("scores: {scores}").format(scores=", ".join(f"{k} {v}" for k, v in out["scores"].items())))
    if out["finished"]:
        if out["winner"]:
            print(_("winner: {teams}").format(teams=_(" and ").join(out["winner"])))
        if out["tier"]:
            print(_("landing: {tier}: {outcome}").format(tier=_(out["tier"]), outcome=_(out["outcome"])))
    else:
        print(_("match not finished (round {round})").format(round=out["round"]))
