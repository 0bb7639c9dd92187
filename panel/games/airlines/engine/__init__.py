"""The rules engine: pure, deterministic, time passed in. See match.py and docs/rules.md."""

from panel.games.airlines.engine.cooperative import OUTCOMES, TABLE, rounds_for, tier_for
from panel.games.airlines.engine.match import (CARDS_PER_TURN, END_WHEN, MISTAKES_PER_TURN, PAUSES, Match, Phase, Refusal, allowed_actions, malformed,
                    refusal)
from panel.games.airlines.engine.settings import CREW, MODES, SETTINGS, MatchSettings, Setting, Team, default_teams, names

__all__ = ["Match", "MatchSettings", "Team", "Phase", "Refusal", "refusal", "malformed", "allowed_actions", "PAUSES",
           "MODES", "SETTINGS", "Setting", "names", "default_teams", "CREW", "CARDS_PER_TURN", "MISTAKES_PER_TURN",
           "TABLE", "OUTCOMES", "rounds_for", "tier_for", "END_WHEN"]
