"""The Kaboom missions file: the three difficulties, the fifteen missions and the custom
mission's starting values, read from TOML and checked up front (every problem at once,
one line each, naming the file and the key).

The shipped file is panel/games/kaboom/missions.toml; its numbers are the house's.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from panel.games.kaboom.settings import DIFFICULTIES, LIMITS, MissionRules, RULE_WORDS
from panel.core.errors import ConfigError, Problem
from panel.core.toml_file import read_toml
from panel.core.i18n import N_, Text, Word

DEFAULT_MISSIONS = "missions.toml"
_DIFFICULTY_KEYS = ("time_per_player", "alert_seconds")
_MISSION_KEYS = ("number", "name", "alerts", "alerts_face_up", "recharge_seconds", "recharge_above_start",
                 "time_change", "alert_change")
_TOP_KEYS = ("format", "difficulty", "mission", "custom")


def default_missions_path() -> Path:
    return Path(str(resources.files("panel.games.kaboom") / DEFAULT_MISSIONS))


@dataclass(frozen=True)
class Difficulty:
    time_per_player: int
    alert_seconds: int


@dataclass(frozen=True)
class Mission:
    number: int
    name: str
    alerts: int
    alerts_face_up: int
    recharge_seconds: int
    recharge_above_start: bool
    time_change: int = 0
    alert_change: int = 0


@dataclass(frozen=True)
class Missions:
    source: str
    difficulties: dict[str, Difficulty]
    missions: dict[int, Mission]
    custom: MissionRules

    def rules(self, difficulty: str, number: int) -> MissionRules:
        """The numbers mission `number` is played with at `difficulty`."""
        d, m = self.difficulties[difficulty], self.missions[number]
        return MissionRules(time_per_player=d.time_per_player + m.time_change,
                            alert_seconds=d.alert_seconds + m.alert_change,
                            recharge_seconds=m.recharge_seconds, recharge_above_start=m.recharge_above_start,
                            alerts=m.alerts, alerts_face_up=m.alerts_face_up, name=m.name)

    def as_dict(self) -> dict[str, Any]:
        """For the game master's page: every preset's resolved numbers and the custom ones."""
        return {
            "difficulties": list(self.difficulties),
            "missions": [{"number": n, "name": m.name,
                          "rules": {d: self.rules(d, n).as_dict() for d in self.difficulties}}
                         for n, m in self.missions.items()],
            "custom": self.custom.as_dict(),
            "limits": {k: list(v) for k, v in LIMITS.items()},
            "words": dict(RULE_WORDS),
        }


def _whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_missions(raw: dict[str, Any], file: str) -> Missions:
    problems: list[Problem] = []

    def bad(key: str, reason: Text) -> None:
        problems.append(Problem(file, key, reason))

    for k in raw:
        if k not in _TOP_KEYS:
            bad(k, Text(N_("unknown key (expected one of: {keys})"), keys=", ".join(_TOP_KEYS)))
    if raw.get("format", 1) != 1:
        bad("format", Text(N_("unsupported missions format {value} (this program reads format 1)"),
                           value=repr(raw.get("format"))))

    difficulties: dict[str, Difficulty] = {}
    raw_d = raw.get("difficulty")
    if not isinstance(raw_d, dict):
        bad("difficulty", Text(N_("needs a table for each difficulty: {names}"), names=", ".join(DIFFICULTIES)))
        raw_d = {}
    for name in raw_d:
        if name not in DIFFICULTIES:
            bad(f"difficulty.{name}", Text(N_("unknown difficulty (expected {names})"), names=", ".join(DIFFICULTIES)))
    for name in DIFFICULTIES:
        key = f"difficulty.{name}"
        d = raw_d.get(name)
        if not isinstance(d, dict):
            if raw_d:
                bad(key, Text(N_("missing: every difficulty needs time_per_player and alert_seconds")))
            continue
        ok = True
        for k in d:
            if k not in _DIFFICULTY_KEYS:
                bad(f"{key}.{k}", Text(N_("unknown key (expected {keys})"), keys=", ".join(_DIFFICULTY_KEYS)))
        for k in _DIFFICULTY_KEYS:
            low, high = LIMITS[k]
            v = d.get(k)
            if not _whole(v) or not low <= v <= high:
                bad(f"{key}.{k}", Text(N_("must be a whole number from {low} to {high} ({what}), not {value}"), low=low,
                                         high=high, what=Word(RULE_WORDS[k]), value=repr(v)))
                ok = False
        if ok:
            difficulties[name] = Difficulty(d["time_per_player"], d["alert_seconds"])

    missions: dict[int, Mission] = {}
    raw_m = raw.get("mission")
    if not isinstance(raw_m, list) or not raw_m:
        bad("mission", Text(N_("needs the missions as [[mission]] tables")))
        raw_m = []
    for i, m in enumerate(raw_m):
        key = f"mission[{i}]"
        if not isinstance(m, dict):
            bad(key, Text(N_("must be a table")))
            continue
        for k in m:
            if k not in _MISSION_KEYS:
                bad(f"{key}.{k}", Text(N_("unknown key (expected one of: {keys})"), keys=", ".join(_MISSION_KEYS)))
        number = m.get("number")
        if not _whole(number) or number != i + 1:
            bad(f"{key}.number", Text(N_("must be {n}: missions are numbered 1, 2, 3 ... in order, not {value}"),
                                      n=i + 1, value=repr(number)))
            continue
        name = m.get("name", f"Mission {number}")
        if not isinstance(name, str) or not name.strip():
            bad(f"{key}.name", Text(N_("must be a name (text)")))
            continue
        # A mission's own rules checked as rules; its clocks come from the difficulty (the
        # lowest legal values stand in here) and are checked below, at every difficulty.
        rules = MissionRules.from_dict(
            {k: m.get(k) for k in ("alerts", "alerts_face_up", "recharge_seconds", "recharge_above_start")
             if k in m} | {"time_per_player": LIMITS["time_per_player"][0],
                           "alert_seconds": LIMITS["alert_seconds"][0]},
            file=file, key=key, problems=problems)
        changes = {}
        for k in ("time_change", "alert_change"):
            v = m.get(k, 0)
            if not _whole(v):
                bad(f"{key}.{k}", Text(N_("must be a whole number of seconds (negative takes some off), not {value}"),
                                      value=repr(v)))
                v = None
            changes[k] = v
        if rules is None or None in changes.values():
            continue
        mission = Mission(number, name.strip(), rules.alerts, rules.alerts_face_up, rules.recharge_seconds,
                          rules.recharge_above_start, changes["time_change"], changes["alert_change"])
        # The difficulty's numbers changed by the mission's must stay playable at every level.
        for dname, d in difficulties.items():
            for k, base, change in (("time_per_player", d.time_per_player, mission.time_change),
                                    ("alert_seconds", d.alert_seconds, mission.alert_change)):
                low, high = LIMITS[k]
                if not low <= base + change <= high:
                    what = "time_change" if k == "time_per_player" else "alert_change"
                    bad(f"{key}.{what}", Text(N_("gives {value} {what} at {difficulty} (must be from {low} to {high})"),
                                              value=base + change, what=Word(RULE_WORDS[k]), difficulty=dname,
                                              low=low, high=high))
        missions[number] = mission

    custom = MissionRules.from_dict(raw.get("custom"), file=file, key="custom", problems=problems)
    if problems:
        raise ConfigError(problems)
    return Missions(file, difficulties, missions, custom)


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> Missions:
    return parse_missions(read_toml(path), path)


def load_missions(path: str | Path | None = None) -> Missions:
    """Read and check a missions file (the shipped one when path is None).

    Raises ConfigError listing every problem, each naming the file and the key."""
    file = Path(path) if path is not None else default_missions_path()
    try:
        mtime = file.stat().st_mtime
    except OSError:
        mtime = 0.0  # read_toml says what is wrong with it
    return _load(str(file), mtime)
