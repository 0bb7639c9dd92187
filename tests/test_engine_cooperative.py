"""The rulebook's cooperative table: rounds and every tier boundary for every player count."""

import pytest

from panel.games.airlines.engine import OUTCOMES, TABLE, rounds_for, tier_for

# Copied by hand from the rulebook's table, independent of the module under test.
RULEBOOK = {
    2: (4, [(0, 10), (11, 15), (16, 20), (21, 28), (29, 36)]),
    3: (6, [(0, 14), (15, 21), (22, 28), (29, 40), (41, 54)]),
    4: (4, [(0, 10), (11, 15), (16, 20), (21, 28), (29, 36)]),
    5: (5, [(0, 12), (13, 18), (19, 24), (25, 34), (35, 45)]),
    6: (6, [(0, 14), (15, 21), (22, 28), (29, 40), (41, 54)]),
}
TIERS = ["Rookie", "Cadet", "Commander", "Captain", "Captain General"]


@pytest.mark.parametrize("players", sorted(RULEBOOK))
def test_rounds_by_player_count(players):
    assert rounds_for(players) == RULEBOOK[players][0]


@pytest.mark.parametrize("players", sorted(RULEBOOK))
def test_every_tier_boundary(players):
    for tier, (low, high) in zip(TIERS, RULEBOOK[players][1]):
        assert tier_for(players, low) == tier
        assert tier_for(players, high) == tier
    # one past the top stays in the top tier
    assert tier_for(players, RULEBOOK[players][1][-1][1] + 1) == "Captain General"


def test_every_tier_has_its_landing_outcome():
    assert sorted(OUTCOMES) == sorted(TIERS)
    assert OUTCOMES["Captain General"].startswith("You are heroes!")
    assert set(TABLE) == {2, 3, 4, 5, 6}


@pytest.mark.parametrize("lang", ["en", "es"])
def test_every_landing_in_both_languages(lang):
    """The engine keeps the English texts; a page or command shows them through the catalog."""
    from panel.core.i18n import translations

    tr = translations(lang)
    shown = {tr.gettext(tier): tr.gettext(OUTCOMES[tier]) for tier in TIERS}
    assert len(set(shown)) == len(TIERS) and len(set(shown.values())) == len(TIERS)
    if lang == "en":
        assert shown == OUTCOMES
    else:
        assert list(shown) == ["Novato", "Cadete", "Comandante", "Capitán", "Capitán General"]
        assert shown["Capitán General"].startswith("¡Sois unos héroes!")
        assert not set(shown.values()) & set(OUTCOMES.values())
