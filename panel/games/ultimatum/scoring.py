"""Penguin Ultimatum's scoring, pure: who gets an entertainer card after a performance
(Ultimatum rule 5), the end's points for entertainers (Ultimatum rules 9 and 10), the winner by the
rulebook's tie-breaks (Ultimatum rule 11), and each player's breakdown as one line for people."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from panel.core.i18n import SOURCE, translations
from panel.games.ultimatum.cards import ANIMALS, ENTERTAINER_COLOURS, MOST, TIED, card_parts

FORM_POINTS = 2  # Ultimatum rule 9: each entertainer whose form matches the owner's performance card
MAJORITY = 5  # Ultimatum rule 10: the one player with the most entertainers of a colour
SHARED_MAJORITY = 3  # each of the players tied for the most
# Ultimatum rule 11: the tie-breaks after the points, in order (the last is asked of the table).
TIE_BREAKS = ("entertainer_points", "entertainer_cards")


def entertainer_to(points: Mapping[str, int]) -> tuple[str | None, str]:
    """Ultimatum rule 5: (the player who gets the card, "fewest"), or (None, "tied") when
    several tie for the fewest non-zero points, or (None, "nobody") when nobody scored."""
    scored = {p: n for p, n in points.items() if n > 0}
    if not scored:
        return None, "nobody"
    fewest = min(scored.values())
    low = [p for p, n in scored.items() if n == fewest]
    return (low[0], "fewest") if len(low) == 1 else (None, "tied")


def holders(cards: Mapping[str, list[str]], colour: str) -> tuple[list[str], int]:
    """Who holds the most entertainers of `colour` now, and how many (nobody: [], 0)."""
    counts = {p: sum(1 for c in held if card_parts(c)[0] == colour) for p, held in cards.items()}
    most = max(counts.values(), default=0)
    return ([p for p, n in counts.items() if n == most] if most else []), most


@dataclass(frozen=True)
class Final:
    """One player's end scoring (Ultimatum rules 9 and 10)."""

    player: str
    base: int  # the points on their counting card when the game ended
    form: str  # their performance card
    matching: int  # their entertainers of that form
    majorities: tuple[tuple[str, bool], ...]  # (entertainer colour, tied) for each colour they lead
    cards: int  # the entertainer cards they hold

    @property
    def form_points(self) -> int:
        return FORM_POINTS * self.matching

    @property
    def majority_points(self) -> int:
        return sum(SHARED_MAJORITY if tied else MAJORITY for _colour, tied in self.majorities)

    @property
    def entertainer_points(self) -> int:
        return self.form_points + self.majority_points

    @property
    def total(self) -> int:
        return self.base + self.entertainer_points

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "base": self.base, "form": self.form, "matching": self.matching,
                "form_points": self.form_points,
                "majorities": [{"colour": c, "animal": ANIMALS[c], "tied": tied,
                                "points": SHARED_MAJORITY if tied else MAJORITY} for c, tied in self.majorities],
                "entertainer_points": self.entertainer_points, "cards": self.cards, "total": self.total}


def final_scoring(scores: Mapping[str, int], forms: Mapping[str, str],
                  cards: Mapping[str, list[str]]) -> dict[str, Final]:
    """Every player's end scoring from their points, performance cards and entertainer cards."""
    leads: dict[str, list[tuple[str, bool]]] = {p: [] for p in scores}
    for colour in ENTERTAINER_COLOURS:
        top, _most = holders(cards, colour)
        for p in top:
            leads[p].append((colour, len(top) > 1))
    return {p: Final(p, scores[p], forms[p], sum(1 for c in cards[p] if card_parts(c)[1] == forms[p]),
                     tuple(leads[p]), len(cards[p])) for p in scores}


def winner(finals: Mapping[str, Final], shorter: str | None = None) -> tuple[str | None, str | None, list[str]]:
    """Ultimatum rule 11: (the winner, why, the players still tied after every count). The
    winner is None while the table has not said who of the tied players is shorter."""
    top = _best(list(finals), lambda p: finals[p].total)
    if len(top) == 1:
        return top[0], "points", []
    measures = {"entertainer_points": lambda p: finals[p].entertainer_points,
                "entertainer_cards": lambda p: finals[p].cards}
    for reason in TIE_BREAKS:
        top = _best(top, measures[reason])
        if len(top) == 1:
            return top[0], reason, []
    return (shorter, "shorter", top) if shorter in top else (None, None, top)


def _best(players: list[str], measure) -> list[str]:
    most = max(measure(p) for p in players)
    return [p for p in players if measure(p) == most]


# The entertainers that match a performance card, counted, in the reader's language ("2 dancers").
PERFORMERS = {
    "juggling": lambda tr, n: tr.ngettext("{n} juggler", "{n} jugglers", n),
    "acrobatics": lambda tr, n: tr.ngettext("{n} acrobat", "{n} acrobats", n),
    "dance": lambda tr, n: tr.ngettext("{n} dancer", "{n} dancers", n),
    "music": lambda tr, n: tr.ngettext("{n} musician", "{n} musicians", n),
}


def line(final: Mapping[str, Any], name: str, tr: Any = None) -> str:
    """A player's breakdown in one line, in the language of `tr` (English without it):
    "Lea: 41 + 4 (2 dancers) + 5 (most sheep) + 3 (seals, tied) = 53"."""
    tr = tr or translations(SOURCE)
    parts = [f"{name}: {final['base']}"]
    if final["matching"]:
        counted = PERFORMERS[final["form"]](tr, final["matching"]).format(n=final["matching"])
        parts.append(f"+ {final['form_points']} ({counted})")
    for m in final["majorities"]:
        parts.append(f"+ {m['points']} ({tr.gettext(TIED[m['animal']] if m['tied'] else MOST[m['animal']])})")
    parts.append(f"= {final['total']}")
    return " ".join(parts)
