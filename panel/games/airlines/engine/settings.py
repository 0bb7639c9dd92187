"""Match settings: the house rules that can change per match, declared once, checked with
clear messages.

Each field of `MatchSettings` carries its own declaration (label, limits, choices, where it
may be set). `SETTINGS` is that list; the scenario reader, the settings file reader, the
service's web API and the game master's page all take the fields, their defaults and their
limits from it, and every check goes through `MatchSettings.from_dict`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Iterable

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, NC_, Either, Text, Word
from panel.core.layout import SIDES
from panel.games.airlines.engine.cooperative import PLAYER_COUNTS
from panel.games.names import name_problem

MODES = ("competitive", "cooperative")
TEAMS_MAX = 8
PLAYERS_MAX = 12  # in one team
# Where a setting may be given:
#   form      the game master's New match form (chosen for each match)
#   defaults  the defaults for new matches the game master saves on /admin
#   file      the [match] table of the service's settings file (defaults, and the build's own)
PLACES = ("form", "defaults", "file")
# A choice's name as the game master's page offers it (translated there, in this context).
UNKNOWN_SETTING = N_("unknown setting (expected one of: {names})")
CHOICE_NAMES = {"competitive": NC_("a setting's choice", "Competitive"),
                "cooperative": NC_("a setting's choice", "Cooperative"),
                "blue": NC_("a setting's choice", "Blue"), "gray": NC_("a setting's choice", "Gray")}
EVERYWHERE = PLACES


@dataclass(frozen=True)
class Setting:
    """One field's declaration, JSON-ready for the pages (`as_dict`)."""

    name: str
    label: str
    kind: str  # number, choice, flag, teams, path
    default: Any
    where: tuple[str, ...]
    low: float | None = None
    high: float | None = None
    whole: bool = False
    choices: tuple[str, ...] = ()
    modes: tuple[str, ...] = MODES  # the modes the setting is used in
    help: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The declaration in English (label, help and choice names marked N_(): the service
        says them in the pages' language)."""
        d = asdict(self)
        d["choice_names"] = [CHOICE_NAMES.get(c, c.capitalize()) for c in self.choices]
        if self.kind == "teams":
            d["default"] = [{"name": t.name, "players": list(t.players)} for t in self.default]
        d["where"], d["choices"], d["modes"] = list(self.where), list(self.choices), list(self.modes)
        return d


def _declare(default: Any, **spec: Any) -> Any:
    return field(default=default, metadata={"setting": spec})


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


# The names the engine gives where none is given, marked for the catalog: a cockpit says them
# in its language when it sets a match up (`default_teams`, `one_crew`); the engine's own
# (scripts, replays) stay as written here.
DEFAULT_TEAMS = (N_("Blue team"), N_("Red team"))
CREW = N_("Crew")  # a cooperative match's one crew, when its players were listed in several teams


def default_teams(tr: Any) -> list[dict[str, Any]]:
    """The default teams, named in the language of `tr` (a gettext translations)."""
    return [{"name": tr.gettext(name), "players": []} for name in DEFAULT_TEAMS]


@dataclass(frozen=True)
class MatchSettings:
    mode: str = _declare("competitive", label=N_("Mode"), kind="choice", choices=MODES, where=EVERYWHERE,
                         help=N_("competitive: teams take turns; "
                                 "cooperative: one crew, the rulebook's rounds and tiers"))
    teams: tuple[Team, ...] = _declare(
        tuple(Team(name) for name in DEFAULT_TEAMS),
        label=N_("Teams and players"), kind="teams", where=EVERYWHERE,
        help=N_("competitive: 2 players or more in each team, or none named (the team picks its tower each round); "
                "cooperative: 2 to 6 players in all, one crew"))
    turn_seconds: float = _declare(30.0, label=N_("Turn seconds"), kind="number", low=5, high=600, where=EVERYWHERE,
                                   help=N_("the timer of a turn (35 or 40 for a first game)"))
    time_counters: int = _declare(4, label=N_("Time counters"), kind="number", low=0, high=20, whole=True,
                                  where=EVERYWHERE, help=N_("the pool of time counters"))
    target_points: int = _declare(12, label=N_("Target points"), kind="number", low=1, high=1000, whole=True,
                                  where=EVERYWHERE, modes=("competitive",),
                                  help=N_("the game ends at the end of the round in which a team reaches them"))
    settle_ms: int = _declare(500, label=N_("Settle time (ms)"), kind="number", low=0, high=5000, whole=True,
                              where=EVERYWHERE, help=N_("how long a token must hold a position to count"))
    seed: int = _declare(0, label=N_("Seed"), kind="number", low=0, high=2**63 - 1, whole=True, where=("form",),
                         help=N_("the same seed deals the same deck; left out, every match gets its own"))
    side: str = _declare("blue", label=N_("Side"), kind="choice", choices=SIDES, where=EVERYWHERE,
                         help=N_("the printed side of the panel (blue is easier)"))
    expansion: bool = _declare(False, label=N_("Expansion (★)"), kind="flag", where=EVERYWHERE,
                               help=N_("the 3 expansion modules and the 20 starred cards"))
    touch_sensors: bool = _declare(False, label=N_("Touch sensors"), kind="flag", where=("file",),
                                   help=N_("the build has touch sensors on its tokens "
                                           "(set by the build, not per match)"))
    layout: str | None = _declare(None, label=N_("Layout file"), kind="path", where=(),
                                  help=N_("the panel's layout file (the service's --layout, or a scenario's own)"))

    @property
    def settle(self) -> float:
        return self.settle_ms / 1000.0

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(p for t in self.teams for p in t.players)

    def one_crew(self, name: str) -> "MatchSettings":
        """In cooperative mode, the players of every team listed as the one crew `name`, in
        the order listed (rule 24: the engine plays them so); other settings unchanged."""
        if self.mode != "cooperative" or len(self.teams) <= 1:
            return self
        return replace(self, teams=(Team(name, self.players),))

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["teams"] = [{"name": t.name, "players": list(t.players)} for t in self.teams]
        return d

    @classmethod
    def from_dict(cls, raw: Any, *, file: str | None = None, key: str = "match",
                  allowed: Iterable[str] | None = None, base: dict[str, Any] | None = None) -> "MatchSettings":
        """Build settings from a scenario's [match] table, a stored match or a web form;
        every problem at once, each naming its key.

        `allowed` limits the keys `raw` may give (a place's names, see `names`); `base`
        holds values taken from elsewhere (the defaults, the build) that `raw` overrides.
        """
        problems: list[Problem] = []

        def bad(k: str, reason: str | Text) -> None:
            problems.append(Problem(file, f"{key}.{k}" if key else k, reason))

        if not isinstance(raw, dict):
            raise ConfigError(Problem(file, key, Text(N_("must be a table"))))
        known = tuple(allowed) if allowed is not None else tuple(s.name for s in SETTINGS)
        for k in raw:
            if k not in known:
                bad(k, Text(UNKNOWN_SETTING, names=", ".join(known)))
        raw = {**(base or {}), **{k: v for k, v in raw.items() if k in known}}
        kw: dict[str, Any] = {}
        for s in SETTINGS:
            v = raw.get(s.name, s.default)
            if s.kind == "choice":
                if v not in s.choices:
                    bad(s.name, Text(N_("{value} is not a {setting} ({choices})"), value=repr(v), setting=s.name,
                                     choices=Either(s.choices)))
                    v = s.default
            elif s.kind == "flag":
                if not isinstance(v, bool):
                    bad(s.name, Text(N_("must be true or false")))
                    v = s.default
            elif s.kind == "number":
                ok = isinstance(v, int) if s.whole else isinstance(v, (int, float))
                if not ok or isinstance(v, bool) or not (s.low <= v <= s.high):
                    bad(s.name, Text(N_("must be a whole number from {low} to {high}, not {value}") if s.whole
                                     else N_("must be a number from {low} to {high}, not {value}"),
                                     low=s.low, high=s.high, value=repr(v)))
                    v = s.default
                v = type(s.default)(v)
            elif s.kind == "path":
                if v is not None and not isinstance(v, str):
                    bad(s.name, Text(N_("must be a file path")))
                    v = None
            elif s.kind == "teams":
                v = _teams(raw.get(s.name), kw["mode"], bad)
            kw[s.name] = v
        if problems:
            raise ConfigError(problems)
        return cls(**kw)

    @classmethod
    def check_defaults(cls, raw: Any, place: str, *, file: str | None = None, key: str = "match",
                       also: tuple[str, ...] = ()) -> None:
        """Check defaults for new matches given at `place` ("defaults" or "file") on their own:
        the same checks and the same one-line messages as a whole match (teams may be left
        out). `also` names other keys the caller takes itself (listed in the message)."""
        if not isinstance(raw, dict):
            raise ConfigError(Problem(file, key, Text(N_("must be a table"))))
        allowed = names(place)
        unknown = [Problem(file, f"{key}.{k}" if key else k, Text(UNKNOWN_SETTING, names=", ".join(also + allowed)))
                   for k in raw if k not in allowed and k not in also]
        try:
            cls.from_dict({k: v for k, v in raw.items() if k in allowed}, file=file, key=key, allowed=allowed,
                          base={"teams": [{"name": "A", "players": ["a", "b"]}]})
        except ConfigError as e:
            unknown += e.problems
        if unknown:
            raise ConfigError(unknown)


def _teams(raw_teams: Any, mode: str, bad) -> tuple[Team, ...]:
    if not isinstance(raw_teams, list) or not raw_teams:
        bad("teams", Text(N_("needs at least one team: {example}"),
                          example='[{ name = "...", players = ["...", ...] }]'))
        return ()
    if len(raw_teams) > TEAMS_MAX:
        bad("teams", Text(N_("{n} teams: at most {most}"), n=len(raw_teams), most=TEAMS_MAX))
        raw_teams = raw_teams[:TEAMS_MAX]
    teams = []
    seen = set()  # trimmed and case-folded: "A", " A " and "a" are one team on the board
    for i, rt in enumerate(raw_teams):
        if not isinstance(rt, dict):
            bad(f"teams[{i}]", Text(N_("must be a table with name and players")))
            continue
        name = rt.get("name")
        name = name.strip() if isinstance(name, str) else name
        players = rt.get("players", [])
        why = name_problem(name, N_("a team"))
        if why:
            bad(f"teams[{i}].name", why)
            continue
        if name.casefold() in seen:
            bad(f"teams[{i}].name", Text(N_("two teams are called {name}"), name=repr(name)))
        seen.add(name.casefold())
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            bad(f"teams[{i}].players", Text(N_("must be an array of player names")))
            players = []
        players = [p.strip() for p in players]
        whys = [w for w in (name_problem(p, N_("a player")) for p in players) if w]
        if whys:
            bad(f"teams[{i}].players", whys[0])
            players = []
        elif len(players) > PLAYERS_MAX:
            bad(f"teams[{i}].players", Text(N_("{n} players: at most {most} in a team"), n=len(players),
                                            most=PLAYERS_MAX))
            players = []
        elif len({p.casefold() for p in players}) != len(players):
            bad(f"teams[{i}].players", Text(N_("a player is listed twice")))
        for extra in rt:
            if extra not in ("name", "players"):
                bad(f"teams[{i}].{extra}", Text(N_("unknown key (expected name, players)")))
        teams.append(Team(name, tuple(players)))
    # Who may play in each mode: docs/rules.md rules 23 and 24.
    if mode == "competitive":
        for i, t in enumerate(teams):
            if len(t.players) == 1:  # none named is a team that picks its tower itself (rule 23)
                bad(f"teams[{i}].players", Text(N_("team {name} needs at least 2 players (a tower and a crew), "
                                                   "or none named"), name=repr(t.name)))
    elif teams:
        everyone = [p for t in teams for p in t.players]
        twice = sorted({p for p in everyone if everyone.count(p) > 1})
        if twice:
            bad("teams", Text(N_("in cooperative mode everyone is one crew: {players} listed in two teams"),
                              players=", ".join(twice)))
        n = len(set(everyone))
        if n not in PLAYER_COUNTS:
            bad("teams", Text(N_("cooperative mode is for {least} to {most} players, these teams have {n}"),
                              least=PLAYER_COUNTS[0], most=PLAYER_COUNTS[-1], n=n))
    return tuple(teams)


SETTINGS: tuple[Setting, ...] = tuple(Setting(name=f.name, default=f.default, **f.metadata["setting"])
                                      for f in fields(MatchSettings))


def names(place: str) -> tuple[str, ...]:
    """The settings that may be given at a place (see PLACES)."""
    if place not in PLACES:
        raise ValueError(place)
    return tuple(s.name for s in SETTINGS if place in s.where)
