"""`penguin-panel deck print`: the deck as a PDF of cards, 9 to an A4 page, for cutting.

    penguin-panel deck print --out deck.pdf                          # a fresh deck, blue side
    penguin-panel deck print --side gray --expansion --seed 7 --out deck.pdf
    penguin-panel deck print --deck mydeck.toml --out deck.pdf        # a deck file as it is

A cafe can then play the offline hourglass variant, or check a disputed card by its number.
"""

from __future__ import annotations

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, _, ngettext


def add_print_parser(dsub) -> None:
    from panel.tools.commands.layout import add_layout_options

    pr = dsub.add_parser("print", help=_("render the deck as a PDF of cards, 9 to a page"))
    add_layout_options(pr)
    pr.add_argument("--seed", metavar=_("SEED"), type=int, default=1,
                    help=_("deal the deck from this seed (default: 1)"))
    pr.add_argument("--deck", metavar=_("FILE"), help=_("print this deck file instead of dealing one"))
    pr.add_argument("--out", metavar=_("FILE"), required=True, help=_("the PDF to write (e.g. deck.pdf)"))
    pr.set_defaults(func=print_command)


def print_command(args) -> int:
    from panel.games.airlines.deck_file import load_deck
    from panel.games.airlines.deckgen import generate_deck
    from panel.games.airlines.deckprint import deck_pdf, page_count, write_pdf
    from panel.core.layout_file import load_layout

    if args.deck is not None:
        deck = load_deck(args.deck)
        layout = load_layout(args.layout, side=deck.side, expansion=deck.expansion)
    else:
        layout = load_layout(args.layout, side=args.side, expansion=args.expansion)
        deck = generate_deck(layout, seed=args.seed)
    if not deck.cards:
        raise ConfigError(Problem(args.deck, "cards", Text(N_("the deck has no cards to print"))))
    try:
        data = deck_pdf(deck, layout)
    except ValueError as e:
        raise ConfigError(Problem(args.deck or str(layout.source), None, str(e))) from None
    try:
        write_pdf(data, args.out)
    except OSError as e:
        raise ConfigError(Problem(args.out, None, Text(N_("cannot write the PDF ({why})"), why=e.strerror or e))) from None
    cards, pages = len(deck.cards), page_count(len(deck.cards))
    print(ngettext("{file}: {cards} card on {pages}", "{file}: {cards} cards on {pages}", cards).format(
        file=args.out, cards=cards, pages=ngettext("{n} page", "{n} pages", pages).format(n=pages)))
    return 0
