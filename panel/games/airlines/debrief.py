"""The debrief after a workshop match: where time went and which instructions caused mistakes.

Pure: it reads the game events of a match (as `GameEvent.as_dict()` dicts, the replay's
output) and returns tables; it never looks inside the engine.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

# The columns of each table, in order: a table with no rows still has its header (a CSV
# of a match without mistakes opens in a spreadsheet with the right columns).
COLUMNS = {
    "turns": ("team", "round", "tower", "cards", "mistakes", "flips", "ended_by", "points", "seconds",
              "mean_seconds_per_card"),
    "card_kinds": ("kind", "dealt", "completed", "mistakes", "mean_seconds", "mistakes_per_card"),
    "controls": ("control", "control_id", "mistakes", "card_kinds", "teams"),
}
# How a turn ended (`ended_by`): the engine's reasons, and the match's end for a turn it cut
# short (not scored, rule 25).
ENDED_BY = ("time", "five_cards", "mistakes", "ended", "abandoned")


def debrief(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Three tables: one row per turn, one per card kind, one per control that caused a mistake.

    A turn the match's end cut short is a row too (ended_by "ended" or "abandoned", no
    points), so its cards and mistakes count in every table alike. A control is named in
    plain words (`control`, from the mistake's `name`) with its id beside it (`control_id`)."""
    turns: list[dict[str, Any]] = []
    kinds: dict[str, dict[str, Any]] = defaultdict(lambda: {"dealt": 0, "completed": 0, "mistakes": 0, "seconds": []})
    controls: dict[str, dict[str, Any]] = defaultdict(lambda: {"mistakes": 0, "card_kinds": set(), "teams": set(),
                                                               "name": None})
    card_kind: dict[int, str] = {}
    drawn_at: dict[int, float] = {}
    turn: dict[str, Any] | None = None
    current: int | None = None
    for e in events:
        kind = e["type"]
        if kind == "turn_started":
            turn = {"team": e["team"], "round": e["round"], "tower": e.get("tower"), "started": e["t"],
                    "cards": 0, "mistakes": 0, "flips": 0, "seconds_per_card": []}
        elif turn is None:
            continue
        elif kind == "card_drawn":
            current = e["number"]
            card_kind[current] = e["kind"]
            drawn_at[current] = e["t"]
            kinds[e["kind"]]["dealt"] += 1
        elif kind == "card_completed":
            n = e["number"]
            k = card_kind.get(n, "?")
            secs = e["t"] - drawn_at.get(n, e["t"])
            kinds[k]["completed"] += 1
            kinds[k]["seconds"].append(secs)
            turn["cards"] += 1
            turn["seconds_per_card"].append(secs)
        elif kind == "mistake":
            k = card_kind.get(current, "?") if current is not None else "?"
            kinds[k]["mistakes"] += 1
            turn["mistakes"] += 1
            c = controls[e["control"]]
            c["name"] = e.get("name") or e["control"]
            c["mistakes"] += 1
            c["card_kinds"].add(k)
            c["teams"].add(turn["team"])
        elif kind == "counter_spent":
            turn["flips"] += 1
        elif kind == "challenge_ruled" and e.get("upheld"):
            turn["cards"] = e.get("completed", turn["cards"])
        elif kind in ("turn_ended", "game_ended"):  # game_ended with a turn open: cut short, not scored
            secs = turn.pop("seconds_per_card")
            turns.append({**turn, "ended_by": e["reason"], "points": e.get("points", 0) if kind == "turn_ended" else 0,
                          "seconds": round(e["t"] - turn["started"], 1),
                          "mean_seconds_per_card": round(sum(secs) / len(secs), 1) if secs else None})
            del turns[-1]["started"]
            turn = None
            current = None
    kind_rows = []
    for k, v in sorted(kinds.items()):
        secs = v.pop("seconds")
        kind_rows.append({"kind": k, **v, "mean_seconds": round(sum(secs) / len(secs), 1) if secs else None,
                          "mistakes_per_card": round(v["mistakes"] / v["dealt"], 2) if v["dealt"] else None})
    control_rows = [{"control": v["name"], "control_id": c, "mistakes": v["mistakes"],
                     "card_kinds": ", ".join(sorted(v["card_kinds"])), "teams": ", ".join(sorted(v["teams"]))}
                    for c, v in sorted(controls.items(), key=lambda kv: (-kv[1]["mistakes"], kv[0]))]
    return {"turns": turns, "card_kinds": kind_rows, "controls": control_rows}
