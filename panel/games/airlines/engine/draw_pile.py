"""The instruction deck in play: drawn from the top, reshuffled from the used cards."""

from __future__ import annotations

import random
from collections import deque

from panel.games.airlines.cards import Card


class DrawPile:
    """Cards face down, and the used ones (completed or discarded) face up beside them.

    All shuffling goes through one `random.Random(seed)`, so a match is deterministic.
    """

    def __init__(self, cards: list[Card], *, seed: int, shuffle: bool = True):
        self._rng = random.Random(seed)
        cards = list(cards)
        if shuffle:
            self._rng.shuffle(cards)
        self._pile: deque[Card] = deque(cards)
        self._used: list[Card] = []

    def __len__(self) -> int:
        return len(self._pile)

    @property
    def used(self) -> int:
        return len(self._used)

    def draw(self) -> tuple[Card, bool]:
        """The top card, and whether the used cards had to be reshuffled to get it."""
        reshuffled = False
        if not self._pile:
            if not self._used:
                raise IndexError("the deck is empty")
            cards, self._used = self._used, []
            self._rng.shuffle(cards)
            self._pile.extend(cards)
            reshuffled = True
        return self._pile.popleft(), reshuffled

    def reshuffle_used_on_top(self) -> int:
        """Shuffle the used cards onto the top of the pile (when every card left in it had
        to be skipped); returns how many came back."""
        cards, self._used = self._used, []
        self._rng.shuffle(cards)
        self._pile.extendleft(reversed(cards))
        return len(cards)

    def put_bottom(self, card: Card) -> None:
        self._pile.append(card)

    def set_aside(self, card: Card) -> None:
        """A completed or discarded card: out of play until the next reshuffle."""
        self._used.append(card)
