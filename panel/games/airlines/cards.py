"""Flight instruction cards: the four kinds, the TOML deck format, and feasibility (the
plain model the engine receives; a deck file is read by panel.games.airlines.deck_file).

A deck file (written by hand or by `penguin-panel deck generate`):

    side = "blue"          # which printed side of the panel the deck is for
    expansion = false      # true when the deck holds expansion cards

    [[cards]]
    kind = "simple"                              # press buttons, set tokens
    press = ["grid.r3c4"]
    set = { "round_lever.blue" = "1" }

    [[cards]]
    kind = "sequence"                            # directions on a cross, then OK
    section = "cross"
    steps = ["up", "up", "down", "right"]

    [[cards]]
    kind = "coordinates"                         # expansion: cells of a grid, then OK
    section = "roman"
    steps = ["A1", "C3", "D1"]

    [[cards]]
    kind = "activation"                          # expansion: a word on the keypad, then OK
    word = "FNAP"

Optional on every card: `number` (printed on the card), `expansion` (the star; cards of
kinds coordinates and activation always carry it), and for sequence kinds `colours`,
the colour sequence printed along the bottom (computed from the layout when absent).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from panel.core.i18n import N_, Text, Word
from panel.core.layout import DIRECTIONS, Layout

CARD_KINDS = ("simple", "sequence", "coordinates", "activation")
SEQUENCE_KINDS = ("sequence", "coordinates", "activation")


@dataclass(frozen=True)
class Card:
    kind: str
    press: tuple[str, ...] = ()
    set: tuple[tuple[str, str], ...] = ()  # (token id, position), in card order
    section: str | None = None
    steps: tuple[str, ...] = ()  # directions, coordinates, or the word's letters
    word: str | None = None
    colours: tuple[str, ...] = ()
    number: int | None = None
    expansion: bool = False

    @property
    def targets(self) -> dict[str, str]:
        return dict(self.set)

    @property
    def is_sequence(self) -> bool:
        return self.kind in SEQUENCE_KINDS

    def label(self) -> str:
        """A short human description, for logs and one-line messages."""
        n = f"#{self.number} " if self.number is not None else ""
        if self.kind == "simple":
            parts = [f"press {b}" for b in self.press] + [f"{t}->{p}" for t, p in self.set]
            return f"{n}simple: " + ", ".join(parts)
        if self.kind == "activation":
            return f"{n}activation: {self.word}"
        return f"{n}{self.kind} on {self.section}: " + " ".join(self.steps)

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {}
        if self.number is not None:
            d["number"] = self.number
        d["kind"] = self.kind
        if self.kind == "simple":
            if self.press:
                d["press"] = list(self.press)
            if self.set:
                d["set"] = dict(self.set)
        elif self.kind == "activation":
            d["word"] = self.word
            if self.section:  # which keypad, when the generator or the author named one
                d["section"] = self.section
        else:
            d["section"] = self.section
            d["steps"] = list(self.steps)
        if self.colours:
            d["colours"] = list(self.colours)
        if self.expansion:
            d["expansion"] = True
        return d


@dataclass
class Deck:
    side: str
    expansion: bool
    cards: list[Card] = field(default_factory=list)
    seed: int | None = None
    source: str | None = field(default=None, compare=False)  # the file it was read from, not content
    layout: str | None = None  # the layout file the deck was made for, when not the default


# ---------------------------------------------------------------------------- feasibility

def sequence_buttons(card: Card, layout: Layout) -> tuple[str, ...]:
    """The button ids a sequence-type card asks for, in order (without the final OK)."""
    section = layout.sections[card_section(card, layout)]
    return tuple(section.roles[s] for s in card.steps)


def card_section(card: Card, layout: Layout) -> str:
    """The section a sequence-type card acts on (activation cards find the keypad)."""
    if card.section:
        return card.section
    for s in layout.sections.values():
        if s.kind == "keypad" and all(ch in s.roles for ch in card.steps):
            return s.id
    raise KeyError("keypad")


def colour_sequence(card: Card, layout: Layout) -> tuple[str, ...]:
    return tuple(layout.buttons[b].colour for b in sequence_buttons(card, layout))


def check_card(card: Card, layout: Layout) -> list[Text]:
    """Reasons this card cannot be played on this layout (empty when it can), each said in
    the language of whoever shows it (`str()` is English)."""
    why: list[Text] = []
    if card.kind == "simple":
        for b in card.press:
            if b not in layout.buttons:
                why.append(Text(N_("button '{id}' is not on the {panel}"), id=b, panel=_panel(layout)))
        for t, p in card.set:
            tok = layout.tokens.get(t)
            if tok is None:
                why.append(Text(N_("token '{id}' is not on the {panel}"), id=t, panel=_panel(layout)))
            elif p not in tok.positions:
                why.append(Text(N_("token '{id}' has no position '{position}' (it has {positions})"), id=t,
                                position=p, positions=", ".join(tok.positions)))
        n = len(card.press) + len(card.set)
        if not 1 <= n <= 4:
            why.append(Text(N_("a simple card gives 1 to 4 instructions, this one gives {n}"), n=n))
        return why
    want = {"sequence": "sequence", "coordinates": "coordinates", "activation": "keypad"}[card.kind]
    if card.kind == "activation" and not card.section:
        try:
            sid = card_section(card, layout)
        except KeyError:
            return [Text(N_("no keypad on the {panel} can type '{word}'"), panel=_panel(layout), word=card.word)]
    else:
        sid = card.section
    section = layout.sections.get(sid or "")
    if section is None:
        return [Text(N_("section '{section}' is not on the {panel}"), section=sid, panel=_panel(layout))]
    if section.kind != want:
        return [Text(_WRONG_SECTION[card.kind], section=sid, kind=section.kind)]
    for s in card.steps:
        if s not in section.roles or s == "ok":
            why.append(Text(_NO_STEP[card.kind], section=sid, step=s))
    if card.kind == "sequence" and any(s not in DIRECTIONS for s in card.steps):
        why.append(Text(N_("sequence steps must be directions: up, down, left, right")))
    if not why and card.colours:
        actual = tuple(layout.buttons[section.roles[s]].colour for s in card.steps)
        if tuple(card.colours) != actual:
            why.append(Text(N_("colour sequence {colours} does not match the panel's {actual} on the {side} side"),
                            colours=", ".join(card.colours), actual=", ".join(actual), side=Word(layout.side)))
    return why


# Why a sequence-type card cannot be played, one message for each kind of card.
_WRONG_SECTION = {"sequence": N_("section '{section}' is a {kind} section, a sequence card needs a sequence section"),
                  "coordinates": N_("section '{section}' is a {kind} section, a coordinates card needs a "
                                    "coordinates section"),
                  "activation": N_("section '{section}' is a {kind} section, an activation card needs a "
                                   "keypad section")}
_NO_STEP = {"sequence": N_("section '{section}' has no direction '{step}'"),
            "coordinates": N_("section '{section}' has no coordinate '{step}'"),
            "activation": N_("section '{section}' has no letter '{step}'")}


def with_colours(card: Card, layout: Layout) -> Card:
    """The card with its colour sequence filled in from the layout (sequence kinds only)."""
    if not card.is_sequence or card.colours:
        return card
    return replace(card, colours=colour_sequence(card, layout))


def _panel(layout: Layout) -> Text:
    return Text(_PANEL[layout.side, layout.expansion])


_PANEL = {("blue", False): N_("blue side (base game)"), ("blue", True): N_("blue side with the expansion"),
          ("gray", False): N_("gray side (base game)"), ("gray", True): N_("gray side with the expansion")}
