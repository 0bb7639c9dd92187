"""The instruction deck, generated from a layout and a seed.

The printed game has 60 flight instruction cards plus 20 expansion cards (with a star).
We do not reproduce the printed cards; we deal a deck of the same shape for whatever
panel the layout describes, so a home-made panel with other sections still gets a
playable deck:

- simple cards, 1 to 4 instructions each: token-only, button-only and mixed. A card's
  tokens come from one section where they can ("blue on 1, red on 0, white on 2"), its
  buttons from one section likewise, the way the printed cards point at one area;
- sequence cards of 3 to 6 directions, spread over every sequence section (a cross);
- expansion: coordinate sequences of 3 to 6 cells spread over every coordinates
  section, and activation words of 3 to 6 letters typeable on a keypad.

Everything is derived from the `Layout` and drawn from one `random.Random(seed)` while
walking the layout in file order, so a (layout file, side, seed) always gives the same
deck. Every card passes `check_card` against the layout it was made for.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Sequence

from panel.games.airlines.cards import Card, Deck, check_card, with_colours
from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, Word
from panel.core.layout import DIRECTIONS, Layout, Section

# The shape of the printed deck (60 base + 20 expansion cards).
TOKEN_ONLY, BUTTON_ONLY, MIXED, SEQUENCES = 13, 13, 14, 20
COORDINATES, ACTIVATIONS = 10, 10
BASE_CARDS = TOKEN_ONLY + BUTTON_ONLY + MIXED + SEQUENCES
EXPANSION_CARDS = COORDINATES + ACTIVATIONS

MIN_STEPS, MAX_STEPS = 3, 6
MAX_INSTRUCTIONS = 4
# How many instructions a simple card gives, as weights: mostly 2-3 like the printed ones.
_TOKEN_COUNTS = {1: 2, 2: 3, 3: 4, 4: 1}
_BUTTON_COUNTS = {1: 3, 2: 4, 3: 3, 4: 1}
_MIXED_COUNTS = {2: 4, 3: 4, 4: 2}
_STEP_COUNTS = {3: 3, 4: 4, 5: 2, 6: 1}

VOWELS = frozenset("AEIOUY")
# Attempts at a fresh card before a duplicate is accepted: a tiny panel may simply not
# have 13 different button-only cards in it, and a deck with a repeat is still playable.
_FRESH_TRIES = 60
_WORD_TRIES = 2000


def generate_deck(layout: Layout, *, seed: int, expansion: bool | None = None) -> Deck:
    """A deck for this layout and side: 60 base cards, plus 20 expansion cards when
    `expansion` (default: the layout's own setting). Raises ConfigError when the layout
    lacks a section some kind of card needs."""
    if expansion is None:
        expansion = layout.expansion
    if expansion and not layout.expansion:
        raise ConfigError(Problem(layout.source, None, Text(N_("an expansion deck needs the layout loaded with "
                                                               "the expansion modules (expansion=True)"))))
    gen = _Generator(layout, random.Random(seed))
    gen.require(expansion)
    cards = gen.base_cards()
    if expansion:
        cards += gen.expansion_cards()
    cards = [replace(c, number=i) for i, c in enumerate(cards, 1)]
    for c in cards:  # a generator bug must never reach a table as an unplayable card
        why = check_card(c, layout)
        if why:
            raise RuntimeError(f"deck generator bug: unplayable card {c.label()}: {'; '.join(map(str, why))}")
    return Deck(layout.side, expansion, cards, seed)


class _Generator:
    def __init__(self, layout: Layout, rng: random.Random):
        self.layout = layout
        self.rng = rng
        self.seen: set[tuple] = set()
        base = [s for s in layout.sections.values() if not s.expansion]
        # Base cards use base-module controls only, so they stay playable in both games.
        self.button_sections = [s for s in base if s.kind == "buttons"
                                and any(not layout.buttons[b].expansion for b in s.buttons)]
        self.token_sections = [s for s in base if s.kind == "tokens" and s.tokens]
        self.sequence_sections = [s for s in base if s.kind == "sequence"
                                  and len(_directions(s)) >= 2]
        self.coordinate_sections = [s for s in layout.sections.values() if s.kind == "coordinates"
                                    and len(_cells(s)) >= 2]
        self.keypads = [s for s in layout.sections.values() if s.kind == "keypad" and len(_letters(s)) >= 2]

    def require(self, expansion: bool) -> None:
        missing = []
        if not self.token_sections:
            missing.append(N_("'tokens' section (for token cards)"))
        if not self.button_sections:
            missing.append(N_("'buttons' section (for button cards)"))
        if not self.sequence_sections:
            missing.append(N_("'sequence' section (for sequence cards)"))
        if expansion and not self.coordinate_sections:
            missing.append(N_("'coordinates' section (for coordinate cards)"))
        if expansion and not self.keypads:
            missing.append(N_("'keypad' section (for activation cards)"))
        why = (N_("cannot make a deck for the {side} side with the expansion: the layout has no {section}")
               if self.layout.expansion else N_("cannot make a deck for the {side} side: the layout has no {section}"))
        if missing:
            raise ConfigError([Problem(self.layout.source, None, Text(why, side=Word(self.layout.side), section=Word(m)))
                               for m in missing])

    # -------------------------------------------------------------- dealing

    def base_cards(self) -> list[Card]:
        cards = [self.fresh(self.token_card) for _ in range(TOKEN_ONLY)]
        cards += [self.fresh(self.button_card) for _ in range(BUTTON_ONLY)]
        cards += [self.fresh(self.mixed_card) for _ in range(MIXED)]
        for section in _spread(self.sequence_sections, SEQUENCES):
            cards.append(self.fresh(lambda: self.sequence_card(section)))
        return cards

    def expansion_cards(self) -> list[Card]:
        cards = []
        for section in _spread(self.coordinate_sections, COORDINATES):
            cards.append(self.fresh(lambda: self.coordinate_card(section)))
        words: set[str] = set()
        for section in _spread(self.keypads, ACTIVATIONS):
            cards.append(self.activation_card(section, words))
        return cards

    def fresh(self, make) -> Card:
        """A card not dealt before, when the panel has one to give."""
        for _ in range(_FRESH_TRIES):
            card = make()
            key = _identity(card)
            if key not in self.seen:
                break
        self.seen.add(key)
        return card

    # -------------------------------------------------------------- kinds

    def token_card(self) -> Card:
        n = self.count(_TOKEN_COUNTS, sum(len(s.tokens) for s in self.token_sections))
        sets = self.tokens(n)
        starts = self.layout.start_positions()
        if all(starts[t] == p for t, p in sets):
            # A card whose every token already stands at its target when the panel is set
            # up would be done before anyone moves: move one target off the start.
            i = self.rng.randrange(len(sets))
            t = sets[i][0]
            others = [p for p in self.layout.tokens[t].positions if p != starts[t]]
            sets[i] = (t, self.rng.choice(others))
        return Card("simple", set=tuple(sets))

    def button_card(self) -> Card:
        n = self.count(_BUTTON_COUNTS, sum(len(self.pressable(s)) for s in self.button_sections))
        return Card("simple", press=tuple(self.buttons(n)))

    def mixed_card(self) -> Card:
        n = self.rng.choices(list(_MIXED_COUNTS), weights=list(_MIXED_COUNTS.values()))[0]
        n_buttons = self.rng.randint(1, n - 1)
        sets = self.tokens(n - n_buttons)
        # Often the buttons sit on the same module card as the tokens (clicks and beacons).
        module = self.layout.tokens[sets[0][0]].module if self.rng.random() < 0.5 else None
        return Card("simple", press=tuple(self.buttons(n_buttons, near=module)), set=tuple(sets))

    def sequence_card(self, section: Section) -> Card:
        dirs = _directions(section)
        steps = [self.rng.choice(dirs) for _ in range(self.count(_STEP_COUNTS, MAX_STEPS))]
        return with_colours(Card("sequence", section=section.id, steps=tuple(steps)), self.layout)

    def coordinate_card(self, section: Section) -> Card:
        cells = _cells(section)
        n = self.count(_STEP_COUNTS, MAX_STEPS)
        if len(cells) >= n:
            steps = self.rng.sample(cells, n)  # different cells, like the printed cards
        else:  # a small grid: cells may come back, but never twice in a row (unfair to call)
            steps = [self.rng.choice(cells)]
            while len(steps) < n:
                steps.append(self.rng.choice([c for c in cells if c != steps[-1]]))
        card = Card("coordinates", section=section.id, steps=tuple(steps), expansion=True)
        return with_colours(card, self.layout)

    def activation_card(self, section: Section, words: set[str]) -> Card:
        letters = _letters(section)
        for _ in range(_WORD_TRIES):
            word = make_word(self.rng, self.count(_STEP_COUNTS, MAX_STEPS), letters)
            if word not in words:
                break
        else:
            raise ConfigError(Problem(self.layout.source, f"sections.{section.id}",
                                      Text(N_("cannot find enough different activation words on this keypad"))))
        words.add(word)
        card = Card("activation", section=section.id, word=word, steps=tuple(word), expansion=True)
        return with_colours(card, self.layout)

    # -------------------------------------------------------------- parts

    def count(self, weights: dict[int, int], at_most: int) -> int:
        options = [k for k in weights if k <= at_most] or [min(weights)]
        return self.rng.choices(options, weights=[weights[k] for k in options])[0]

    def pressable(self, section: Section) -> list[str]:
        return [b for b in section.buttons if not self.layout.buttons[b].expansion]

    def buttons(self, n: int, near: str | None = None) -> list[str]:
        """n different buttons, from one section while it has enough, in panel order
        (from a section of module `near` first, when there is one)."""
        return self._pick(self.button_sections, self.pressable, n, near)

    def tokens(self, n: int) -> list[tuple[str, str]]:
        """n different tokens with a target each, from one section while it has enough."""
        chosen = self._pick(self.token_sections, lambda s: list(s.tokens), n)
        return [(t, self.rng.choice(self.layout.tokens[t].positions)) for t in chosen]

    def _pick(self, sections: list[Section], members, n: int, near: str | None = None) -> list[str]:
        order = list(sections)
        self.rng.shuffle(order)
        # Prefer a section that can give all n on its own: one area per card where possible.
        order.sort(key=lambda s: (s.module != near, len(members(s)) < n))
        picked: list[str] = []
        for section in order:
            pool = [m for m in members(section) if m not in picked]
            take = self.rng.sample(pool, min(len(pool), n - len(picked)))
            picked += [m for m in pool if m in take]  # keep panel order within a section
            if len(picked) == n:
                break
        return picked


def make_word(rng: random.Random, length: int, letters: Sequence[str]) -> str:
    """A made-up word the tower can read aloud ("FNAP"): letters from the keypad, never
    more than two consonants or two vowels in a row, no letter twice in a row."""
    vowels = [c for c in letters if c in VOWELS]
    consonants = [c for c in letters if c not in VOWELS]
    if not vowels or not consonants:  # nothing to pronounce with: any letters will do
        word = [rng.choice(letters)]
        while len(word) < length:
            word.append(rng.choice([c for c in letters if c != word[-1]]))
        return "".join(word)
    while True:
        word: list[str] = []
        run_c = run_v = 0
        vowel = rng.random() < 0.3  # most printed words start with a consonant
        for _ in range(length):
            if run_c >= 2:
                vowel = True
            elif run_v >= 2:
                vowel = False
            pool = [c for c in (vowels if vowel else consonants) if not word or c != word[-1]]
            if not vowel and run_c == 1 and len(word) == 1:
                # Two consonants open a word only as a speakable onset: FN, PL, ST ...
                pool = [c for c in pool if (word[0] in "FKPT" and c in "LRN") or (word[0] == "S" and c in "KLNPT")]
            elif not vowel and run_c == 1 and len(word) == length - 1:
                # ... and close it only as a speakable coda: NT, RK, LP, SK ...
                pool = [c for c in pool if word[-1] in "LNRS" and c in "KPTS"]
            if not pool:
                pool = vowels if not vowel else consonants
                vowel = not vowel
            word.append(rng.choice(pool))
            run_c, run_v = (0, run_v + 1) if vowel else (run_c + 1, 0)
            # Next letter: usually switch between consonant and vowel, sometimes cluster.
            vowel = (not vowel) if rng.random() < 0.75 else vowel
        if any(c in VOWELS for c in word):
            return "".join(word)


def _identity(card: Card) -> tuple:
    if card.kind == "simple":
        return ("simple", frozenset(card.press), frozenset(card.set))
    return (card.kind, card.section, card.steps)


def _spread(sections: list[Section], n: int) -> list[Section]:
    """n cards dealt over the sections in turn: 20 over two crosses gives 10 each."""
    return [sections[i % len(sections)] for i in range(n)]


def _directions(section: Section) -> list[str]:
    return [d for d in DIRECTIONS if d in section.roles]


def _cells(section: Section) -> list[str]:
    return [r for r in section.roles if r != "ok"]


def _letters(section: Section) -> list[str]:
    return [r for r in section.roles if r != "ok"]
