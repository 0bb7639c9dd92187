"""The printable deck: an 80-card deck makes a 9-page PDF whose pages poppler turns into
images, and a card on a page looks like the tower's drawing of that card."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from PIL import Image, ImageChops, ImageStat
from pypdf import PdfReader

from panel.games.airlines.deck_file import dump_deck
from panel.tools.cli import main
from panel.games.airlines.deckgen import generate_deck
from panel.games.airlines.deckprint import CARD_H, CARD_W, COLS, PAGE_H, PAGE_W, ROWS, numbered, page_svgs
from panel.core.layout_file import load_layout

pytestmark = pytest.mark.kit

DPI = 60


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    out = tmp_path_factory.mktemp("print") / "deck.pdf"
    assert main(["deck", "print", "--expansion", "--seed", "3", "--out", str(out)]) == 0
    return out


def _png_pages(pdf: Path, tmp: Path) -> list[Path]:
    subprocess.run(["pdftoppm", "-r", str(DPI), "-png", str(pdf), str(tmp / "page")], check=True)
    return sorted(tmp.glob("page-*.png"))


def test_80_cards_print_on_9_pages_and_render(printed, tmp_path):
    reader = PdfReader(str(printed))
    assert len(reader.pages) == 9
    box = reader.pages[0].mediabox  # A4 in points
    assert abs(float(box.width) - PAGE_W / 25.4 * 72) < 1 and abs(float(box.height) - PAGE_H / 25.4 * 72) < 1
    pages = _png_pages(printed, tmp_path)
    assert len(pages) == 9
    first = Image.open(pages[0]).convert("L")
    assert ImageStat.Stat(first).stddev[0] > 20  # drawn, not a blank page
    text = reader.pages[8].extract_text()
    assert "page 9 of 9" in text and "cards #73 to #80" in text
    assert "#1" in reader.pages[0].extract_text()


def _card_box(i: int, img: Image.Image) -> tuple[int, int, int, int]:
    sx, sy = img.width / PAGE_W, img.height / PAGE_H
    left, top = (PAGE_W - COLS * CARD_W) / 2, (PAGE_H - ROWS * CARD_H) / 2
    r, c = divmod(i, COLS)
    x, y = left + c * CARD_W, top + r * CARD_H
    return round(x * sx), round(y * sy), round((x + CARD_W) * sx), round((y + CARD_H) * sy)


def test_a_printed_card_looks_like_the_towers_drawing(printed, tmp_path):
    import cairosvg

    from panel.games.airlines.card_drawing import card_svg

    layout = load_layout(None, expansion=True)
    cards = numbered(generate_deck(layout, seed=3))
    page = Image.open(_png_pages(printed, tmp_path)[1]).convert("RGB")  # cards #10..#18

    def drawn(card, size):
        png = tmp_path / "card.png"
        cairosvg.svg2png(bytestring=card_svg(card, layout).encode(), write_to=str(png),
                         output_width=size[0], output_height=size[1])
        flat = Image.new("RGB", size, "white")
        im = Image.open(png).convert("RGBA")
        flat.paste(im, mask=im)
        return flat

    def diff(a, b):
        # At a coarse grain, so a pixel of misalignment or antialiasing does not count.
        a, b = (im.resize((21, 29), Image.Resampling.BOX) for im in (a, b))
        return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3

    for slot in range(9):
        crop = page.crop(_card_box(slot, page))
        scores = [diff(crop, drawn(cards[9 + k], crop.size)) for k in range(9)]
        assert scores[slot] < 2.5, (slot, scores)   # the same card: a grey level or two
        # ... and it is the closest of the page's nine drawings: the right card in the right place.
        assert min(range(9), key=scores.__getitem__) == slot, (slot, scores)


def test_base_deck_from_a_file_keeps_its_numbers(tmp_path, capsys):
    layout = load_layout(None, side="gray")
    deck = generate_deck(layout, seed=5)
    deck.cards = deck.cards[:20]
    f = tmp_path / "d.toml"
    f.write_text(dump_deck(deck))
    out = tmp_path / "d.pdf"
    assert main(["deck", "print", "--deck", str(f), "--out", str(out)]) == 0
    assert "20 cards on 3 pages" in capsys.readouterr().out
    reader = PdfReader(str(out))
    assert len(reader.pages) == 3
    assert f"#{numbered(deck)[18].number}" in reader.pages[2].extract_text()
    assert "gray side" in reader.pages[0].extract_text()


def test_page_svgs_hold_nine_cards_each():
    layout = load_layout(None)
    deck = generate_deck(layout, seed=1)
    pages = page_svgs(deck, layout)
    assert len(pages) == 7  # 60 base cards
    assert [p.count('class="card ') for p in pages] == [9] * 6 + [6]


def test_missing_deck_file_is_one_clear_line(tmp_path, capsys):
    assert main(["deck", "print", "--deck", str(tmp_path / "nope.toml"), "--out", str(tmp_path / "x.pdf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope.toml" in err[0] and not (tmp_path / "x.pdf").exists()


def test_unwritable_output_is_one_clear_line(tmp_path, capsys):
    assert main(["deck", "print", "--out", str(tmp_path / "no" / "dir" / "x.pdf")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write the PDF" in err[0]
