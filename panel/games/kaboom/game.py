"""Penguin Kaboom as a game of the cockpit: what the service, the pages, the store and the
venue ask of it (panel/games/base.py's `Game`), answered from the game's own modules."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.games.kaboom.events import ACTIONS, EVENT_TYPES
from panel.core.i18n import NC_, N_, Text, _
from panel.core.schema import Bool, Field, Problems, Table
from panel.games.base import Build, Engine
from panel.games.kaboom import panel_words, show
from panel.games.kaboom.build import declaration, kaboom_match, panel_for
from panel.games.kaboom.debrief import COLUMNS, debrief
from panel.games.kaboom.engine import KaboomMatch
from panel.games.kaboom.missions import load_missions
from panel.games.kaboom.settings import DIFFICULTY_NAMES, KaboomSettings

TITLES = {"players": N_("Penguins: where the time went"), "alerts": N_("Alerts: how fast each was reported flipped")}
# How a mission ended, in words.
OUTCOMES = {"success": N_("mission accomplished"), "failed": N_("mission failed"), "abandoned": N_("mission abandoned")}
NOT_FINISHED = N_("not finished")
# The penguins as the pages draw them (panel/web/static/games/kaboom/): its name, its colour
# and the ink written on it; the name is always beside the colour (colour-blind players).
# The lights' own colours (show.py) cannot show black: the black penguin is violet there.
PENGUINS = {
    "red": (NC_("penguin", "red"), "#e0203a", "#fff"),
    "blue": (NC_("penguin", "blue"), "#1f5fd0", "#fff"),
    "white": (NC_("penguin", "white"), "#f4f4f0", "#222"),
    "yellow": (NC_("penguin", "yellow"), "#f5c518", "#222"),
    "green": (NC_("penguin", "green"), "#21a045", "#fff"),
    "black": (NC_("penguin", "black"), "#23232a", "#fff"),
}
# What the game master's form and a walk-up may choose (the rest is the build's or stored).
FORM = tuple(k for k in KaboomSettings.FORM if k != "mode")
# What a walk-up mission keeps of the last one: the same difficulty, and the same mission
# (the next one after a success: `next_mission`).
AGAIN = ("difficulty", "mission", "custom")
# The settings file's [kaboom] table: a mission's defaults, and whether a penguin's colour
# pressed between matches sets one up.
DEFAULT_KEYS = ("difficulty", "mission", "custom", "missions", "walk_up")
DEFAULTS_TABLE = Table(fields={**{k: Field() for k in DEFAULT_KEYS}, "walk_up": Bool(default=False)})


def next_mission(engine: KaboomMatch) -> int | str:
    """The mission the panel sets up after `engine`'s (docs/kaboom.md, "Beside the game"):
    the next one of its missions file after a success, as the rulebook's campaign moves on
    (after the file's last, its first: a new campaign); the same one after a failure or an
    abandon, to try again; the custom mission stays the custom mission."""
    number = engine.settings.mission
    if engine.outcome != "success" or not isinstance(number, int):
        return number
    numbers = sorted(load_missions(engine.settings.missions).missions)
    return next((n for n in numbers if n > number), numbers[0])


class Kaboom:
    id = "kaboom"
    title = N_("Penguin Kaboom")
    actions = ACTIONS
    event_types = EVENT_TYPES
    settings_table = "kaboom"
    at_venue = False  # a mission scores nothing at a venue: its state shows the cockpit idle there
    lists_outcome = True  # "finished" says nothing of a mission: accomplished or failed
    show = show
    columns = COLUMNS
    table_titles = TITLES

    # ------------------------------------------------------------------ matches
    def from_stored(self, settings: dict[str, Any], positions: dict[str, str]) -> KaboomMatch:
        return kaboom_match(settings, positions)

    def set_up(self, body: dict[str, Any], *, build: Build, positions: dict[str, str],
               language: str) -> KaboomMatch:
        """What the game master's form or the walk-up chose over the [kaboom] defaults; the
        layout and the missions file are the build's. A new draw of the first player unless
        a seed is asked for."""
        unknown = sorted(k for k in body if k not in FORM)
        if unknown:
            raise ConfigError(Problem(None, unknown[0], Text(N_("unknown setting for Kaboom (expected one of: {names})"),
                                                             names=", ".join(FORM))))
        defaults = {k: v for k, v in build.defaults_of(self.id).items() if k != "walk_up"}
        raw = {**defaults, "seed": secrets.randbelow(2**31), **body, "layout": build.layout_path}
        return kaboom_match(raw, dict(positions))

    def check_defaults(self, table: dict[str, Any], *, file: str) -> list[Problem]:
        """The settings file's [kaboom] table: what a Penguin Kaboom mission set up at the
        panel is played with (difficulty, mission or custom numbers, a café's own missions
        file) and whether a penguin's colour pressed between matches sets one up (walk_up)."""
        problems = Problems(file)
        DEFAULTS_TABLE.read(table, self.settings_table, problems)
        mission = {k: v for k, v in table.items() if k in DEFAULT_KEYS and k != "walk_up"}
        missions = mission.get("missions")
        # the same checks as a mission the game master sets up
        problems.collect(lambda: KaboomSettings.from_dict({"mode": "kaboom", **mission},
                                                          load_missions(missions if isinstance(missions, str) else None),
                                                          file=file, key=self.settings_table))
        return problems.found

    def stored_settings(self, engine: KaboomMatch) -> dict[str, Any]:
        return engine.settings.as_dict()

    def form(self, build: Build, tr: Any) -> dict[str, Any]:
        return declaration(build.layout_path, build.defaults_of(self.id), tr)

    def describe(self, engine: KaboomMatch, code: str) -> str:
        s = engine.settings
        return f"Kaboom, {s.rules.name}, {s.difficulty}, penguins {', '.join(engine.colours) or 'to join at the panel'}"

    # ------------------------------------------------------------------ walk-up
    def walks_up(self, control: str, *, build: Build, last: dict[str, Any] | None) -> bool:
        """After a mission (`last`), START plays the next one; a penguin's colour pressed
        sets a mission up where Kaboom is played at the panel: after a mission, or when the
        settings file's [kaboom] table says walk_up = true. A café that plays Penguin
        Airlines only keeps its colour buttons to itself between matches."""
        try:
            layout, mapping = panel_for(build.layout_path)
        except ConfigError:
            return False  # a layout without a [kaboom] table: no mission at the panel
        if last is not None and layout.cockpit_role(control) == "start":
            return True
        role = mapping.role(control)
        return bool(role and role[0] == "colour") and (last is not None or build.walk_up.get(self.id, False))

    def walk_up_body(self, control: str, last: dict[str, Any] | None, last_engine: Engine | None, *,
                     build: Build, language: str) -> dict[str, Any]:
        """The last mission's difficulty and its `next_mission` (or the [kaboom] defaults);
        START plays it with the same penguins, a colour sets it up for the players to join,
        this press the first."""
        body = {k: last[k] for k in AGAIN if last and last.get(k) is not None}
        if isinstance(last_engine, KaboomMatch):
            body["mission"] = next_mission(last_engine)
        layout, _mapping = panel_for(build.layout_path)
        if isinstance(last_engine, KaboomMatch) and layout.cockpit_role(control) == "start":
            body["players"] = [{"colour": c, "name": n} for c, n in last_engine.players.items()]
        return body

    walk_up_problem = N_("A penguin's button could not set up a match ({why}): set it up on the game master's page, "
                         "or name the teams and players in the settings file")

    # ------------------------------------------------------------------ what people see
    def present(self, state: dict[str, Any], engine: KaboomMatch, tr: Any) -> dict[str, Any]:
        """The snapshot's ids and numbers (the pages word them), with the panel's buttons said
        by what they are on the panel, how the protection is lifted now, and the mission
        START at the panel plays next once this one is over."""
        return {**state, "legend": panel_words.legend(engine, tr), "protection": panel_words.protection(engine, tr),
                "next_mission": next_mission(engine) if engine.finished else None}

    def present_event(self, event: dict[str, Any], engine: KaboomMatch | None, tr: Any) -> dict[str, Any]:
        return event

    def tower_card(self, card: dict[str, Any], engine: KaboomMatch) -> dict[str, Any]:
        return card  # a mission has no tower

    def pages(self, tr: Any) -> dict[str, Any]:
        """Also the names of the ids a mission's snapshot and summary carry (colours,
        difficulties, outcomes) and each penguin's colours on the pages."""
        return {"title": tr.gettext(self.title), "columns": {k: list(v) for k, v in COLUMNS.items()},
                "tables": {k: tr.gettext(v) for k, v in TITLES.items()},
                "names": {"colour": {c: tr.pgettext("penguin", name) for c, (name, _css, _ink) in PENGUINS.items()},
                          "difficulty": {d: tr.gettext(name) for d, name in DIFFICULTY_NAMES.items()},
                          "outcome": {o: tr.gettext(name) for o, name in OUTCOMES.items()}},
                "penguins": {c: {"css": css, "ink": ink} for c, (_name, css, ink) in PENGUINS.items()}}

    # ------------------------------------------------------------------ afterwards
    def summary(self, engine: KaboomMatch, events: list[Any]) -> dict[str, Any]:
        return {"finished": engine.finished, "outcome": engine.outcome, "reason": engine.reason,
                "failed_colour": engine.failed_colour,
                "time_left": {c: engine.time_left(c) for c in engine.colours},
                "tables": debrief([e.as_dict() for e in events])}

    def summary_in_language(self, result: dict[str, Any], tr: Any) -> dict[str, Any] | None:
        return None

    def tables(self, events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        return debrief(events)

    def headline(self, result: dict[str, Any]) -> str:
        return _("Time left: {clocks} · {outcome}").format(
            clocks=", ".join(f"{_(c)} {s:.1f} s" for c, s in result["time_left"].items()),
            outcome=_(OUTCOMES.get(result["outcome"], result["outcome"] or NOT_FINISHED)))

    def venue_result(self, engine: KaboomMatch) -> dict[str, Any] | None:
        return None

    def listing(self, settings: dict[str, Any]) -> dict[str, Any]:
        return {"mode": None, "teams": [p.get("name") or p.get("colour") for p in settings.get("players", [])
                                        if isinstance(p, dict)]}

    # ------------------------------------------------------------------ scenarios
    def read_scenario(self, raw: dict[str, Any], *, file: str | None, base: Path | None):
        from panel.games.kaboom.scenario import parse_kaboom_scenario

        return parse_kaboom_scenario(raw, file=file, base=base)

    def print_log(self, result: dict[str, Any]) -> None:
        from panel.games.kaboom.scenario import print_log

        print_log(result)


GAME = Kaboom()
