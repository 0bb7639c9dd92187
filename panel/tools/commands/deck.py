"""`penguin-panel deck generate|check|print`: make an instruction deck, or check one against a panel.

    penguin-panel deck generate --side gray --expansion --seed 7 --out deck.toml
    penguin-panel deck check deck.toml

A deck file names its side and whether it holds the expansion; `check` loads the layout
that way, so a deck made for one panel can be checked against another with --layout.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

from panel.games.airlines.cards import Deck, check_card
from panel.games.airlines.deck_file import dump_deck, load_deck
from panel.games.airlines.deckgen import generate_deck
from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, _, ngettext, system
from panel.core.layout_file import default_layout_path, load_layout
from panel.tools.commands.layout import add_layout_options


def register(sub) -> None:
    p = sub.add_parser("deck", help=_("make or check a flight instruction deck"))
    dsub = p.add_subparsers(dest="deck_command", metavar=_("ACTION"))
    dsub.required = True

    gen = dsub.add_parser("generate", help=_("deal a deck for a panel from a seed"))
    add_layout_options(gen)
    gen.add_argument("--seed", metavar=_("SEED"), type=int, default=None,
                     help=_("same seed, same layout, same side: same deck (default: a fresh seed, "
                          "written into the deck so it can be made again)"))
    gen.add_argument("--out", metavar=_("FILE"), help=_("write the deck here (default: standard output)"))
    gen.set_defaults(func=generate)

    chk = dsub.add_parser("check", help=_("check that every card of a deck can be played on the panel"))
    chk.add_argument("file", metavar=_("FILE"), help=_("deck TOML"))
    chk.add_argument("--layout", metavar=_("FILE"),
                     help=_("layout TOML (default: the one the deck names, else the Penguin Airlines panel)"))
    chk.set_defaults(func=check)

    # The printable deck (maker kit): the implementation lives in deck_print.py.
    from panel.tools.commands.deck_print import add_print_parser

    add_print_parser(dsub)


def generate(args) -> int:
    layout = load_layout(args.layout, side=args.side, expansion=args.expansion)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 2**31)
    deck = generate_deck(layout, seed=seed)
    if args.layout is not None and Path(args.layout).resolve() != default_layout_path().resolve():
        deck.layout = _layout_reference(args.layout, args.out)
    text = dump_deck(deck)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as e:
        raise ConfigError(Problem(args.out, None, Text(N_("cannot write the deck ({why})"), why=e.strerror or e))) from None
    n = len(deck.cards)
    print(ngettext("{file}: {n} card for {panel} (seed {seed})", "{file}: {n} cards for {panel} (seed {seed})",
                   n).format(file=args.out, n=n, panel=_which_panel(deck), seed=seed))
    return 0


def check(args) -> int:
    deck = load_deck(args.file)
    layout_path = args.layout if args.layout is not None else _named_layout(deck, args.file)
    layout = load_layout(layout_path, side=deck.side, expansion=deck.expansion)
    bad = deck_problems(deck, layout)
    tr = system()
    for i, reasons in bad:
        card = deck.cards[i]
        num = f" (#{card.number})" if card.number is not None else ""
        print(f"{args.file}: cards[{i}]{num}: {'; '.join(why.text(tr) for why in reasons)}")
    if not deck.cards:
        print(_("{file}: cards: the deck has no cards").format(file=args.file))
        return 1
    if bad:
        return 1
    n = len(deck.cards)
    print(ngettext("{file}: {n} card, playable on {panel}", "{file}: {n} cards, all playable on {panel}",
                   n).format(file=args.file, n=n, panel=_which_panel(deck)))
    return 0


def _which_panel(deck: Deck) -> str:
    """The panel a deck is for, in words: "the gray side with the expansion"."""
    side = _(deck.side)
    return (_("the {side} side with the expansion") if deck.expansion else _("the {side} side")).format(side=side)


def deck_problems(deck: Deck, layout) -> list[tuple[int, list[Text]]]:
    """(index, reasons) for every card of the deck that cannot be played on this layout."""
    out = []
    for i, card in enumerate(deck.cards):
        reasons = check_card(card, layout)
        if card.expansion and not deck.expansion:
            # The rulebook leaves starred cards in the box for the base game.
            reasons.append(Text(N_("an expansion card (star) in a deck without the expansion")))
        if reasons:
            out.append((i, reasons))
    return out


def _layout_reference(layout: str, out: str | None) -> str:
    """The layout path to write into the deck: relative to the deck file when there is one
    (so the pair can move together), absolute when the deck goes to standard output."""
    target = Path(layout).resolve()
    if out is None:
        return str(target)
    return os.path.relpath(target, Path(out).resolve().parent)


def _named_layout(deck: Deck, deck_file: str) -> str | None:
    if deck.layout is None:
        return None
    p = Path(deck.layout)
    p = p if p.is_absolute() else Path(deck_file).resolve().parent / p
    if not p.is_file():
        raise ConfigError(Problem(deck_file, "layout", Text(N_("the layout file it names, {file}, is not there "
                                                               "(give one with --layout)"), file=p)))
    return str(p)
