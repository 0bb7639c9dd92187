"""Pengo Jump as a game of the cockpit: what the service, the pages, the store and the venue
ask of it (panel/games/base.py's `Game`), answered from the game's own modules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, _
from panel.core.schema import Bool, Field, Problems, Table
from panel.games.base import Build, Engine
from panel.games.pengo_jump import show
from panel.games.pengo_jump.debrief import COLUMNS, TITLES, debrief, record
from panel.games.pengo_jump.engine import BOX, GAME_ID, IN_BAG, ON_BOARD, PENGUINS, TOKENS, PengoMatch
from panel.games.pengo_jump.events import ACTIONS, EVENT_TYPES, KIND_NAMES, SIZE_NAMES
from panel.games.pengo_jump.mapping_file import panel_for
from panel.games.pengo_jump.settings import FORM, MAX_PLAYERS, MODE_NAMES, PengoSettings

OUTCOMES = {"won": N_("won: every penguin home before nightfall"), "lost": N_("lost: night fell on the ice"),
            "abandoned": N_("abandoned")}
# What a report on the panel is, for the TV's key of the buttons (each named by what it is on the panel).
ROLE_WORDS = {"snowy": N_("drew a snowy chunk"), "sea_lion": N_("drew a sea lion chunk"),
              "frosty": N_("drew a frosty chunk"), "home": N_("a penguin reached the iceberg"),
              "fell": N_("a penguin fell off"), "small_sea_lion": N_("hopped onto a small sea lion"),
              "large_sea_lion": N_("hopped onto a large sea lion"), "end_turn": N_("end of my turn"),
              "small_token_fell": N_("a small sea lion token fell"),
              "large_token_fell": N_("a large sea lion token fell"), "start": N_("the same group again")}
# The same, short, for the simulator's captions under the buttons (the draws: the kind's name).
ROLE_CAPTIONS = {"home": N_("home"), "fell": N_("fell off"), "small_sea_lion": N_("small sea lion"),
                 "large_sea_lion": N_("large sea lion"), "end_turn": N_("end turn"),
                 "small_token_fell": N_("small token fell"), "large_token_fell": N_("large token fell"),
                 "start": N_("again")}
DEFAULTS_TABLE = Table(fields={"mode": Field(), "players": Field(), "walk_up": Bool(default=False)})


class PengoJump:
    id = GAME_ID
    title = N_("Pengo Jump")
    actions = ACTIONS
    event_types = EVENT_TYPES
    settings_table = "pengo_jump"
    at_venue = False  # a cooperative game scores nothing on a venue's leaderboard: the cockpit is idle to it
    result_limits = None  # nothing of it is counted at a venue (Game.result_limits)
    lists_outcome = True  # "finished" says nothing: won or lost
    show = show
    columns = COLUMNS
    table_titles = TITLES

    # ------------------------------------------------------------------ matches
    def _match(self, raw: dict[str, Any], layout_path: str | None, positions: dict[str, str]) -> PengoMatch:
        settings = PengoSettings.from_dict(raw)
        layout, mapping = panel_for(layout_path)
        match = PengoMatch(settings, mapping, layout=layout, positions=positions)
        match.layout_path = layout_path  # stored with the game: its replay reads the same panel
        return match

    def from_stored(self, settings: dict[str, Any], positions: dict[str, str]) -> PengoMatch:
        own = {k: v for k, v in settings.items() if k in FORM}
        return self._match(own, settings.get("layout"), positions)

    def set_up(self, body: dict[str, Any], *, build: Build, positions: dict[str, str], language: str) -> PengoMatch:
        """The form's (or the walk-up's) mode and players over the settings file's [pengo_jump]."""
        defaults = {k: v for k, v in build.defaults_of(self.id).items() if k in FORM}
        return self._match({**defaults, **body}, build.layout_path, dict(positions))

    def stored_settings(self, engine: PengoMatch) -> dict[str, Any]:
        layout = getattr(engine, "layout_path", None)
        return {**engine.settings.as_dict(), **({"layout": layout} if layout else {})}

    def check_defaults(self, table: dict[str, Any], *, file: str) -> list[Problem]:
        """The settings file's [pengo_jump]: the mode and players a game set up at the panel
        plays with, and whether a draw button pressed between games sets one up (walk_up)."""
        problems = Problems(file)
        DEFAULTS_TABLE.read(table, self.settings_table, problems)
        problems.collect(lambda: PengoSettings.from_dict({k: v for k, v in table.items() if k in FORM}, file=file,
                                                         key=self.settings_table))
        return problems.found

    def form(self, build: Build, tr: Any) -> dict[str, Any]:
        defaults = build.defaults_of(self.id)
        return {"available": True, "modes": list(MODE_NAMES), "max_players": MAX_PLAYERS,
                "defaults": {k: defaults[k] for k in FORM if k in defaults}}

    def describe(self, engine: PengoMatch, code: str) -> str:
        s = engine.settings
        return f"Pengo Jump, {s.mode}, {len(s.players)} player(s)"

    # ------------------------------------------------------------------ walk-up
    def walks_up(self, control: str, *, build: Build, last: dict[str, Any] | None) -> bool:
        """After a game of Pengo Jump (`last`), START plays the next one with the same group;
        a draw button sets one up where the settings file's [pengo_jump] says walk_up = true."""
        try:
            _layout, mapping = panel_for(build.layout_path)
        except ConfigError:
            return False
        role = mapping.role(control) if mapping is not None else None
        if role == "start":
            return last is not None
        return role in KIND_NAMES and (last is not None or build.walk_up.get(self.id, False))

    def walk_up_body(self, control: str, last: dict[str, Any] | None, last_engine: Engine | None, *,
                     build: Build, language: str) -> dict[str, Any]:
        return {k: last[k] for k in FORM if last and k in last}

    walk_up_problem = N_("A Pengo Jump button could not set up a game ({why}): set it up on the game master's page")

    # ------------------------------------------------------------------ what people see
    def present(self, state: dict[str, Any], engine: PengoMatch, tr: Any) -> dict[str, Any]:
        """The state with each button the game uses named by what it is on this panel, in
        the reader's language (the TV's key of the buttons)."""
        if engine.mapping is not None and engine.layout is not None:
            state["buttons"] = {role: {"control": cid, "name": engine.layout.plain_name(cid, tr),
                                       "colour": engine.layout.control(cid).colour}
                                for role, cid in engine.mapping.buttons.items()}
        return state

    def present_event(self, event: dict[str, Any], engine: PengoMatch | None, tr: Any) -> dict[str, Any]:
        return event

    def tower_card(self, card: dict[str, Any], engine: PengoMatch) -> dict[str, Any]:
        return card  # no tower

    def pages(self, tr: Any) -> dict[str, Any]:
        return {"title": tr.gettext(self.title), "columns": {k: list(v) for k, v in COLUMNS.items()},
                "tables": {k: tr.gettext(v) for k, v in TITLES.items()},
                "names": {"kind": {k: tr.gettext(v) for k, v in KIND_NAMES.items()},
                          "size": {k: tr.gettext(v) for k, v in SIZE_NAMES.items()},
                          "mode": {k: tr.gettext(v) for k, v in MODE_NAMES.items()},
                          "outcome": {k: tr.gettext(v) for k, v in OUTCOMES.items()},
                          "role": {k: tr.gettext(v) for k, v in ROLE_WORDS.items()},
                          "caption": {k: tr.gettext(v) for k, v in ROLE_CAPTIONS.items()}},
                "box": {"chunks": BOX, "on_board": ON_BOARD, "in_bag": IN_BAG, "penguins": PENGUINS, "tokens": TOKENS}}

    # ------------------------------------------------------------------ afterwards
    def summary(self, engine: PengoMatch, events: list[Any]) -> dict[str, Any]:
        return {"finished": engine.finished, "outcome": engine.outcome, "reason": engine.reason,
                "mode": engine.settings.mode, "players": list(engine.players), "bag": dict(engine.bag),
                "left": engine.left, "home": engine.home, "turn": engine.turn,
                "tokens": None if engine.tokens is None else {s: dict(v) for s, v in engine.tokens.items()},
                "tables": debrief([e.as_dict() for e in events], engine.players)}

    def summary_in_language(self, result: dict[str, Any], tr: Any) -> dict[str, Any] | None:
        return None

    def tables(self, events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        players = max((e["by"] for e in events if "by" in e), default=0) + 1
        return debrief(events, [""] * players)

    def headline(self, result: dict[str, Any]) -> str:
        from panel.games.pengo_jump.scenario import headline

        return headline(result)

    def venue_result(self, engine: PengoMatch) -> dict[str, Any] | None:
        return None

    def listing(self, settings: dict[str, Any]) -> dict[str, Any]:
        players = settings.get("players", [])
        return {"mode": settings.get("mode"), "teams": [p if isinstance(p, str) else "" for p in players]
                if isinstance(players, list) else []}

    def record(self, listed: list[dict[str, Any]]) -> dict[str, Any]:
        """The café's record (`Game.record`, base.py): games, won, by mode, by number of players."""
        return record({"mode": m.get("mode"), "players": len(m.get("teams") or []), "outcome": m.get("outcome")}
                      for m in listed)

    # ------------------------------------------------------------------ scenarios
    def read_scenario(self, raw: dict[str, Any], *, file: str | None, base: Path | None):
        from panel.games.pengo_jump.scenario import parse_pengo_scenario

        return parse_pengo_scenario(raw, file=file, base=base)

    def print_log(self, result: dict[str, Any]) -> None:
        from panel.games.pengo_jump.scenario import print_log

        print_log(result)


GAME = PengoJump()
