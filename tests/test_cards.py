"""Cards: the deck TOML format both ways, its shape errors, and why a card cannot be played."""

from __future__ import annotations

import textwrap

import pytest

from panel.games.airlines.cards import Card, Deck, check_card, with_colours
from panel.games.airlines.deck_file import dump_deck, load_deck
from panel.games.airlines.deckgen import generate_deck
from panel.core.errors import ConfigError
from panel.core.layout_file import load_layout


@pytest.fixture(scope="module")
def blue():
    return load_layout(side="blue")


@pytest.fixture(scope="module")
def blue_x():
    return load_layout(side="blue", expansion=True)


def write(tmp_path, text, name="deck.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return p


def roundtrip(tmp_path, deck: Deck) -> Deck:
    p = tmp_path / "rt.toml"
    p.write_text(dump_deck(deck))
    return load_deck(p)


# ------------------------------------------------------------------- round trip

@pytest.mark.parametrize("side", ["blue", "gray"])
@pytest.mark.parametrize("exp", [False, True])
def test_generated_deck_round_trips(tmp_path, side, exp):
    deck = generate_deck(load_layout(side=side, expansion=exp), seed=21)
    back = roundtrip(tmp_path, deck)
    assert back == deck
    assert back.cards == deck.cards  # every field of every card, colours and stars included
    assert back.source == str(tmp_path / "rt.toml")


def test_hand_made_deck_round_trips_with_layout_and_odd_cards(tmp_path):
    deck = Deck("gray", True, [
        Card("simple", press=("grid.r1c1",)),
        Card("simple", set=(("round_lever.blue", "1"), ("round_lever.red", "0"), ("round_lever.white", "2"))),
        Card("sequence", section="cross", steps=("up", "up", "down", "right"), number=7),
        Card("coordinates", section="roman", steps=("A1", "C3", "D1"), expansion=True, colours=("a", "b", "c")),
        Card("activation", word="FNAP", steps=tuple("FNAP"), expansion=True),
        Card("activation", word="SNOT", steps=tuple("SNOT"), section="keypad", expansion=True),
    ], seed=3, layout="../layouts/mine.toml")
    assert roundtrip(tmp_path, deck) == deck


def test_written_deck_reads_like_the_documented_format(tmp_path):
    p = write(tmp_path, """\
        side = "blue"
        expansion = true
        [[cards]]
        kind = "simple"
        press = ["grid.r3c4"]
        set = { "round_lever.blue" = 1 }
        [[cards]]
        kind = "sequence"
        section = "cross"
        steps = ["Up", "UP", "down", "right"]
        [[cards]]
        kind = "coordinates"
        section = "roman"
        steps = ["a1", "C3", "D1"]
        [[cards]]
        kind = "activation"
        word = "fnap"
        """)
    deck = load_deck(p)
    assert deck.cards[0] == Card("simple", press=("grid.r3c4",), set=(("round_lever.blue", "1"),))
    assert deck.cards[1].steps == ("up", "up", "down", "right") and not deck.cards[1].expansion
    assert deck.cards[2].steps == ("A1", "C3", "D1") and deck.cards[2].expansion  # the kind carries the star
    assert deck.cards[3].word == "FNAP" and deck.cards[3].steps == tuple("FNAP")
    layout = load_layout(side="blue", expansion=True)
    assert all(check_card(c, layout) == [] for c in deck.cards)
    assert with_colours(deck.cards[3], layout).colours == ("blue", "white", "red", "blue")  # the rulebook's


# ------------------------------------------------------------------- shape errors

@pytest.mark.parametrize("body, key, words", [
    ('colour = "x"\nkind = "simple"\npress = ["grid.r1c1"]', "cards[0].colour", "unknown key"),
    ('kind = "shuffle"', "cards[0].kind", "not a card kind"),
    ('kind = "simple"', "cards[0]", "at least one 'press' or 'set'"),
    ('kind = "simple"\npress = "grid.r1c1"', "cards[0].press", "array of button ids"),
    ('kind = "simple"\npress = ["grid.r1c1", "grid.r1c1"]', "cards[0].press", "listed twice"),
    ('kind = "simple"\nset = { "knob.main" = true }', "cards[0].set.knob.main", "position must be a string"),
    ('kind = "simple"\nset = ["knob.main"]', "cards[0].set", "table of token id"),
    ('kind = "simple"\npress = ["grid.r1c1"]\nsteps = ["up"]', "cards[0].steps", "not used on a simple card"),
    ('kind = "sequence"\nsection = "cross"', "cards[0].steps", "needs 'steps'"),
    ('kind = "sequence"\nsteps = ["up"]', "cards[0].section", "needs a 'section'"),
    ('kind = "activation"\nword = "F-NAP"', "cards[0].word", "word' of letters"),
    ('kind = "activation"\nword = "FNAP"\nsection = 3', "cards[0].section", "keypad section"),
    ('kind = "simple"\npress = ["grid.r1c1"]\nnumber = "one"', "cards[0].number", "whole number"),
    ('kind = "simple"\npress = ["grid.r1c1"]\nexpansion = "yes"', "cards[0].expansion", "true or false"),
    ('kind = "sequence"\nsection = "cross"\nsteps = ["up"]\ncolours = "blue"', "cards[0].colours", "colour names"),
])
def test_card_shape_errors_name_the_key(tmp_path, body, key, words):
    p = write(tmp_path, "side = \"blue\"\n[[cards]]\n" + body + "\n")
    with pytest.raises(ConfigError) as e:
        load_deck(p)
    lines = [str(x) for x in e.value.problems]
    assert any(line.startswith(f"{p}: {key}: ") and words in line for line in lines), lines


@pytest.mark.parametrize("text, key, words", [
    ('side = "green"', "side", "not a side"),
    ('expansion = "no"', "expansion", "true or false"),
    ('seed = "x"', "seed", "whole number"),
    ('layout = 4', "layout", "path of a layout file"),
    ('shuffle = true', "shuffle", "unknown key"),
    ('cards = 3', "cards", "array of tables"),
])
def test_deck_shape_errors_name_the_key(tmp_path, text, key, words):
    p = write(tmp_path, text + "\n")
    with pytest.raises(ConfigError) as e:
        load_deck(p)
    [problem] = e.value.problems
    assert str(problem).startswith(f"{p}: {key}: ") and words in str(problem)


def test_every_problem_is_reported_at_once(tmp_path):
    p = write(tmp_path, """\
        side = "green"
        [[cards]]
        kind = "simple"
        [[cards]]
        kind = "simple"
        press = ["grid.r1c1"]
        [[cards]]
        kind = "nope"
        """)
    with pytest.raises(ConfigError) as e:
        load_deck(p)
    keys = [x.key for x in e.value.problems]
    assert keys == ["side", "cards[0]", "cards[2].kind"]


def test_not_toml_and_missing_file(tmp_path):
    p = write(tmp_path, "cards = [[[\n")
    with pytest.raises(ConfigError) as e:
        load_deck(p)
    assert len(e.value.problems) == 1 and "not valid TOML" in str(e.value)
    with pytest.raises(ConfigError) as e:
        load_deck(tmp_path / "absent.toml")
    assert "file not found" in str(e.value)


# ------------------------------------------------------------------- feasibility

@pytest.mark.parametrize("card, reason", [
    (Card("simple", press=("grid.r9c9",)), "button 'grid.r9c9' is not on the blue side (base game)"),
    (Card("simple", set=(("knob.nope", "1"),)), "token 'knob.nope' is not on the blue side (base game)"),
    (Card("simple", set=(("round_lever.red", "3"),)), "token 'round_lever.red' has no position '3' (it has 0, 1, 2)"),
    (Card("simple"), "a simple card gives 1 to 4 instructions, this one gives 0"),
    (Card("simple", press=("grid.r1c1", "grid.r1c2", "grid.r1c3"), set=(("knob.main", "1"), ("lever.big", "up"))),
     "a simple card gives 1 to 4 instructions, this one gives 5"),
    (Card("sequence", section="hall", steps=("up",)), "section 'hall' is not on the blue side (base game)"),
    (Card("sequence", section="grid", steps=("up",)),
     "section 'grid' is a buttons section, a sequence card needs a sequence section"),
    (Card("sequence", section="cross", steps=("up", "north")), "section 'cross' has no direction 'north'"),
    (Card("sequence", section="cross", steps=("up", "ok")), "section 'cross' has no direction 'ok'"),
    (Card("sequence", section="cross", steps=("up", "down"), colours=("blue", "blue")),
     "colour sequence blue, blue does not match the panel's blue, white on the blue side"),
    (Card("coordinates", section="coords", steps=("A1",), expansion=True),
     "section 'coords' is not on the blue side (base game)"),
    (Card("activation", word="FNAP", steps=tuple("FNAP"), expansion=True),
     "no keypad on the blue side (base game) can type 'FNAP'"),
])
def test_check_card_reasons_base(blue, card, reason):
    assert reason in [str(why) for why in check_card(card, blue)]


@pytest.mark.parametrize("card, reason", [
    (Card("coordinates", section="roman", steps=("A1", "D4")), "section 'roman' has no coordinate 'D4'"),
    (Card("coordinates", section="cross", steps=("A1",)),
     "section 'cross' is a sequence section, a coordinates card needs a coordinates section"),
    (Card("activation", word="ZAP", steps=tuple("ZAP")), "no keypad on the blue side with the expansion can type 'ZAP'"),
    (Card("activation", word="ZAP", steps=tuple("ZAP"), section="keypad"), "section 'keypad' has no letter 'Z'"),
    (Card("activation", word="FNAP", steps=tuple("FNAP"), section="roman"),
     "section 'roman' is a coordinates section, an activation card needs a keypad section"),
    (Card("activation", word="FNAP", steps=tuple("FNAP"), colours=("red",) * 4),
     "colour sequence red, red, red, red does not match the panel's blue, white, red, blue on the blue side"),
])
def test_check_card_reasons_expansion(blue_x, card, reason):
    assert reason in [str(why) for why in check_card(card, blue_x)]


def test_playable_cards_give_no_reason(blue, blue_x):
    assert check_card(Card("simple", press=("grid.r3c4",), set=(("round_lever.blue", "1"),)), blue) == []
    assert check_card(Card("sequence", section="cross", steps=("up", "up", "down", "right"),
                           colours=("blue", "blue", "white", "black")), blue) == []  # the rulebook's example
    assert check_card(Card("coordinates", section="roman", steps=("A1", "C3", "D1")), blue_x) == []
    assert check_card(Card("activation", word="FNAP", steps=tuple("FNAP")), blue_x) == []
