"""The deck as a printable PDF: 9 cards to an A4 page, with cut marks, for cutting out.

Each card is the tower's own drawing (`panel.games.airlines.card_drawing.card_svg`) at poker size
(63 x 88 mm), so a printed card and the screen agree on every detail; the card carries its
number (#n) in its top corner, and each page's footer says which cards it holds. The
footer and the cards' words are in the system locale's language (panel.core.i18n), or `tr`'s.

Pages are composed as SVG (the cards nested in a page of millimetres) and turned into PDF
by CairoSVG, which draws with the Cairo library (Debian's libcairo2, on every Pi OS image
with a desktop, one apt-get on Lite): faithful SVG, no browser, light enough for a Pi Zero.
pypdf joins the one-page PDFs into one file (pure Python).
"""

from __future__ import annotations

import gettext
import io
import os
import re
from dataclasses import replace
from pathlib import Path
from xml.sax.saxutils import escape

from panel.games.airlines.cards import Card, Deck
from panel.core.i18n import system
from panel.core.layout import Layout

PAGE_W, PAGE_H = 210.0, 297.0   # A4, mm
CARD_W, CARD_H = 63.0, 88.0     # poker size, mm
COLS, ROWS = 3, 3
PER_PAGE = COLS * ROWS
MARK = 4.0                       # length of a cut mark, mm
_SVG_OPEN = re.compile(r'^<svg xmlns="http://www.w3.org/2000/svg" viewBox="([^"]+)" width="[^"]+" height="[^"]+"')


def numbered(deck: Deck) -> list[Card]:
    """The deck's cards, each with a number (its place in the deck when it has none)."""
    return [c if c.number is not None else replace(c, number=i + 1) for i, c in enumerate(deck.cards)]


def page_count(n_cards: int) -> int:
    return (n_cards + PER_PAGE - 1) // PER_PAGE


def _nested(card_doc: str, x: float, y: float) -> str:
    m = _SVG_OPEN.match(card_doc)
    if m is None:  # the card drawing changed shape: fail loudly, not print blank cards
        raise ValueError("card_svg returned an SVG this printer does not know how to place")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{m.group(1)}" x="{x:.2f}" y="{y:.2f}" '
            f'width="{CARD_W}" height="{CARD_H}"' + card_doc[m.end():])


def page_svgs(deck: Deck, layout: Layout, *, title: str = "Penguin Airlines",
              tr: gettext.NullTranslations | None = None) -> list[str]:
    """One SVG document per page (A4, millimetres)."""
    from panel.games.airlines.card_drawing import card_svg

    tr = tr or system()
    # Translators: the panel side a printed deck is for, {side} being its colour ("blue side").
    where = tr.gettext("{side} side").format(side=tr.gettext(deck.side))  # the side's colour, translated
    if deck.expansion:
        where = tr.gettext("{deck}, with the expansion").format(deck=where)
    if deck.seed is not None:
        where = tr.gettext("{deck}, seed {seed}").format(deck=where, seed=deck.seed)
    cards = numbered(deck)
    left = (PAGE_W - COLS * CARD_W) / 2
    top = (PAGE_H - ROWS * CARD_H) / 2
    total = page_count(len(cards))
    pages = []
    for p in range(total):
        chunk = cards[p * PER_PAGE:(p + 1) * PER_PAGE]
        body = [f'<rect width="{PAGE_W}" height="{PAGE_H}" fill="#ffffff"/>']
        for i, card in enumerate(chunk):
            r, c = divmod(i, COLS)
            body.append(_nested(card_svg(card, layout, tr=tr), left + c * CARD_W, top + r * CARD_H))
        body.append(_cut_marks(left, top))
        footer = tr.gettext("{title} instruction deck ({deck}): page {page} of {pages}, cards #{first} to #{last}. "
                            "Cut along the marks.").format(title=title, deck=where, page=p + 1, pages=total,
                                                           first=chunk[0].number, last=chunk[-1].number)
        body.append(f'<text x="{PAGE_W / 2}" y="{PAGE_H - 6}" font-family="DejaVu Sans, sans-serif" '
                    f'font-size="3.2" fill="#444" text-anchor="middle">{escape(footer)}</text>')
        pages.append(f'<svg xmlns="http://www.w3.org/2000/svg" width="{PAGE_W}mm" height="{PAGE_H}mm" '
                     f'viewBox="0 0 {PAGE_W} {PAGE_H}">' + "".join(body) + "</svg>")
    return pages


def _cut_marks(left: float, top: float) -> str:
    """Short lines in the margins on every cut line, outside the cards."""
    lines = []
    right, bottom = left + COLS * CARD_W, top + ROWS * CARD_H
    for c in range(COLS + 1):
        x = left + c * CARD_W
        lines += [(x, top - MARK - 1, x, top - 1), (x, bottom + 1, x, bottom + MARK + 1)]
    for r in range(ROWS + 1):
        y = top + r * CARD_H
        lines += [(left - MARK - 1, y, left - 1, y), (right + 1, y, right + MARK + 1, y)]
    return "".join(f'<line x1="{a:.2f}" y1="{b:.2f}" x2="{c:.2f}" y2="{d:.2f}" stroke="#000" '
                   f'stroke-width="0.2"/>' for a, b, c, d in lines)


def deck_pdf(deck: Deck, layout: Layout, *, title: str = "Penguin Airlines",
             tr: gettext.NullTranslations | None = None) -> bytes:
    """The whole deck as one PDF document."""
    import cairosvg
    from pypdf import PdfReader, PdfWriter

    tr = tr or system()
    writer = PdfWriter()
    for svg in page_svgs(deck, layout, title=title, tr=tr):
        one = cairosvg.svg2pdf(bytestring=svg.encode("utf-8"))
        for page in PdfReader(io.BytesIO(one)).pages:
            writer.add_page(page)
    writer.add_metadata({"/Title": tr.gettext("{title} instruction deck").format(title=title),
                         "/Creator": "penguin-panel deck print"})
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def write_pdf(data: bytes, out: str | Path) -> None:
    """Write atomically: a failed print never leaves half a PDF behind."""
    out = Path(out)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)
