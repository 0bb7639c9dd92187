"""The rules engine: pure, deterministic, time passed in. See match.py."""

from .cooperative import OUTCOMES, TABLE, rounds_for, tier_for
from .match import CARDS_PER_TURN, MISTAKES_PER_TURN, Match, Phase
from .settings import MODES, MatchSettings, Team

__all__ = ["Match", "MatchSettings", "Team", "Phase", "MODES", "CARDS_PER_TURN", "MISTAKES_PER_TURN",
           "TABLE", "OUTCOMES", "rounds_for", "tier_for"]
