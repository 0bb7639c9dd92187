"""card_svg draws what the printed cards show; these tests read the SVG back as XML."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings, strategies as st

from panel.games.airlines.cards import Card, colour_sequence
from panel.core.layout_file import load_layout
from panel.games.airlines.card_drawing import GREEN, card_svg, card_text

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module", params=["blue", "gray"])
def layout(request):
    return load_layout(side=request.param, expansion=True)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on anything that is not well-formed XML
    assert root.tag == f"{NS}svg"
    return root


def with_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def texts(el: ET.Element) -> list[str]:
    return [t.text for t in el.iter(f"{NS}text") if t.text]


def test_simple_card_marks_each_press_with_a_green_hand(layout):
    card = Card("simple", press=("grid.r3c4", "alarm.red", "cross.red"), number=7)
    root = parse(card_svg(card, layout))
    hands = with_class(root, "hand")
    assert sorted(h.get("data-control") for h in hands) == sorted(card.press)
    for h in hands:
        assert any(p.get("stroke") == GREEN for p in h.iter(f"{NS}path"))
    # Each involved section is drawn once, and only those.
    assert sorted(s.get("data-section") for s in with_class(root, "section")) == ["alarm", "cross", "grid"]
    assert not with_class(root, "colour-dot")
    assert "#7" in texts(root)


def test_simple_card_draws_each_token_at_its_target_outlined_in_green(layout):
    card = Card("simple", set=(("round_lever.blue", "1"), ("round_lever.red", "0"), ("slider.red", "4"),
                               ("knob.main", "5")))
    root = parse(card_svg(card, layout))
    targets = with_class(root, "target-token")
    assert {t.get("data-control"): t.get("data-position") for t in targets} == dict(card.set)
    for t in targets:
        outline = with_class(t, "target-outline")
        assert len(outline) == 1 and outline[0].get("stroke") == GREEN
    # The white round lever is in the section but not on the card: drawn, not outlined, no hand.
    others = [e for e in with_class(root, "token") if e.get("data-control") == "round_lever.white"]
    assert len(others) == 1 and "target-token" not in others[0].get("class")
    assert not with_class(root, "hand")


def test_star_only_on_expansion_cards_and_hourglass_on_every_card(layout):
    plain = parse(card_svg(Card("simple", press=("grid.r1c1",)), layout))
    starred = parse(card_svg(Card("simple", press=("grid.r1c1",), expansion=True), layout))
    assert not with_class(plain, "star") and len(with_class(starred, "star")) == 1
    assert len(with_class(plain, "hourglass")) == 1 and len(with_class(starred, "hourglass")) == 1


def test_sequence_card_numbers_its_arrows_and_shows_the_colour_sequence(layout):
    card = Card("sequence", section="cross", steps=("up", "up", "down", "right"))
    root = parse(card_svg(card, layout))
    arrows = with_class(root, "step-arrow")
    assert [a.get("data-direction") for a in arrows] == list(card.steps)
    assert [texts(a) for a in arrows] == [["1"], ["2"], ["3"], ["4"]]
    dots = with_class(root, "colour-dot")
    assert [d.get("data-colour") for d in dots] == list(colour_sequence(card, layout))
    # Every dot carries its colour's name too, for colour-blind players.
    assert [texts(d) for d in dots] == [[c.upper()] for c in colour_sequence(card, layout)]


def test_colour_dots_follow_the_side(layout):
    card = Card("sequence", section="cross", steps=("up", "left", "right", "down"))
    root = parse(card_svg(card, layout))
    want = {"blue": ["blue", "red", "black", "white"], "gray": ["red", "white", "blue", "black"]}[layout.side]
    assert [d.get("data-colour") for d in with_class(root, "colour-dot")] == want


def test_coordinate_card_numbers_the_cells_and_labels_the_axes(layout):
    card = Card("coordinates", section="roman", steps=("A1", "C3", "D1", "A1"), expansion=True)
    root = parse(card_svg(card, layout))
    marks = {m.get("data-control"): texts(m) for m in with_class(root, "step-number")}
    assert marks == {"roman.a1": ["1,4"], "roman.c3": ["2"], "roman.d1": ["3"]}
    all_text = texts(root)
    for label in ("A", "B", "C", "D", "I", "II", "III"):
        assert label in all_text
    assert [d.get("data-colour") for d in with_class(root, "colour-dot")] == list(colour_sequence(card, layout))
    assert len(with_class(root, "star")) == 1


def test_activation_card_shows_the_word_and_the_keypad(layout):
    card = Card("activation", word="FNAP", steps=tuple("FNAP"), expansion=True)
    root = parse(card_svg(card, layout))
    assert [texts(w) for w in with_class(root, "word")] == [["FNAP"]]
    assert [s.get("data-section") for s in with_class(root, "section")] == ["keypad"]
    assert len(with_class(root, "colour-dot")) == 4


def test_a_card_given_as_a_dict_draws_the_same_as_the_card(layout):
    card = Card("simple", press=("beacon.blue",), set=(("switch.left", "up"),), number=3)
    assert card_svg(card.as_dict(), layout) == card_svg(card, layout)


def test_a_card_that_does_not_fit_the_layout_is_one_clear_error():
    base = load_layout(expansion=False)
    with pytest.raises(ValueError, match="'keypad.a' is not on the layout"):
        card_svg(Card("simple", press=("keypad.a",)), base)
    with pytest.raises(ValueError, match="section"):
        card_svg(Card("coordinates", section="roman", steps=("A1",)), base)
    with pytest.raises(ValueError, match="kind"):
        card_svg({"kind": "juggle"}, base)


def test_card_text_lists_the_instructions(layout):
    lines = card_text(Card("simple", press=("alarm.black",), set=(("lever.big", "down"), ("round_lever.red", "2"))),
                      layout)
    name = layout.plain_name
    assert lines == [f"Press {name('alarm.black')}", "Set the big lever to down", f"Set {name('round_lever.red')} to 2"]
    if layout.side == "blue":
        assert lines[0] == "Press the black alarm" and lines[2] == "Set the red round lever to 2"
    lines = card_text(Card("sequence", section="cross", steps=("up", "left"), colours=("blue", "red")), layout)
    assert lines == ["On the direction cross: up, left, then OK", "Call-out: blue, red"]


def test_svg_is_self_contained():
    svg = card_svg(Card("simple", press=("grid.r1c1",)), load_layout())
    assert "href" not in svg and "@import" not in svg and "url(" not in svg


_LAYOUT = load_layout(side="gray", expansion=True)


@st.composite
def simple_cards(draw):
    press = draw(st.lists(st.sampled_from(sorted(_LAYOUT.buttons)), max_size=3, unique=True))
    tokens = draw(st.lists(st.sampled_from(sorted(_LAYOUT.tokens)), max_size=4 - len(press), unique=True,
                           min_size=0 if press else 1))
    sets = tuple((t, draw(st.sampled_from(_LAYOUT.tokens[t].positions))) for t in tokens)
    return Card("simple", press=tuple(press), set=sets, expansion=draw(st.booleans()))


@settings(max_examples=60, deadline=None)
@given(simple_cards())
def test_any_simple_card_draws_a_hand_per_press_and_an_outline_per_token(card):
    root = parse(card_svg(card, _LAYOUT))
    assert sorted(h.get("data-control") for h in with_class(root, "hand")) == sorted(card.press)
    assert {t.get("data-control"): t.get("data-position") for t in with_class(root, "target-token")} \
        == dict(card.set)
    assert bool(with_class(root, "star")) == card.expansion


def test_a_card_in_spanish_translates_its_words_not_the_games_codes(layout):
    """The heading, the colours' names and the tokens' position words follow the language;
    the activation word, the grid's letters and the buttons' labels are the game's own."""
    from panel.core.i18n import translations

    es = translations("es")
    card = Card("sequence", section="cross", steps=("up", "up", "down", "right"))
    english, spanish = parse(card_svg(card, layout)), parse(card_svg(card, layout, tr=es))
    assert "SEQUENCE" in texts(english) and "SECUENCIA" in texts(spanish) and "SEQUENCE" not in texts(spanish)
    colours = colour_sequence(card, layout)
    assert [texts(d) for d in with_class(spanish, "colour-dot")] == [[es.gettext(c).upper()] for c in colours]
    assert any(es.gettext(c) != c for c in colours)
    word = Card("activation", word="FNAP", steps=tuple("FNAP"), expansion=True)
    root = parse(card_svg(word, layout, tr=es))
    assert "ACTIVACIÓN" in texts(root) and "FNAP" in texts(with_class(root, "word")[0])
    clicks = Card("simple", set=(("click.red", "on"), ("switch.left", "up")))
    assert {"ENCENDIDO", "arriba"} <= set(texts(parse(card_svg(clicks, layout, tr=es))))
