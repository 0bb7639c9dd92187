"""Engine benchmark: per-event processing time over a long random match, and deck generation.

    .venv/bin/python -m benchmarks.engine [--events N]

The floor is the same stream of events handed to a function that only looks the control
up in the layout: the least any judge must do per event, measured in the same process.
"""

from __future__ import annotations

import argparse
import random
import time

from panel.games.airlines.deckgen import generate_deck
from panel.games.airlines.engine import Match, MatchSettings, Team
from panel.core.events import Action, InputEvent
from panel.core.layout_file import load_layout

from .stats import summary


def random_stream(layout, n: int, seed: int) -> list:
    rng = random.Random(seed)
    buttons = sorted(layout.buttons)
    tokens = sorted(layout.tokens)
    t = 0.0
    out: list = []
    while len(out) < n:
        t += rng.expovariate(4.0)  # about four inputs a second, like a busy crew
        r = rng.random()
        if r < 0.02:
            out.append(Action("start_turn", t))
        elif r < 0.03:
            out.append(Action("flip", t))
        elif r < 0.75:
            b = rng.choice(buttons)
            out += [InputEvent(b, True, t), InputEvent(b, False, t + 0.08)]
            t += 0.08
        else:
            tok = rng.choice(tokens)
            out.append(InputEvent(tok, rng.choice(layout.tokens[tok].positions), t))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--events", type=int, default=200_000)
    args = ap.parse_args()
    layout = load_layout(expansion=True)
    settings = MatchSettings(teams=(Team("A", ("a", "b")), Team("B", ("c", "d")), Team("C", ("e", "f"))),
                             expansion=True, seed=1, target_points=10**6)
    stream = random_stream(layout, args.events, seed=2)
    match = Match(settings, layout)
    clock = time.perf_counter_ns
    per_event: list[float] = []
    n_game_events = 0
    for ev in stream:
        t0 = clock()
        n_game_events += len(match.handle(ev))
        per_event.append((clock() - t0) / 1e9)
    lookups = layout.buttons, layout.tokens
    floor: list[float] = []
    for ev in stream:
        t0 = clock()
        _ = lookups[0].get(getattr(ev, "control", "")) or lookups[1].get(getattr(ev, "control", ""))
        floor.append((clock() - t0) / 1e9)
    print(f"engine: {len(stream)} inputs, {n_game_events} game events, {match.round} rounds played")
    print(summary("Match.handle per input", per_event, floor))
    gen: list[float] = []
    for seed in range(50):
        t0 = clock()
        deck = generate_deck(layout, seed=seed)
        gen.append((clock() - t0) / 1e9)
    print(summary(f"generate_deck ({len(deck.cards)} cards, expansion)", gen, unit="ms"))
    base = load_layout()
    gen = []
    for seed in range(50):
        t0 = clock()
        generate_deck(base, seed=seed)
        gen.append((clock() - t0) / 1e9)
    print(summary("generate_deck (60 cards, base)", gen, unit="ms"))


if __name__ == "__main__":
    main()
