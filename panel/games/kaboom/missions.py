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
from panel.core.i18n import N_, Text, Word
from panel.core.schema import Array, Field, Int, Problems, Table, say, whole
from panel.core.toml_file import read_toml

DEFAULT_MISSIONS = "missions.toml"


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


_RULE = N_("must be a whole number from {low} to {high} ({what}), not {value}")


def _rule(k: str) -> Int:
    low, high = LIMITS[k]
    return Int(required=True, lo=low, hi=high, says=_RULE,
               values={"low": low, "high": high, "what": Word(RULE_WORDS[k])})


_DIFFICULTIES = N_("needs a table for each difficulty: {names}")
_MISSIONS = N_("needs the missions as [[mission]] tables")
_CHANGE = Int(default=0, says=N_("must be a whole number of seconds (negative takes some off), not {value}"))
_RULE_KEYS = ("alerts", "alerts_face_up", "recharge_seconds", "recharge_above_start")
MISSIONS_FILE = Table(fields={
    "format": Field(default=1),
    "difficulty": Table(says=_DIFFICULTIES, missing=_DIFFICULTIES, values={"names": ", ".join(DIFFICULTIES)},
                        fields={name: Table(missing=N_("missing: every difficulty needs time_per_player and "
                                                       "alert_seconds"),
                                            fields={k: _rule(k) for k in ("time_per_player", "alert_seconds")})
                                for name in DIFFICULTIES}),
    "mission": Array(says=_MISSIONS, missing=_MISSIONS,
                     of=Table(says=N_("must be a table"), fields={
                         "number": Field(), "name": Field(), **{k: Field() for k in _RULE_KEYS},
                         "time_change": _CHANGE, "alert_change": _CHANGE})),
    "custom": Field(),
})


def _mission(problems: Problems, i: int, m: dict, raw: dict, difficulties: dict[str, Difficulty]) -> Mission | None:
    """The i-th [[mission]] (`m` as read, `raw` as written), playable at every difficulty."""
    key, number = f"mission[{i}]", m["number"]
    if not whole(number) or number != i + 1:
        problems.add(f"{key}.number", say(N_("must be {n}: missions are numbered 1, 2, 3 ... in order, not {value}"),
                                          number, n=i + 1))
        return None
    name = m["name"] if m["name"] is not None else f"Mission {number}"
    if not isinstance(name, str) or not name.strip():
        problems.add(f"{key}.name", Text(N_("must be a name (text)")))
        return None
    # A mission's own rules checked as rules; its clocks come from the difficulty (the
    # lowest legal values stand in here) and are checked below, at every difficulty.
    rules = MissionRules.from_dict({k: raw[k] for k in _RULE_KEYS if k in raw}
                                   | {"time_per_player": LIMITS["time_per_player"][0],
                                      "alert_seconds": LIMITS["alert_seconds"][0]},
                                   file=problems.file, key=key, problems=problems.found)
    if rules is None:
        return None
    mission = Mission(number, name.strip(), rules.alerts, rules.alerts_face_up, rules.recharge_seconds,
                      rules.recharge_above_start, m["time_change"], m["alert_change"])
    # The difficulty's numbers changed by the mission's must stay playable at every level.
    for dname, d in difficulties.items():
        for k, base, change, what in (("time_per_player", d.time_per_player, mission.time_change, "time_change"),
                                      ("alert_seconds", d.alert_seconds, mission.alert_change, "alert_change")):
            low, high = LIMITS[k]
            if not low <= base + change <= high:
                problems.add(f"{key}.{what}", Text(N_("gives {value} {what} at {difficulty} (must be from {low} to "
                                                      "{high})"), value=base + change, what=Word(RULE_WORDS[k]),
                                                   difficulty=dname, low=low, high=high))
    return mission


def parse_missions(raw: dict[str, Any], file: str) -> Missions:
    problems = Problems(file)
    top = MISSIONS_FILE.read_top(raw, problems)
    if top["format"] != 1:
        problems.add("format", say(N_("unsupported missions format {value} (this program reads format 1)"),
                                   top["format"]))
    difficulties = {name: Difficulty(d["time_per_player"], d["alert_seconds"])
                    for name, d in (top["difficulty"] or {}).items() if d is not None and None not in d.values()}
    if raw.get("mission") == []:
        problems.add("mission", Text(_MISSIONS))
    missions = {}
    for i, m in enumerate(top["mission"]):
        mission = _mission(problems, i, m, raw["mission"][i], difficulties) if m is not None else None
        if mission is not None:
            missions[mission.number] = mission
    custom = MissionRules.from_dict(raw.get("custom"), file=file, key="custom", problems=problems.found)
    problems.raise_any()
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
