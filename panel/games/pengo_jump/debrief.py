"""A Pengo Jump game's debrief from its events: each turn (who drew what, what happened)
and each player's share; and the café's record over many games (games, won, by mode, by
number of players)."""

from __future__ import annotations

from typing import Any, Iterable

from panel.core.i18n import N_

COLUMNS = {
    "draws": ("turn", "player", "drew", "left", "home", "fell", "hopped", "tokens_collected"),
    "jumpers": ("player", "name", "turns", "snowy", "sea_lion", "frosty", "home", "fell"),
}
# (named apart from the other games' tables: the debrief page finds each by its name)
TITLES = {"draws": N_("Turns: what each drew and what happened"), "jumpers": N_("Players: draws and penguins home")}


def debrief(events: list[dict[str, Any]], names: Iterable[str] = ()) -> dict[str, list[dict[str, Any]]]:
    """The tables, from the game's events (as dicts) and the players' names in their order."""
    names = list(names)
    turns: list[dict[str, Any]] = []
    players = [{"player": i + 1, "name": n, "turns": 0, "snowy": 0, "sea_lion": 0, "frosty": 0, "home": 0, "fell": 0}
               for i, n in enumerate(names)]
    for e in events:
        kind = e["type"]
        if kind == "chunk_drawn":
            turns.append({"turn": len(turns) + 1, "player": e["by"] + 1, "drew": e["kind"], "left": e["left"],
                          "home": 0, "fell": 0, "hopped": None, "tokens_collected": 0})
            if e["by"] < len(players):
                players[e["by"]]["turns"] += 1
                players[e["by"]][e["kind"]] += 1
        elif not turns:
            continue
        elif kind == "penguin_home":
            turns[-1]["home"] += 1
            if e["by"] < len(players):
                players[e["by"]]["home"] += 1
        elif kind == "penguin_fell":
            turns[-1]["fell"] += 1
            if e["by"] < len(players):
                players[e["by"]]["fell"] += 1
        elif kind == "sea_lion_token":
            turns[-1]["hopped"] = e["size"]
        elif kind == "tokens_collected":
            turns[-1]["tokens_collected"] += e["count"]
    return {"draws": turns, "jumpers": players}


def record(games: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The café's record from its stored games (each: `mode`, `players` (how many) and
    `outcome`): how many were finished and won, in all, by mode and by number of players.
    A game still played or abandoned is not counted (Pengo Jump rule 13)."""
    out: dict[str, Any] = {"games": 0, "won": 0, "by_mode": {}, "by_players": {}}
    for g in games:
        if g.get("outcome") not in ("won", "lost"):
            continue
        won = int(g["outcome"] == "won")
        out["games"] += 1
        out["won"] += won
        for key, value in (("by_mode", g.get("mode")), ("by_players", str(g.get("players")))):
            row = out[key].setdefault(value, {"games": 0, "won": 0})
            row["games"] += 1
            row["won"] += won
    out["by_players"] = dict(sorted(out["by_players"].items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else 99))
    return out
