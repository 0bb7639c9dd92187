"""Kaboom scenarios: the scripting contract with `mode = "kaboom"` in [match].

    [match]
    mode = "kaboom"
    players = ["red", "blue"]          # or [{ colour = "red", name = "Alis" }, ...]; [] to join on the panel
    difficulty = "medium"              # easy | medium | advanced
    mission = 1                        # 1 to 15, or "custom" with:
    custom = { time_per_player = 60, alert_seconds = 20, recharge_seconds = 25, recharge_above_start = false }
    seed = 7                           # who plays first and every tie after it
    layout = "my-panel.toml"           # optional: a layout with a [kaboom] table
    missions = "my-missions.toml"      # optional: a café's own mission numbers

    [[input]]
    t = 0.0
    action = "start"                   # or press = "cockpit.start"

Each input has `t` (seconds from the start) and one of:
    press = "id" / hold = "id" / release = "id"   a button Kaboom uses (a player's colour,
                                                   recharge, mission, alert buttons, START)
    move = "lever.big", to = "down"                the mission button's protection
    action = "start" | "recharge" | "lift_cover" | "lower_cover" | "confirm"
           | "alert_flipped" | "alert_deactivated" | "abandon"
    action = "pass" | "join" | "leave", colour = "red"
    action = "pause" | "resume", reason = "..."    (reason optional)

The result (`penguin-panel replay --json`): the events; `refused`, each input the rules
refused at its moment (it changed nothing) with the action it asked for and the reason;
each player's `time_left`; `finished`; `outcome` (success, failed or abandoned) and, when
it failed, `reason` (clock_out, with `failed_colour`, or last_alert).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.games.kaboom.engine import ACTIONS, KaboomMatch, malformed
from panel.games.kaboom.settings import KaboomSettings
from panel.core.errors import ConfigError, Problem
from panel.core.events import Action, GameEvent, InputEvent
from panel.core.i18n import N_, Text, _
from panel.games.scenario_inputs import read_end, read_inputs, start_positions
from panel.core.layout import Layout
from panel.games.kaboom.build import panel_for
from panel.games.kaboom.mapping import BUTTON_ROLES, KaboomMapping
from panel.games.kaboom.missions import load_missions

# the parameters an action entry may give (each checked by the engine's `malformed`)
_ACTION_PARAMS = tuple(dict.fromkeys(p for params in ACTIONS.values() for p in params))


class KaboomScenario:
    def __init__(self, settings: KaboomSettings, layout: Layout, mapping: KaboomMapping,
                 inputs: list[InputEvent | Action], end: float | None, positions: dict[str, str]):
        self.settings = settings
        self.layout = layout
        self.mapping = mapping
        self.inputs = inputs
        self.end = end
        self.positions = positions

    def new_match(self) -> KaboomMatch:
        return KaboomMatch(self.settings, self.mapping, layout=self.layout, positions=self.positions)

    @property
    def game(self):
        from panel.games.kaboom.game import GAME

        return GAME

    def result(self, match: KaboomMatch, events: list[GameEvent], refused: list[dict[str, Any]],
               tr: Any = None) -> dict[str, Any]:
        return result(match, events, refused)


def result(match: KaboomMatch, events: list[GameEvent], refused: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "events": [e.as_dict() for e in events],
        "refused": refused,
        "time_left": {c: match.time_left(c) for c in match.colours},
        "finished": match.finished,
        "outcome": match.outcome,
        "reason": match.reason,
        "failed_colour": match.failed_colour,
    }


def _path(base: Path | None, p: str | None) -> Path | None:
    if p is None:
        return None
    path = Path(p)
    return base / path if base is not None and not path.is_absolute() else path


def parse_kaboom_scenario(raw: dict[str, Any], *, file: str | None = None, base: Path | None = None) -> KaboomScenario:
    problems: list[Problem] = []
    for k in raw:
        if k not in ("match", "input", "end", "panel"):
            problems.append(Problem(file, k, Text(N_("unknown key for a Kaboom scenario (expected match, panel, input, end)"))))
    raw_match = raw.get("match")
    missions_path = raw_match.get("missions") if isinstance(raw_match, dict) else None
    presets = load_missions(_path(base, missions_path) if isinstance(missions_path, str) else None)
    settings = KaboomSettings.from_dict(raw_match, presets, file=file)
    layout, mapping = panel_for(str(_path(base, settings.layout)) if settings.layout else None)
    missing = [c for c in settings.colours if c not in mapping.players]
    if missing:
        problems.append(Problem(file, "match.players", Text(N_("the panel has no button for the {colours} penguin "
                                                               "(it has {players})"), colours=", ".join(missing),
                                                            players=", ".join(mapping.players))))
    positions = start_positions(raw.get("panel", {}), layout, file, problems)
    inputs, input_problems = parse_inputs(raw.get("input", []), layout, mapping, file)
    problems += input_problems
    end = read_end(raw, file, problems)
    if problems:
        raise ConfigError(problems)
    return KaboomScenario(settings, layout, mapping, inputs, end, positions)


def parse_inputs(raw_inputs: Any, layout: Layout, mapping: KaboomMapping, file: str | None,
                 key: str = "input") -> tuple[list[InputEvent | Action], list[Problem]]:
    """Any control of the panel may be pressed or moved (a logged mission has them all; the
    engine uses those of the [kaboom] table and leaves the others alone)."""
    return read_inputs(
        raw_inputs, layout, file, key=key, action_params=_ACTION_PARAMS, malformed=malformed,
        not_a_button=lambda v: Text(N_("{value} is not a button of the panel (Kaboom uses {buttons})"), value=repr(v),
                                    buttons=", ".join(kaboom_buttons(mapping))),
        not_a_token=lambda v: Text(N_("{value} is not a token of the panel (the mission button's protection is "
                                      "{cover})"), value=repr(v), cover=mapping.cover),
        new_match=Text(N_("a scenario plays one mission: new_match is the service's, not a scenario's")))


def kaboom_buttons(mapping: KaboomMapping) -> list[str]:
    return list(mapping.players.values()) + [b for b in (getattr(mapping, r) for r in BUTTON_ROLES) if b]


def print_log(out: dict[str, Any]) -> None:
    """A Kaboom result as a log a person reads; a refused input is a `refused` line at its
    moment, with the reason."""
    lines = []
    for e in out["events"]:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("t", "type"))
        lines.append((e["t"], f"{e['t']:8.2f}s  {e['type']:<20} {details}"))
    refused = _("refused")
    for r in out["refused"]:
        asked = ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("t", "action", "reason"))
        lines.append((r["t"], f"{r['t']:8.2f}s  {refused:<20} {r['action']} ({asked}): {r['reason']}"
                      if asked else f"{r['t']:8.2f}s  {refused:<20} {r['action']}: {r['reason']}"))
    for _t, line in sorted(lines, key=lambda tl: tl[0]):  # stable: a refusal after that moment's events
        print(line)
    print(_("time left: {clocks}").format(clocks=", ".join(f"{_(c)} {s:.1f} s" for c, s in out["time_left"].items())))
    if not out["finished"]:
        print(_("mission not finished"))
    elif out["outcome"] == "failed":
        why = (_("the {colour} clock reached zero").format(colour=_(out["failed_colour"]))
               if out["reason"] == "clock_out" else _("the last alert card is face up"))
        print(_("mission failed: {why}").format(why=why))
    elif out["outcome"] == "success":
        print(_("mission accomplished"))
    else:
        print(_("mission {outcome}").format(outcome=out["outcome"]))
