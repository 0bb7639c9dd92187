"""A year of venue results for benchmarks/venue.py: plain data, no import of the panel, so a
venue of another checkout (--year-code) can be filled with the same results."""

from __future__ import annotations

import random

YEAR_COCKPITS = ("c001", "c002", "c003", "c004", "c005")
NAMED = [f"{animal} {n}" for animal in ("Gulls", "Puffins", "Terns", "Otters", "Seals") for n in range(400)]


def year_results(n: int, now: float, *, days: float = 365.0, seed: int = 7):
    """`n` results of five cockpits spread over the last `days` days, oldest first: a third
    walk-up matches (the default names), the rest named teams, every tenth cooperative."""
    rng = random.Random(seed)
    step = days * 86400 / n
    for i in range(n):
        cockpit = YEAR_COCKPITS[i % len(YEAR_COCKPITS)]
        at = now - days * 86400 + i * step
        if i % 10 == 9:
            pts = rng.randrange(5, 30)
            teams, scores, winner, tier, mode = ["Crew"], {"Crew": pts}, None, "Rookie", "cooperative"
            turns = [_bench_turn("Crew", rng) for _ in range(4)]
        else:
            teams = ["Blue team", "Red team"] if i % 3 == 0 else rng.sample(NAMED, 2)
            turns = [_bench_turn(team, rng) for _ in range(2) for team in teams]
            scores = {team: sum(t["points"] for t in turns if t["team"] == team) for team in teams}
            best = max(scores.values())
            winner, tier, mode = [team for team, p in scores.items() if p == best], None, "competitive"
        yield {"v": 1, "cockpit": cockpit, "name": f"Cockpit {cockpit}", "finished_at": at, "mode": mode,
               "match": {"id": i // len(YEAR_COCKPITS) + 1, "created": "2026-01-01T10:00:00+0000", "status": "finished"},
               "teams": teams, "players": 0, "scores": scores, "winner": winner, "tier": tier, "turns": turns}, at


def _bench_turn(team: str, rng: random.Random) -> dict:
    cards = rng.randrange(0, 6)
    counters = rng.randrange(0, 5) if cards == 5 else 0
    return {"team": team, "round": 1, "points": cards + counters, "cards": cards, "counters": counters,
            "mistakes": 0, "ended_by": "five_cards" if cards == 5 else "time", "seconds": round(rng.uniform(12, 30), 1)}


