"""Penguin Kaboom's settings: who plays which colour, the difficulty, the mission, and the
numbers a mission runs on (its rules), each checked with one-line messages.

The numbers of the presets (the three difficulties and the fifteen missions) are data, in
panel/games/kaboom/missions.toml, read by panel.games.kaboom.missions; this module holds the
field lists and the limits every one of them is checked against.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from collections.abc import Callable
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, Word
from panel.games.names import name_problem

# The penguins' colours: one button with a light per colour on the panel.
COLOURS = ("red", "blue", "white", "yellow", "green", "black")
# The difficulties, each with its name for people (the pages say it in their language).
DIFFICULTY_NAMES = {"easy": N_("easy"), "medium": N_("medium"), "advanced": N_("advanced")}
DIFFICULTIES = tuple(DIFFICULTY_NAMES)
MAX_PLAYERS = len(COLOURS)

# field: (lowest, highest) for the whole-number rules of a mission
LIMITS: dict[str, tuple[int, int]] = {
    "time_per_player": (10, 3600),
    "alert_seconds": (5, 600),
    "recharge_seconds": (1, 300),
    "alerts": (1, 12),
    "alerts_face_up": (0, 11),
}
# What each rule means, for error messages and the game master's page (which shows them in
# its language: the catalog has them).
RULE_WORDS = {
    "time_per_player": N_("seconds on each player's clock at the start"),
    "alert_seconds": N_("seconds between two alerts"),
    "recharge_seconds": N_("seconds a recharge adds"),
    "recharge_above_start": N_("whether a recharge may take a clock above its starting time"),
    "alerts": N_("alert cards on the table"),
    "alerts_face_up": N_("alert cards face up at the start"),
}


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class MissionRules:
    """The numbers one mission is played with. The custom mission sets the first four
    itself (the rulebook's four parameters); the cockpit also needs the alert cards on
    the table, to know when the last one is face up."""

    time_per_player: int
    alert_seconds: int
    recharge_seconds: int
    recharge_above_start: bool
    alerts: int
    alerts_face_up: int = 0
    name: str = "Custom mission"

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, raw: Any, *, file: str | None, key: str, defaults: "MissionRules | None" = None,
                  problems: list[Problem]) -> "MissionRules | None":
        """Rules from a table; missing fields take `defaults` (all are needed without).
        Appends every problem to `problems` and returns None if there was one."""
        before = len(problems)

        def bad(k: str, reason: Text) -> None:
            problems.append(Problem(file, f"{key}.{k}" if key else k, reason))

        if not isinstance(raw, dict):
            problems.append(Problem(file, key or None, Text(N_("must be a table"))))
            return None
        names = [f.name for f in fields(cls) if f.name != "name"]
        for k in raw:
            if k not in names and k != "name":
                bad(k, Text(N_("unknown rule (expected one of: {names})"), names=", ".join(names)))
        kw: dict[str, Any] = {}
        if "name" in raw:
            if isinstance(raw["name"], str) and raw["name"].strip():
                kw["name"] = raw["name"].strip()
            else:
                bad("name", Text(N_("must be the mission's name (text)")))
        for k in names:
            if k in raw:
                v = raw[k]
            elif defaults is not None:
                v = getattr(defaults, k)
            elif k == "alerts_face_up":
                v = 0
            else:
                bad(k, Text(N_("missing ({what})"), what=Word(RULE_WORDS[k])))
                continue
            if k == "recharge_above_start":
                if not isinstance(v, bool):
                    bad(k, Text(N_("must be true or false")))
                    continue
            else:
                low, high = LIMITS[k]
                if not _whole(v) or not low <= v <= high:
                    bad(k, Text(N_("must be a whole number from {low} to {high} ({what}), not {value}"), low=low,
                                high=high, what=Word(RULE_WORDS[k]), value=repr(v)))
                    continue
            kw[k] = v
        if "alerts" in kw and "alerts_face_up" in kw and kw["alerts_face_up"] >= kw["alerts"]:
            bad("alerts_face_up", Text(N_("{up} face up of {alerts} alert cards: at least one must start face down, "
                                          "or the mission is lost before it starts"),
                                       up=kw["alerts_face_up"], alerts=kw["alerts"]))
        if len(problems) > before:
            return None
        return cls(**kw)


@dataclass(frozen=True)
class Player:
    colour: str
    name: str | None = None  # None: the pages call them by their penguin's colour, in their language

    def as_dict(self) -> dict[str, Any]:
        return {"colour": self.colour, **({"name": self.name} if self.name else {})}  # a log exports as TOML: no null


def _players(raw_players: Any, bad: Callable[[str, Text], None]) -> list[Player]:
    """The players a [match] table lists (colours, or tables with a colour and a name), each problem to `bad`."""
    players: list[Player] = []
    if not isinstance(raw_players, list):
        bad("players", Text(N_("must list up to {most} players: colours like {colours} or tables {tables} "
                               "(none: they join on the panel)"), most=MAX_PLAYERS, colours='["red", "blue"]',
                            tables='[{ colour = "red", name = "Alis" }]'))
        raw_players = []
    elif len(raw_players) > MAX_PLAYERS:
        bad("players", Text(N_("{n} players: at most {most}, one per colour"), n=len(raw_players),
                            most=MAX_PLAYERS))
    for i, rp in enumerate(raw_players):
        k = f"players[{i}]"
        if isinstance(rp, str):
            rp = {"colour": rp}
        if not isinstance(rp, dict):
            bad(k, Text(N_("must be a colour or a table {table}"), table="{ colour = ..., name = ... }"))
            continue
        for extra in rp:
            if extra not in ("colour", "name"):
                bad(f"{k}.{extra}", Text(N_("unknown key (expected colour, name)")))
        colour = rp.get("colour")
        if colour not in COLOURS:
            bad(f"{k}.colour", Text(N_("{colour} is not a penguin colour ({colours})"), colour=repr(colour),
                                    colours=", ".join(COLOURS)))
            continue
        if any(p.colour == colour for p in players):
            bad(f"{k}.colour", Text(N_("two players have the {colour} penguin"), colour=Word(colour)))
            continue
        name = rp.get("name")
        if name is not None and (not isinstance(name, str) or not name.strip()):
            bad(f"{k}.name", Text(N_("must be a name (text), or left out")))
            name = None
        elif name is not None and (why := name_problem(name.strip(), N_("a player"))) is not None:
            bad(f"{k}.name", why)  # bounded as every game's names are: the board shows it large
            name = None
        players.append(Player(colour, name.strip() if name else None))
    return players


def _rules(raw: dict[str, Any], presets: Any, difficulty: str, mission: Any, custom: Any, *, file: str | None,
           where: Callable[[str], str], bad: Callable[[str, Text], None],
           problems: list[Problem]) -> MissionRules | None:
    """The numbers a mission is played with: the preset of its number and difficulty, or its custom
    parameters, unless the table gives the numbers it was set up with (those win)."""
    rules = None
    if mission == "custom":
        rules = MissionRules.from_dict({} if custom is None else custom, file=file, key=where("custom"),
                                       defaults=presets.custom, problems=problems)
    elif _whole(mission) and mission in presets.missions:
        if custom is not None:
            bad("custom", Text(N_("custom parameters need mission = \"custom\"")))
        rules = presets.rules(difficulty, mission)
    else:
        bad("mission", Text(N_("{value} is not a mission (1 to {last}, or \"custom\")"), value=repr(mission),
                            last=len(presets.missions)))
    if raw.get("rules") is not None:  # the numbers it was set up with win
        rules = MissionRules.from_dict(raw["rules"], file=file, key=where("rules"), problems=problems)
    return rules


@dataclass(frozen=True)
class KaboomSettings:
    """One Kaboom mission's set-up. `rules` are the numbers it is played with, resolved from
    the presets (or the custom parameters) when the settings are read."""

    players: tuple[Player, ...]  # may be empty: players then join on the panel before the start
    rules: MissionRules
    difficulty: str = "medium"
    mission: int | str = 1  # 1 to 15, or "custom"
    custom: dict[str, Any] | None = None  # the custom parameters as given
    seed: int = 0
    layout: str | None = None
    missions: str | None = None  # a café's own missions file instead of the shipped one

    mode = "kaboom"
    # rules: the numbers a stored mission was set up with (the service writes them, so its
    # log replays the same whatever the missions file says later; an exported log keeps them)
    KEYS = ("mode", "players", "difficulty", "mission", "custom", "seed", "layout", "missions", "rules")
    FORM = ("mode", "players", "difficulty", "mission", "custom", "seed")  # what the game master's page sends

    @property
    def colours(self) -> tuple[str, ...]:
        return tuple(p.colour for p in self.players)

    def as_dict(self) -> dict[str, Any]:
        return {"players": [p.as_dict() for p in self.players], "difficulty": self.difficulty,
                "mission": self.mission, "custom": dict(self.custom) if self.custom is not None else None,
                "seed": self.seed, "layout": self.layout, "missions": self.missions, "rules": self.rules.as_dict()}

    @classmethod
    def from_dict(cls, raw: Any, presets: Any, *, file: str | None = None, key: str = "match") -> "KaboomSettings":
        """Settings from a scenario's [match] table or a web form, every problem at once.
        `presets` is the missions file (panel.games.kaboom.missions.Missions) the mission number
        and the difficulty are looked up in."""
        problems: list[Problem] = []

        def where(k: str) -> str:
            return f"{key}.{k}" if key else k

        def bad(k: str, reason: Text) -> None:
            problems.append(Problem(file, where(k), reason))

        if not isinstance(raw, dict):
            raise ConfigError(Problem(file, key or None, Text(N_("must be a table"))))
        for k in raw:
            if k not in cls.KEYS:
                bad(k, Text(N_("unknown setting for Kaboom (expected one of: {names})"), names=", ".join(cls.KEYS)))
        if raw.get("mode", "kaboom") != "kaboom":
            bad("mode", Text(N_("must be \"kaboom\"")))

        players = _players(raw.get("players", []), bad)

        difficulty = raw.get("difficulty", "medium")
        if difficulty not in DIFFICULTIES:
            bad("difficulty", Text(N_("{value} is not a difficulty ({choices})"), value=repr(difficulty),
                                   choices=", ".join(DIFFICULTIES)))
            difficulty = "medium"
        mission = raw.get("mission", 1)
        custom = raw.get("custom")
        rules = _rules(raw, presets, difficulty, mission, custom, file=file, where=where, bad=bad, problems=problems)
        seed = raw.get("seed", 0)
        if not _whole(seed) or not 0 <= seed < 2**63:
            bad("seed", Text(N_("must be a whole number from {low} to {high}, not {value}"), low=0, high=2**63 - 1,
                             value=repr(seed)))
            seed = 0
        paths = {}
        for k in ("layout", "missions"):
            v = raw.get(k)
            if v is not None and not isinstance(v, str):
                bad(k, Text(N_("must be a file path")))
                v = None
            paths[k] = v
        if problems or rules is None:
            raise ConfigError(problems)
        return cls(tuple(players), rules, difficulty, mission, dict(custom) if isinstance(custom, dict) else None,
                   seed, paths["layout"], paths["missions"])
