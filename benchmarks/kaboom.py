"""Kaboom engine benchmark: per-input processing time over long random missions, and the
snapshot the service pushes to the pages four times a second.

    .venv/bin/python -m benchmarks.kaboom [--inputs N]

The floor is the same stream handed to a function that only looks the control up in the
panel's [kaboom] mapping: the least any engine must do per input, measured in the same
process.
"""

from __future__ import annotations

import argparse
import random
import time

from panel.games.kaboom.engine import KaboomMatch, Phase
from panel.games.kaboom.settings import COLOURS, KaboomSettings, MissionRules, Player
from panel.core.events import Action, InputEvent
from panel.games.kaboom.build import panel_for

from .stats import summary

RULES = MissionRules(time_per_player=120, alert_seconds=30, recharge_seconds=25, recharge_above_start=False,
                     alerts=7, alerts_face_up=2)


def random_stream(mapping, n: int, seed: int) -> list:
    """About four inputs a second: mostly passes and presses of the colour buttons, some
    recharges and alert reports, the protection and the mission button now and then."""
    rng = random.Random(seed)
    colours = [mapping.players[c] for c in COLOURS]
    others = [mapping.recharge, mapping.alert_flipped, mapping.alert_deactivated]
    t = 0.0
    out: list = [Action("start", t)]
    while len(out) < n:
        t += rng.expovariate(4.0)
        r = rng.random()
        if r < 0.7:
            b = rng.choice(colours)
        elif r < 0.95:
            b = rng.choice(others)
        elif r < 0.98:
            out.append(InputEvent(mapping.cover, rng.choice(mapping.cover_positions), t))
            continue
        else:
            b = mapping.mission
        out += [InputEvent(b, True, t), InputEvent(b, False, t + 0.08)]
        t += 0.08
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--inputs", type=int, default=200_000)
    args = ap.parse_args()
    layout, mapping = panel_for(None)
    stream = random_stream(mapping, args.inputs, seed=2)
    clock = time.perf_counter_ns
    per_input: list[float] = []
    snapshots: list[float] = []
    missions = 0
    match = None
    for i, ev in enumerate(stream):
        if match is None or match.finished or match.phase is Phase.CLOSING:  # a new mission when one ends
            missions += 1
            match = KaboomMatch(KaboomSettings(tuple(Player(c) for c in COLOURS), RULES, seed=missions), mapping,
                                layout=layout)
            match.handle(Action("start", ev.t))
        t0 = clock()
        match.handle(ev)
        per_input.append((clock() - t0) / 1e9)
        if i % 4 == 0:
            t0 = clock()
            match.snapshot(ev.t + 0.1)
            snapshots.append((clock() - t0) / 1e9)
    floor: list[float] = []
    for ev in stream:
        t0 = clock()
        _ = mapping.role(getattr(ev, "control", ""))
        floor.append((clock() - t0) / 1e9)
    print(f"kaboom: {len(stream)} inputs over {missions} missions of 6 penguins")
    print(summary("KaboomMatch.handle per input", per_input, floor))
    print(summary("KaboomMatch.snapshot", snapshots, floor))


if __name__ == "__main__":
    main()
