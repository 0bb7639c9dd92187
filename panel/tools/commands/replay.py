"""`penguin-panel replay FILE`: run a scenario (or an exported match log) through the engine."""

from __future__ import annotations

import json

from panel.core.i18n import _, system
from panel.games.scenarios import load_scenario, run_scenario


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
    scenario.game.print_log(run_scenario(scenario, system()))
    return 0
