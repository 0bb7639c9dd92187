"""Match settings: the house rules that can change per match, checked with clear messages."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import ConfigError, Problem
from .cooperative import PLAYER_COUNTS

MODES = ("competitive", "cooperative")
NAME_MAX = 40  # characters of a team's or a player's name (the board shows it large)
TEAMS_MAX = 8
PLAYERS_MAX = 12  # in one team


def _name_problem(name: Any, what: str) -> str | None:
    """Why `name` (already trimmed) cannot be a team's or a player's name, or None."""
    if not isinstance(name, str) or not name:
        return f"{what} needs a name"
    if len(name) > NAME_MAX:
        return f"{what} name is {len(name)} characters long (at most {NAME_MAX})"
    if not name.isprintable():
        return f"{what} name must be text on one line"
    return None


@dataclass(frozen=True)
class Team:
    name: str
    players: tuple[str, ...] = ()

    def roles(self, round_number: int) -> tuple[str | None, tuple[str, ...]]:
        """(tower, crew) in a round: the tower passes to the next player every round."""
        if not self.players:
            return None, ()
        i = (round_number - 1) % len(self.players)
        return self.players[i], self.players[:i] + self.players[i + 1:]


@dataclass(frozen=True)
class MatchSettings:
    mode: str = "competitive"
    teams: tuple[Team, ...] = (Team("Team 1", ("Player 1", "Player 2")), Team("Team 2", ("Player 3", "Player 4")))
    turn_seconds: float = 30.0
    time_counters: int = 4
    target_points: int = 12
    settle_ms: int = 500
    seed: int = 0
    side: str = "blue"
    expansion: bool = False
    touch_sensors: bool = False
    layout: str | None = None

    @property
    def settle(self) -> float:
        return self.settle_ms / 1000.0

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for t in self.teams for p in t.players)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["teams"] = [{"name": t.name, "players": list(t.players)} for t in self.teams]
        return d

    @classmethod
    def from_dict(cls, raw: Any, *, file: str | None = None, key: str = "match") -> "MatchSettings":
        """Build settings from a scenario's [match] table or a web form; every problem at once."""
        problems: list[Problem] = []

        def bad(k: str, reason: str) -> None:
            problems.append(Problem(file, f"{key}.{k}" if key else k, reason))

        if not isinstance(raw, dict):
            raise ConfigError(Problem(file, key, "must be a table"))
        known = {f for f in cls.__dataclass_fields__}
        for k in raw:
            if k not in known:
                bad(k, f"unknown setting (expected one of: {', '.join(sorted(known))})")
        kw: dict[str, Any] = {}
        mode = raw.get("mode", "competitive")
        if mode not in MODES:
            bad("mode", f"{mode!r} is not a mode (competitive or cooperative)")
        kw["mode"] = mode
        teams = []
        raw_teams = raw.get("teams")
        if not isinstance(raw_teams, list) or not raw_teams:
            bad("teams", "needs at least one team: [{ name = \"...\", players = [\"...\", ...] }]")
            raw_teams = []
        if len(raw_teams) > TEAMS_MAX:
            bad("teams", f"{len(raw_teams)} teams: at most {TEAMS_MAX}")
            raw_teams = raw_teams[:TEAMS_MAX]
        names = set()  # trimmed and case-folded: "A", " A " and "a" are one team on the board
        for i, rt in enumerate(raw_teams):
            if not isinstance(rt, dict):
                bad(f"teams[{i}]", "must be a table with name and players")
                continue
            name = rt.get("name")
            name = name.strip() if isinstance(name, str) else name
            players = rt.get("players", [])
            why = _name_problem(name, "a team")
            if why:
                bad(f"teams[{i}].name", why)
                continue
            if name.casefold() in names:
                bad(f"teams[{i}].name", f"two teams are called {name!r}")
            names.add(name.casefold())
            if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
                bad(f"teams[{i}].players", "must be an array of player names")
                players = []
            players = [p.strip() for p in players]
            whys = [w for w in (_name_problem(p, "a player") for p in players) if w]
            if whys:
                bad(f"teams[{i}].players", whys[0])
                players = []
            elif len(players) > PLAYERS_MAX:
                bad(f"teams[{i}].players", f"{len(players)} players: at most {PLAYERS_MAX} in a team")
                players = []
            elif len({p.casefold() for p in players}) != len(players):
                bad(f"teams[{i}].players", "a player is listed twice")
            for extra in rt:
                if extra not in ("name", "players"):
                    bad(f"teams[{i}].{extra}", "unknown key (expected name, players)")
            teams.append(Team(name, tuple(players)))
        kw["teams"] = tuple(teams)
        if mode == "competitive":
            for i, t in enumerate(teams):
                if len(t.players) < 2:
                    bad(f"teams[{i}].players", f"team {t.name!r} needs at least 2 players (a tower and a crew)")
        elif mode == "cooperative" and teams:
            everyone = [p for t in teams for p in t.players]
            twice = sorted({p for p in everyone if everyone.count(p) > 1})
            if twice:
                bad("teams", f"in cooperative mode everyone is one crew: {', '.join(twice)} listed in two teams")
            n = len(set(everyone))
            if n not in PLAYER_COUNTS:
                bad("teams", f"cooperative mode is for 2 to 6 players, these teams have {n}")

        def number(k: str, default, low, high, *, whole: bool) -> None:
            v = raw.get(k, default)
            ok = isinstance(v, int) if whole else isinstance(v, (int, float))
            if not ok or isinstance(v, bool) or not (low <= v <= high):
                kind = "a whole number" if whole else "a number"
                bad(k, f"must be {kind} from {low} to {high}, not {v!r}")
                v = default
            kw[k] = v

        number("turn_seconds", 30, 5, 600, whole=False)
        number("time_counters", 4, 0, 20, whole=True)
        number("target_points", 12, 1, 1000, whole=True)
        number("settle_ms", 500, 0, 5000, whole=True)
        number("seed", 0, 0, 2**63 - 1, whole=True)
        kw["turn_seconds"] = float(kw["turn_seconds"])
        side = raw.get("side", "blue")
        if side not in ("blue", "gray"):
            bad("side", f"{side!r} is not a side (blue or gray)")
            side = "blue"
        kw["side"] = side
        for flag in ("expansion", "touch_sensors"):
            v = raw.get(flag, False)
            if not isinstance(v, bool):
                bad(flag, "must be true or false")
                v = False
            kw[flag] = v
        layout = raw.get("layout")
        if layout is not None and not isinstance(layout, str):
            bad("layout", "must be a file path")
            layout = None
        kw["layout"] = layout
        if problems:
            raise ConfigError(problems)
        return cls(**kw)
