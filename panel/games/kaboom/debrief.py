"""The debrief of a Kaboom mission: where each player's time went, and the alerts.

Pure, like the Airlines debrief: it reads the mission's game events (as `GameEvent.as_dict()`
dicts, the replay's output) and returns tables; it never looks inside the engine.
"""

from __future__ import annotations

from typing import Any

# The columns of each table, in order (a table with no rows still has its header).
COLUMNS = {
    "players": ("colour", "name", "turns", "seconds_played", "passes", "recharges", "seconds_recharged",
                "closest_to_zero", "time_left"),
    "alerts": ("number", "sounded_at", "reported_after", "face_up_after"),
}
_ENDS = ("mission_confirmed", "mission_accomplished", "mission_failed", "mission_abandoned")


def debrief(events: list[dict[str, Any]], names: dict[str, str] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Two tables: one row per player, one per alert. `names` (colour -> name) replaces
    the names the mission started with."""
    rows: dict[str, dict[str, Any]] = {}
    active: str | None = None
    since: float | None = None  # when the active clock last started running
    alerts: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []  # alerts not yet reported flipped, oldest first

    def lowest(colour: str, seconds: float) -> None:
        row = rows[colour]
        row["closest_to_zero"] = round(min(row["closest_to_zero"], seconds), 1)

    def stop(t: float) -> None:
        nonlocal since
        if active is not None and since is not None:
            rows[active]["seconds_played"] = round(rows[active]["seconds_played"] + t - since, 1)
        since = None

    for e in events:
        kind, t = e["type"], e["t"]
        if kind == "mission_started":
            for c in e["players"]:
                name = (names or {}).get(c) or e.get("names", {}).get(c)  # None: called by their colour
                rows[c] = {"colour": c, "name": name, "turns": 0, "seconds_played": 0.0, "passes": 0,
                           "recharges": 0, "seconds_recharged": 0.0, "closest_to_zero": float(e["seconds"]),
                           "time_left": float(e["seconds"])}
            active, since = e["first"], t
            rows[active]["turns"] += 1
        elif not rows:
            continue
        elif kind == "turn_passed":
            stop(t)
            rows[e["from"]]["passes"] += 1
            lowest(e["from"], e["time_left"])
            active, since = e["to"], t
            rows[active]["turns"] += 1
        elif kind == "recharge":
            r = rows[e["to"]]
            r["recharges"] += 1
            r["seconds_recharged"] = round(r["seconds_recharged"] + e["seconds"], 1)
            lowest(e["to"], e["before"])
        elif kind == "paused" and since is not None:
            stop(t)
        elif kind == "resumed":
            since = t
        elif kind == "alert":
            alert = {"number": e["number"], "sounded_at": round(t, 1), "reported_after": None, "face_up_after": None}
            alerts.append(alert)
            waiting.append(alert)
        elif kind == "alert_flipped" and waiting:
            alert = waiting.pop(0)
            alert["reported_after"] = round(t - alert["sounded_at"], 1)
            alert["face_up_after"] = e["face_up"]
        if kind in _ENDS and "time_left" in e:
            stop(t)
            for c, left in e["time_left"].items():
                rows[c]["time_left"] = round(left, 1)
                lowest(c, left)
    return {"players": list(rows.values()), "alerts": alerts}
