"""Penguin Airlines as a game of the cockpit: what the service, the pages, the store and the
venue ask of it (panel/games/base.py's `Game`), answered from the game's own modules."""

from __future__ import annotations

import secrets
from functools import lru_cache
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.games.airlines.events import ACTIONS, EVENT_TYPES, named
from panel.core.i18n import N_, _, translations
from panel.core.layout import Layout
from panel.core.layout_file import load_layout, whole_panel
from panel.games.airlines import show
from panel.games.airlines.debrief import COLUMNS, debrief
from panel.games.airlines.engine.settings import CHOICE_NAMES, MODES, PLAYERS_MAX, SETTINGS, TEAMS_MAX
from panel.games.names import NAME_MAX
from panel.games.airlines.engine import (CARDS_PER_TURN, CREW, MISTAKES_PER_TURN, Match, MatchSettings,
                                         default_teams, names)
from panel.games.base import Build, Engine, ResultLimits

TITLES = {"turns": N_("Turns: points, cards and mistakes"), "card_kinds": N_("Instruction types: time and mistakes"),
          "controls": N_("Controls that caused mistakes")}

_MOST_COUNTERS = int(next(s.high for s in SETTINGS if s.name == "time_counters"))
# What the rules let a result hold (rule 8: a point a card, five cards a turn, plus the
# counters held when five cards end it; rule 3: the second mistake ends the turn).
RESULT_LIMITS = ResultLimits(teams=TEAMS_MAX, name=NAME_MAX, players=TEAMS_MAX * PLAYERS_MAX,
                             turns=1000,  # 8 teams x 125 rounds: far past any café's match
                             turn_points=CARDS_PER_TURN + _MOST_COUNTERS, turn_cards=CARDS_PER_TURN,
                             turn_counters=_MOST_COUNTERS, turn_mistakes=MISTAKES_PER_TURN)


@lru_cache(maxsize=8)
def layout_for(path: str | None, side: str, expansion: bool) -> Layout:
    """The layout a match is played on (read once per file, side and expansion)."""
    return load_layout(path, side=side, expansion=expansion)


