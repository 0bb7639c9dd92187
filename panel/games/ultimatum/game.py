"""Penguin Ultimatum as a game of the cockpit: its scorekeeper (panel/games/base.py's `Game`),
answered from the game's own modules.

The scorer enters the game on the game master's page (/admin, on a phone): each entry is
an action through the cockpit's one action path (POST /api/admin/action), logged before
the engine sees it like every game master's action, so a restart or a replay of the log
gives the same sheet. The board (the TV) shows the scores, the entertainer cards and the
majorities; the debrief keeps the whole sheet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.errors import Problem
from panel.core.i18n import N_, Text, _
from panel.games.base import Build, Engine
from panel.games.ultimatum import show
from panel.games.ultimatum.cards import (ANIMAL_NAMES, ANIMALS, CARDS, COLOUR_NAMES, ENTERTAINER_COLOURS,
                                         ENTERTAINER_CSS, FORM_NAMES, FORMS, MAX_PLAYERS, MIN_PLAYERS, PLAYER_COLOURS,
                                         PLAYER_CSS, PLAYER_NAMES, START_POINTS)
from panel.games.ultimatum.debrief import COLUMNS, debrief
from panel.games.ultimatum.engine import UltimatumGame
from panel.games.ultimatum.events import ACTIONS, EVENT_TYPES
from panel.games.ultimatum.scenario import REASONS, lines, winner_text
from panel.games.ultimatum.settings import UltimatumSettings

TITLES = {"entries": N_("The score sheet: every entry, and the scores after it"),
          "standings": N_("The end: each player's points")}
# Each kind of entry, in words (the sheet on the phone, the debrief).
KINDS = {"add_player": N_("player"), "performance": N_("performance"), "penalty": N_("kinship penalty"),
         "end": N_("end of the game"), "shorter": N_("the shorter player")}


class Ultimatum:
    id = "ultimatum"
    title = N_("Penguin Ultimatum")
    actions = ACTIONS
    event_types = EVENT_TYPES
    settings_table = "ultimatum"
    # A venue's leaderboard counts Penguin Airlines teams: an Ultimatum game's points are not
    # theirs to add up (Ultimatum rule 14). The venue and Home Assistant see the cockpit idle.
    at_venue = False
    result_limits = None  # nothing of it is counted at a venue (Game.result_limits)
    lists_outcome = False  # finished says it: the debrief has the winner and the points
    show = show
    columns = COLUMNS
    table_titles = TITLES

    # ------------------------------------------------------------------ matches
    def from_stored(self, settings: dict[str, Any], positions: dict[str, str]) -> UltimatumGame:
        return UltimatumGame(UltimatumSettings.from_dict(settings, key=""), positions=positions)

    def set_up(self, body: dict[str, Any], *, build: Build, positions: dict[str, str],
               language: str) -> UltimatumGame:
        """The players the game master's form lists (none to four: more sit down by entries)."""
        return UltimatumGame(UltimatumSettings.from_dict(body, key=""), positions=dict(positions))

    def check_defaults(self, table: dict[str, Any], *, file: str) -> list[Problem]:
        """The settings file's [ultimatum] table: nothing to set yet (the players sit down
        for each game), so any key in it is a mistake worth a line."""
        return [Problem(file, f"{self.settings_table}.{k}", Text(N_("unknown setting for Penguin Ultimatum (it has "
                                                                    "none: the players are set up for each game)")))
                for k in table]

    def stored_settings(self, engine: UltimatumGame) -> dict[str, Any]:
        return engine.settings.as_dict()

    def form(self, build: Build, tr: Any) -> dict[str, Any]:
        return {"available": True, "colours": list(PLAYER_COLOURS), "forms": list(FORMS),
                "least": MIN_PLAYERS, "most": MAX_PLAYERS}

    def describe(self, engine: UltimatumGame, code: str) -> str:
        players = ", ".join(f"{p.colour} {p.name or ''}".strip() for p in engine.settings.players)
        return f"Ultimatum, players {players or 'to sit down'}"

    # ------------------------------------------------------------------ walk-up
    def walks_up(self, control: str, *, build: Build, last: dict[str, Any] | None) -> bool:
        return False  # the scorer sets a game up on the phone: no control of the panel is the game's

    def walk_up_body(self, control: str, last: dict[str, Any] | None, last_engine: Engine | None, *,
                     build: Build, language: str) -> dict[str, Any]:
        return {}

    walk_up_problem = N_("Penguin Ultimatum is set up on the game master's page ({why})")

    # ------------------------------------------------------------------ what people see
    def present(self, state: dict[str, Any], engine: UltimatumGame, tr: Any) -> dict[str, Any]:
        """The breakdown lines in the reader's language: the end's, and the end's if the game ended now."""
        return {**state, "lines": lines(state["players"], state.get("final"), tr),
                "lines_if_ended": lines(state["players"], state.get("if_ended"), tr)}

    def present_event(self, event: dict[str, Any], engine: UltimatumGame | None, tr: Any) -> dict[str, Any]:
        if engine is not None and event.get("final"):
            return {**event, "lines": lines(engine.snapshot()["players"], event["final"], tr)}
        return event

    def tower_card(self, card: dict[str, Any], engine: UltimatumGame) -> dict[str, Any]:
        return card  # no tower

    def pages(self, tr: Any) -> dict[str, Any]:
        """The names of the ids a game's state carries (players' colours, forms, entertainers'
        colours and animals, kinds of entry, the winner's reasons) and the pages' colours."""
        return {"title": tr.gettext(self.title), "columns": {k: list(v) for k, v in COLUMNS.items()},
                "tables": {k: tr.gettext(v) for k, v in TITLES.items()},
                "start_points": START_POINTS, "forms": list(FORMS), "colours": list(ENTERTAINER_COLOURS),
                "player_colours": list(PLAYER_COLOURS), "cards": list(CARDS),
                "names": {"player": {c: tr.pgettext("ultimatum player", n) for c, n in PLAYER_NAMES.items()},
                          "form": {f: tr.gettext(n) for f, n in FORM_NAMES.items()},
                          "colour": {c: tr.pgettext("entertainer", n) for c, n in COLOUR_NAMES.items()},
                          "animal": {c: tr.gettext(ANIMAL_NAMES[a]) for c, a in ANIMALS.items()},
                          "kind": {k: tr.gettext(n) for k, n in KINDS.items()},
                          "reason": {r: tr.gettext(n) for r, n in REASONS.items()}},
                "css": {"player": {c: {"css": css, "ink": ink} for c, (css, ink) in PLAYER_CSS.items()},
                        "entertainer": {c: {"css": css, "ink": ink} for c, (css, ink) in ENTERTAINER_CSS.items()}}}

    # ------------------------------------------------------------------ afterwards
    def summary(self, engine: UltimatumGame, events: list[Any]) -> dict[str, Any]:
        s = engine.snapshot()
        return {"finished": engine.finished, "ended_by": engine.ended_by, "winner": s["winner"],
                "reason": s["reason"], "tied": s["tied"], "scores": s["scores"], "players": s["players"],
                "out": s["out"], "final": s["final"], "lines": lines(s["players"], s["final"]),
                "entries": s["entries"],  # the sheet as it stands, each entry's row (the page words them)
                "tables": debrief([e.as_dict() for e in events])}

    def summary_in_language(self, result: dict[str, Any], tr: Any) -> dict[str, Any] | None:
        """The breakdown lines said again in the reader's language."""
        final = result.get("final")
        if not final:
            return None
        return {**result, "lines": lines(result.get("players", []), final, tr)}

    def tables(self, events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        return debrief(events)

    def headline(self, result: dict[str, Any]) -> str:
        said = _("Scores: {scores}").format(scores=", ".join(f"{k} {v}" for k, v in result["scores"].items()))
        if result.get("winner"):
            said += " · " + winner_text(result)
        return said

    def venue_result(self, engine: UltimatumGame) -> dict[str, Any] | None:
        return None  # see at_venue

    def listing(self, settings: dict[str, Any]) -> dict[str, Any]:
        return {"mode": None, "teams": [p.get("name") or p.get("player") for p in settings.get("players", [])
                                        if isinstance(p, dict)]}

    # ------------------------------------------------------------------ scenarios
    def read_scenario(self, raw: dict[str, Any], *, file: str | None, base: Path | None):
        from panel.games.ultimatum.scenario import parse_ultimatum_scenario

        return parse_ultimatum_scenario(raw, file=file, base=base)

    def print_log(self, result: dict[str, Any]) -> None:
        from panel.games.ultimatum.scenario import print_log

        print_log(result)


GAME = Ultimatum()
