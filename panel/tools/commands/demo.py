"""`penguin-panel demo`: a whole match played by a simulated crew, printed as its log."""

from __future__ import annotations

import sys

from panel.games.airlines.bot import BotCrew
from panel.games.airlines.engine import Match, MatchSettings, Phase, Team
from panel.core.i18n import _
from panel.core.layout_file import load_layout
from panel.games.scenario_inputs import input_entry


def register(sub) -> None:
    p = sub.add_parser("demo", help=_("play a demo match with a simulated crew and print its log"))
    p.add_argument("--seed", metavar=_("SEED"), type=int, default=1, help=_("deck and crew seed"))
    p.add_argument("--mode", choices=("competitive", "cooperative"), default="competitive",
                   help=_("teams against each other, or one crew together (default: competitive)"))
    p.add_argument("--expansion", action="store_true", help=_("include the 3 expansion modules"))
    p.add_argument("--scenario-out", metavar=_("FILE"),
                   help=_("also write the match's input log as a replayable scenario"))
    p.set_defaults(func=demo)


def demo(args) -> int:
    if args.mode == "competitive":
        teams = (Team("Ice Floe", ("Pingu", "Pinga")), Team("Snow Drift", ("Robby", "Tux")))
    else:
        teams = (Team("Penguins", ("Pingu", "Pinga", "Tux")),)
    settings = MatchSettings(mode=args.mode, teams=teams, seed=args.seed, expansion=args.expansion, target_points=12)
    layout = load_layout(expansion=args.expansion)
    match = Match(settings, layout)
    crew = BotCrew(match, seed=args.seed, accuracy=0.9, pace=2.6)
    t = 0.0
    log = []
    n_events = 0
    print(_("Demo match: {mode}, {teams}, seed {seed}").format(mode=args.mode, teams=", ".join(team.name for team in teams),
                                                               seed=args.seed))
    while not match.finished and match.round < 50:
        inputs, t = crew.play_turn(t + 5.0)
        log += inputs
        t = max(t, match.now)
        # run out the clock of a turn that ended on time
        if match.phase is Phase.IN_TURN:
            match.advance(match.next_deadline() or t)
            t = match.now
    # Replay the log into a fresh match: the printed result is the replayed one,
    # which shows the log alone decides the match.
    replayed = Match(settings, layout)
    for ev in log:
        for e in replayed.handle(ev):
            n_events += 1
            d = e.as_dict()
            details = ", ".join(f"{k}={v}" for k, v in d.items() if k not in ("t", "type", "card", "outcome"))
            print(f"{e.t:8.2f}s  {e.type:<16} {details}")
    for e in replayed.advance(t):
        print(f"{e.t:8.2f}s  {e.type:<16} {e.details}")
    print(_("scores: {scores}").format(scores=", ".join(f"{k} {v}" for k, v in replayed.scores.items())))
    if replayed.winner:
        print(_("winner: {teams}").format(teams=_(" and ").join(replayed.winner)))
    if replayed.tier:
        print(_("landing: {tier}: {outcome}").format(tier=_(replayed.tier), outcome=_(replayed.outcome)))
    if args.scenario_out:
        import tomli_w

        doc = {"match": {k: v for k, v in settings.as_dict().items() if v is not None}, "end": t,
               "input": [input_entry(e) for e in log]}
        with open(args.scenario_out, "wb") as f:
            tomli_w.dump(doc, f)
        print(_("input log written to {file} (penguin-panel replay {file})").format(file=args.scenario_out),
              file=sys.stderr)
    return 0