class Airlines:
    id = "airlines"
    title = N_("Penguin Airlines")
    actions = ACTIONS
    event_types = EVENT_TYPES
    settings_table = "match"
    at_venue = True
    result_limits = RESULT_LIMITS
    lists_outcome = False  # its status and teams say enough in the list; the debrief has the scores
    show = show
    columns = COLUMNS
    table_titles = TITLES

    # ------------------------------------------------------------------ matches
    def from_stored(self, settings: dict[str, Any], positions: dict[str, str]) -> Match:
        s = MatchSettings.from_dict(settings, key="")
        return Match(s, layout_for(s.layout, s.side, s.expansion), positions=positions)

    def set_up(self, body: dict[str, Any], *, build: Build, positions: dict[str, str], language: str) -> Match:
        """What the game master chose, over the defaults; the build's own (layout file, touch
        sensors) over both. Every match its own deck unless a seed is asked for. The match
        `prepare` made ready, when it was made for what is asked now (its tokens placed as
        they stand now)."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None and ahead[0] == self._asked(body, build, language):
            ahead[1].place(positions)
            return ahead[1]
        return self._made(body, build=build, positions=positions, language=language,
                          seed=ahead[1].settings.seed if ahead is not None else secrets.randbelow(2**31))

    def _made(self, body: dict[str, Any], *, build: Build, positions: dict[str, str], language: str,
              seed: int) -> Match:
        base = {**build.defaults_of(self.id), "seed": seed, "layout": build.layout_path,
                "touch_sensors": build.touch_sensors}
        # A cooperative crew listed as teams is one crew, named in the pages' language.
        settings = MatchSettings.from_dict(body, key="", allowed=names("form"), base=base).one_crew(
            translations(language).gettext(CREW))
        return Match(settings, layout_for(settings.layout, settings.side, settings.expansion),
                     positions=dict(positions))

    # (what `set_up` was asked, the match made for it): the next walk-up's match, made ahead
    _ahead: tuple[tuple, Match] | None = None
    _named: tuple | None = None  # present()'s finished turns named: (last turn, round's turns, layout, tr, their names)

    def prepare(self, last: dict[str, Any] | None, *, build: Build, positions: dict[str, str],
                language: str) -> None:
        """The match START at the panel sets up next with no match in play (after a match,
        the same group and rules again, a new deck), made ready while nobody presses: its seed chosen, its
        deck made and dealt (about 3 ms of CPU at full speed, 25 or more on a Pi Zero 2 W's
        share, that the press no longer pays). Another match asked for instead makes its
        own, with the seed chosen here (a seed asked for is its own)."""
        body = self.walk_up_body("", last, None, build=build, language=language)
        self._ahead = (self._asked(body, build, language),
                       self._made(body, build=build, positions=positions, language=language,
                                  seed=secrets.randbelow(2**31)))

    def _asked(self, body: dict[str, Any], build: Build, language: str) -> tuple:
        """Everything `set_up` makes a match from but the tokens' positions and the seed."""
        return body, build.defaults_of(self.id), build.layout_path, build.touch_sensors, language

    def check_defaults(self, table: dict[str, Any], *, file: str) -> list[Problem]:
        """The settings file's [match] table: the defaults for new matches and the build's
        touch sensors, with the same checks and one-line messages as a match set up on /admin."""
        try:
            MatchSettings.check_defaults(table, "file", file=file, key=self.settings_table)
        except ConfigError as e:
            return list(e.problems)
        return []

    def stored_settings(self, engine: Match) -> dict[str, Any]:
        return engine.settings.as_dict()

    def form(self, build: Build, tr: Any) -> dict[str, Any]:
        return {"available": True}

    def describe(self, engine: Match, code: str) -> str:
        s = engine.settings
        return f"{s.mode}, teams {', '.join(t.name for t in s.teams)}, join code {code}"

    # ------------------------------------------------------------------ walk-up
    def walks_up(self, control: str, *, build: Build, last: dict[str, Any] | None) -> bool:
        """START sets a match up (rule: a café's cockpit plays without anyone at /admin)."""
        return whole_panel(build.layout_path).cockpit_role(control) == "start"

    def walk_up_body(self, control: str, last: dict[str, Any] | None, last_engine: Engine | None, *,
                     build: Build, language: str) -> dict[str, Any]:
        if last is not None:  # the same settings again, a new deck
            return {k: v for k, v in last.items() if k in names("form") and k != "seed"}
        return {} if "teams" in build.defaults_of(self.id) else {"teams": default_teams(translations(language))}

    walk_up_problem = N_("START could not set up a match ({why}): set it up on the game master's page, "
                         "or name the teams and players in the settings file")

    # ------------------------------------------------------------------ what people see
    def present(self, state: dict[str, Any], engine: Match, tr: Any) -> dict[str, Any]:
        """The snapshot's controls named for the reader (the stuck finger's, this turn's and
        the round's), in the language of `tr` (English without it): the engine says ids."""
        layout = engine.layout
        state["stuck_name"] = layout.plain_name(state["stuck"], tr) if state.get("stuck") in layout else None
        last, turns = state.get("last_turn"), state.get("round_turns")
        # The finished turns named once per turn added, not at every press's state: the
        # engine keeps its view of them until a turn ends (read, never changed), and so
        # does this, for as long as it is that view, layout and language.
        named = self._named
        if named is None or named[0] is not last or named[1] is not turns or named[2] is not layout or named[3] is not tr:
            named = self._named = (last, turns, layout, tr, _turn_named(last, layout, tr) if last else last,
                                   [_turn_named(t, layout, tr) for t in turns] if turns else turns)
        state["last_turn"], state["round_turns"] = named[4], named[5]
        return state

    def present_event(self, event: dict[str, Any], engine: Match | None, tr: Any) -> dict[str, Any]:
        return named(event, engine.layout if engine is not None else None, tr)

    def tower_card(self, card: dict[str, Any], engine: Match) -> dict[str, Any]:
        """The card for the tower: a simple card gets the colours of its buttons, in card order."""
        card = dict(card)
        if "colours" not in card:
            buttons = engine.layout.buttons
            card["colours"] = [buttons[b].colour for b in card.get("press", []) if b in buttons]
        return card

    def pages(self, tr: Any) -> dict[str, Any]:
        """Also the names of the modes a match's settings carry."""
        return {"title": tr.gettext(self.title), "columns": {k: list(v) for k, v in COLUMNS.items()},
                "tables": {k: tr.gettext(v) for k, v in TITLES.items()},
                "names": {"mode": {m: tr.pgettext("a setting's choice", CHOICE_NAMES[m]) for m in MODES}}}

    # ------------------------------------------------------------------ afterwards
    def summary(self, engine: Match, events: list[Any]) -> dict[str, Any]:
        from panel.games.airlines.scenario import contract_events

        return {"scores": dict(engine.scores), "round": engine.round, "finished": engine.finished,
                "winner": engine.winner, "tier": engine.tier, "outcome": engine.outcome, "ended_by": engine.ended_by,
                "unscored": engine.unscored, "decided": engine.decided, "unplayed": engine.unplayed,
                "turns_played": engine.turns_played(),
                "cards_per_turn": CARDS_PER_TURN, "mistakes_per_turn": MISTAKES_PER_TURN,
                "tables": debrief([named(e, engine.layout, None) for e in contract_events(events)])}

    def summary_in_language(self, result: dict[str, Any], tr: Any) -> dict[str, Any] | None:
        """A stored summary's controls' plain names in the reader's language, made again from
        the match's layout; None when nothing changes (or the layout is gone)."""
        rows = result.get("tables", {}).get("controls")
        if not rows:
            return None
        try:
            stored = {k: v for k, v in result["settings"].items() if k != "game"}  # the registry's word
            settings = MatchSettings.from_dict(stored, key="")
            layout = layout_for(settings.layout, settings.side, settings.expansion)
        except (ConfigError, OSError, ValueError, KeyError, TypeError):
            return None  # the layout is gone or changed: the names as they were stored
        for row in rows:
            if row.get("control_id") in layout:
                row["control"] = layout.plain_name(row["control_id"], tr)
        return result

    def tables(self, events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        return debrief(events)

    def headline(self, result: dict[str, Any]) -> str:
        return _("Scores: {scores}").format(scores=", ".join(f"{k} {v}" for k, v in result["scores"].items()))

    def venue_result(self, engine: Match) -> dict[str, Any] | None:
        """A finished match for a venue: its teams, scores, result and turns (`Match.history`,
        the engine's own record of every turn played)."""
        s = engine.settings
        return {"mode": s.mode, "teams": [t.name for t in s.teams], "players": sum(len(t.players) for t in s.teams),
                "scores": dict(engine.scores), "winner": list(engine.winner) if engine.winner else None,
                "tier": engine.tier,
                "turns": [{"team": h["team"], "round": h["round"], "points": h["points"], "cards": len(h["completed"]),
                           "counters": h["counters"], "mistakes": h["mistakes"], "ended_by": h["reason"],
                           "seconds": round(max(0.0, h["ended"] - h["started"]), 1)} for h in engine.history]}

    def listing(self, settings: dict[str, Any]) -> dict[str, Any]:
        """A stored match in the debrief's picker: its mode and its teams."""
        return {"mode": settings.get("mode"),
                "teams": [t.get("name") for t in settings.get("teams", []) if isinstance(t, dict)]}

    # ------------------------------------------------------------------ scenarios
    def read_scenario(self, raw: dict[str, Any], *, file: str | None, base: Path | None):
        from panel.games.airlines.scenario import parse_airlines_scenario

        return parse_airlines_scenario(raw, file=file, base=base)

    def print_log(self, result: dict[str, Any]) -> None:
        from panel.games.airlines.scenario import print_log

        print_log(result)


def _turn_named(turn: dict[str, Any], layout: Layout, tr: Any) -> dict[str, Any]:
    return {**turn, "stuck_name": layout.plain_name(turn["stuck"], tr) if turn.get("stuck") in layout else None}


GAME = Airlines()
