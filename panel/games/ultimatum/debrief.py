"""The debrief of a Penguin Ultimatum game: the whole score sheet, entry by entry with the
scores after each, and the end's standings (each player's breakdown, in the winner's order).

Pure, like the other games' debriefs: it reads the game's events (`GameEvent.as_dict()`
dicts, the replay's output) and returns tables. An undo or a correction sends the whole
sheet again (its event's `entries`), so the tables are always the sheet as it stands."""

from __future__ import annotations

from typing import Any


COLUMNS = {
    "entries": ("entry", "kind", "player", "form", "entertainer", "points", "card_to", "scores"),
    "standings": ("place", "player", "name", "form", "points_before_end", "form_points", "majority_points",
                  "entertainer_cards", "total", "winner"),
}
# each event that is an entry of the sheet, and its kind there (the engine's rows)
_ENTRY_EVENTS = {"player_added": "add_player", "performance": "performance", "penalty_paid": "penalty",
                 "entertainer_given_up": "penalty"}


def rows_from_events(events: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The sheet's rows as the events tell them, and the names the players sat down with."""
    rows: list[dict[str, Any]] = []
    for e in events:
        kind = e["type"]
        if "entries" in e:  # the whole sheet again: an undo, a correction, the end
            rows = [dict(r) for r in e["entries"]]
        elif kind in _ENTRY_EVENTS:
            rows.append({"kind": _ENTRY_EVENTS[kind], **{k: v for k, v in e.items() if k not in ("t", "type")}})
        elif kind == "entertainer_awarded" and rows:
            rows[-1]["to"] = e["to"]
        elif kind == "entertainer_out" and rows:
            rows[-1].update(to=None, why=e["why"])
    names = {r["player"]: r.get("name") for r in rows if r["kind"] == "add_player"}
    return rows, names


def _scores_text(scores: dict[str, int] | None) -> str | None:
    return " · ".join(f"{p} {n}" for p, n in scores.items()) if scores else None


def entry_row(r: dict[str, Any]) -> dict[str, Any]:
    """One entry as a table row (text cells for the tables each entry holds: a spreadsheet's)."""
    kind = r["kind"]
    points = r.get("points")
    to = r.get("to", "out" if kind == "performance" else None) if kind == "performance" else None
    return {"entry": r.get("entry"), "kind": kind, "player": r.get("player") or r.get("winner"),
            "form": r.get("form"), "entertainer": r.get("card"),
            "points": _scores_text(points) if isinstance(points, dict) else points,
            "card_to": (to or f"out ({r.get('why')})") if kind == "performance" else
            ("out (given up)" if kind == "penalty" and r.get("card") else None),
            "scores": _scores_text(r.get("scores"))}


def standings(final: dict[str, dict[str, Any]], names: dict[str, Any], won: str | None) -> list[dict[str, Any]]:
    """The end's scoring, one row per player: the winner first, then by the rulebook's order."""
    order = sorted(final, key=lambda p: (p != won, -final[p]["total"], -final[p]["entertainer_points"],
                                         -final[p]["cards"]))
    return [{"place": i + 1, "player": p, "name": names.get(p), "form": final[p]["form"],
             "points_before_end": final[p]["base"], "form_points": final[p]["form_points"],
             "majority_points": final[p]["entertainer_points"] - final[p]["form_points"],
             "entertainer_cards": final[p]["cards"], "total": final[p]["total"], "winner": p == won}
            for i, p in enumerate(order)]


def debrief(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    rows, names = rows_from_events(events)
    end = next((r for r in reversed(rows) if r["kind"] in ("end", "shorter")), None)
    table = standings(end["final"], names, end.get("winner")) if end else []
    return {"entries": [entry_row(r) for r in rows], "standings": table}


