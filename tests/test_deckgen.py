"""The deck generator: every card playable, the printed deck's shape, one deck per seed."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from panel.games.airlines.cards import check_card, colour_sequence
from panel.games.airlines.deck_file import dump_deck
from panel.games.airlines.deckgen import generate_deck, make_word
from panel.core.errors import ConfigError
from panel.core.layout import DIRECTIONS
from panel.core.layout_file import load_layout

SEEDS = (0, 1, 7, 2024, -5, 2**40)

# A small home-made panel (base cards must leave its expansion module's buttons alone).
ALT_LAYOUT = (Path(__file__).parent / "data" / "tiny_layout.toml").read_text()


@pytest.fixture(scope="module")
def alt_path(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("layouts") / "tiny.toml"
    p.write_text(ALT_LAYOUT)
    return p


def layouts(path=None):
    for side in ("blue", "gray"):
        for exp in (False, True):
            yield load_layout(path, side=side, expansion=exp)


@pytest.fixture(scope="module")
def default_layouts():
    return {(l.side, l.expansion): l for l in layouts()}


def deck_for(default_layouts, side, exp, seed):
    return generate_deck(default_layouts[(side, exp)], seed=seed)


@pytest.mark.parametrize("side", ["blue", "gray"])
@pytest.mark.parametrize("exp", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_every_card_is_playable_and_numbered(default_layouts, side, exp, seed):
    layout = default_layouts[(side, exp)]
    deck = generate_deck(layout, seed=seed)
    assert (deck.side, deck.expansion, deck.seed) == (side, exp, seed)
    assert len(deck.cards) == (80 if exp else 60)
    assert [c.number for c in deck.cards] == list(range(1, len(deck.cards) + 1))
    for c in deck.cards:
        assert check_card(c, layout) == [], c.label()
    if exp:  # base cards stay playable when the expansion modules are left in the box
        base = default_layouts[(side, False)]
        for c in deck.cards:
            if not c.expansion:
                assert check_card(c, base) == [], c.label()


def test_same_seed_same_deck_different_seed_different_deck(default_layouts):
    a = deck_for(default_layouts, "blue", True, 11)
    b = generate_deck(load_layout(side="blue", expansion=True), seed=11)  # a fresh load of the file
    assert a == b and dump_deck(a) == dump_deck(b)
    others = [deck_for(default_layouts, "blue", True, s) for s in (12, 13, 14)]
    for o in others:
        assert o.cards != a.cards
    # Not just reordered: the sets of cards differ too.
    assert len({frozenset(c.label().split(" ", 1)[1] for c in d.cards) for d in [a, *others]}) == 4


def test_deck_does_not_depend_on_hash_seed():
    """String hashing changes per process; a deck must not (no set/dict-order leaks)."""
    outs = []
    for hs in ("1", "2", "3"):
        r = subprocess.run([sys.executable, "-c",
                            "from panel.core.layout_file import load_layout; from panel.games.airlines.deckgen import generate_deck;"
                            "from panel.games.airlines.deck_file import dump_deck;"
                            "print(dump_deck(generate_deck(load_layout(side='gray', expansion=True), seed=5)))"],
                           capture_output=True, text=True, env=dict(os.environ, PYTHONHASHSEED=hs))
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1] == outs[2]
    assert outs[0].count("[[cards]]") == 80


def _kind(card):
    if card.kind != "simple":
        return card.kind
    if card.press and card.set:
        return "mixed"
    return "buttons" if card.press else "tokens"


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_the_mix_is_like_the_printed_deck(default_layouts, seed):
    deck = deck_for(default_layouts, "blue", True, seed)
    kinds = Counter(_kind(c) for c in deck.cards)
    assert kinds == {"tokens": 13, "buttons": 13, "mixed": 14, "sequence": 20, "coordinates": 10, "activation": 10}
    assert Counter(c.section for c in deck.cards if c.kind == "sequence") == {"cross": 10, "arrows": 10}
    assert Counter(c.section for c in deck.cards if c.kind == "coordinates") == {"coords": 5, "roman": 5}
    # Some variety inside each kind: several instruction counts, several step counts.
    assert len({len(c.press) + len(c.set) for c in deck.cards if c.kind == "simple"}) >= 3
    assert len({len(c.steps) for c in deck.cards if c.is_sequence}) >= 3


@pytest.mark.parametrize("seed", SEEDS)
def test_card_bounds(default_layouts, seed):
    layout = default_layouts[("gray", True)]
    deck = generate_deck(layout, seed=seed)
    starts = layout.start_positions()
    for c in deck.cards:
        if c.kind == "simple":
            assert 1 <= len(c.press) + len(c.set) <= 4, c.label()
            assert len(set(c.press)) == len(c.press)
            assert len({t for t, _ in c.set}) == len(c.set)
            if not c.press:  # a token-only card is never already done on a freshly set-up panel
                assert any(starts[t] != p for t, p in c.set), c.label()
            assert not c.colours
        else:
            assert 3 <= len(c.steps) <= 6, c.label()
        if c.kind == "sequence":
            assert set(c.steps) <= set(DIRECTIONS)
        if c.kind == "coordinates":
            assert all(a != b for a, b in zip(c.steps, c.steps[1:])), c.label()


@pytest.mark.parametrize("seed", SEEDS)
def test_simple_cards_point_at_one_area(default_layouts, seed):
    """Like "blue on 1, red on 0, white on 2": a card's tokens come from one section when
    one section has that many, and its buttons likewise."""
    layout = default_layouts[("blue", False)]
    biggest_tokens = max(len(s.tokens) for s in layout.sections.values())
    biggest_buttons = max(len(s.buttons) for s in layout.sections.values() if s.kind == "buttons")
    for c in generate_deck(layout, seed=seed).cards:
        if c.kind != "simple":
            continue
        if c.set and len(c.set) <= biggest_tokens:
            assert len({layout.tokens[t].section for t, _ in c.set}) == 1, c.label()
        if c.press and len(c.press) <= biggest_buttons:
            assert len({layout.buttons[b].section for b in c.press}) == 1, c.label()
        for b in c.press:  # simple cards press plain buttons, never a cross or keypad
            assert layout.sections[layout.buttons[b].section].kind == "buttons"


@pytest.mark.parametrize("seed", SEEDS)
def test_activation_words(default_layouts, seed):
    layout = default_layouts[("blue", True)]
    letters = {r for r in layout.sections["keypad"].roles if r != "ok"}
    assert letters == set("AEFKLNOPRSTX")
    words = [c.word for c in generate_deck(layout, seed=seed).cards if c.kind == "activation"]
    assert len(words) == 10 and len(set(words)) == 10
    for w in words:
        assert 3 <= len(w) <= 6 and set(w) <= letters, w
        assert any(ch in "AEO" for ch in w), w  # something to pronounce
        assert all(a != b for a, b in zip(w, w[1:])), w
        runs = "".join("v" if ch in "AEO" else "c" for ch in w)
        assert "ccc" not in runs and "vvv" not in runs, w


def test_make_word_without_vowels_still_types():
    import random
    rng = random.Random(3)
    for n in (3, 4, 5, 6):
        w = make_word(rng, n, ["B", "C", "D"])
        assert len(w) == n and set(w) <= set("BCD")
        assert all(a != b for a, b in zip(w, w[1:]))


@pytest.mark.parametrize("side", ["blue", "gray"])
def test_colour_sequences_match_the_side(default_layouts, side):
    layout = default_layouts[(side, True)]
    deck = generate_deck(layout, seed=3)
    seqs = [c for c in deck.cards if c.is_sequence]
    assert len(seqs) == 40
    for c in seqs:
        assert c.colours == colour_sequence(c, layout)
        assert len(c.colours) == len(c.steps)


def test_colours_differ_between_sides(default_layouts):
    blue = deck_for(default_layouts, "blue", True, 3)
    gray = deck_for(default_layouts, "gray", True, 3)
    # Same seed, same steps (the sides differ only in colours on this layout) ...
    assert [c.steps for c in blue.cards] == [c.steps for c in gray.cards]
    # ... but the printed colour lines differ where the panel's colours do.
    assert any(b.colours != g.colours for b, g in zip(blue.cards, gray.cards) if b.is_sequence)


def test_the_star_marks_exactly_the_expansion_cards(default_layouts):
    base = deck_for(default_layouts, "blue", False, 4)
    assert not any(c.expansion for c in base.cards)
    assert {c.kind for c in base.cards} == {"simple", "sequence"}
    full = deck_for(default_layouts, "blue", True, 4)
    for c in full.cards:
        assert c.expansion == (c.kind in ("coordinates", "activation")), c.label()
    assert sum(c.expansion for c in full.cards) == 20


def test_expansion_layout_can_deal_a_base_deck(default_layouts):
    layout = default_layouts[("blue", True)]
    deck = generate_deck(layout, seed=8, expansion=False)
    assert len(deck.cards) == 60 and not deck.expansion
    base = default_layouts[("blue", False)]
    assert all(check_card(c, base) == [] for c in deck.cards)


@pytest.mark.parametrize("seed", SEEDS)
def test_no_duplicate_cards(default_layouts, seed):
    deck = deck_for(default_layouts, "gray", True, seed)
    keys = [c.as_dict() for c in deck.cards]
    for d in keys:
        d.pop("number")
        if "set" in d:
            d["set"] = sorted(d["set"].items())
        if "press" in d:
            d["press"] = sorted(d["press"])
    assert len({repr(k) for k in keys}) == len(keys)


def test_base_deck_needs_base_layout_only(default_layouts):
    with pytest.raises(ConfigError) as e:
        generate_deck(default_layouts[("blue", False)], seed=1, expansion=True)
    assert "expansion" in str(e.value)


# ------------------------------------------------------------------- another panel

@pytest.mark.parametrize("seed", SEEDS[:4])
def test_another_layout_gets_a_sensible_deck(alt_path, seed):
    for layout in layouts(alt_path):
        deck = generate_deck(layout, seed=seed)
        assert len(deck.cards) == (80 if layout.expansion else 60)
        for c in deck.cards:
            assert check_card(c, layout) == [], c.label()
            if c.is_sequence:
                assert c.colours == colour_sequence(c, layout)
            if not c.expansion:  # base cards keep off the expansion module's buttons and token
                assert "bonus.z" not in c.press and "bonus_tokens.w" not in c.targets
        seq = [c for c in deck.cards if c.kind == "sequence"]
        assert len(seq) == 20 and all(c.section == "joy" and set(c.steps) <= {"up", "down"} for c in seq)
        if layout.expansion:
            coords = [c for c in deck.cards if c.kind == "coordinates"]
            assert len(coords) == 10
            for c in coords:  # 2 cells and 3-6 steps: cells return, but never twice in a row
                assert all(a != b for a, b in zip(c.steps, c.steps[1:])), c.label()
            words = [c.word for c in deck.cards if c.kind == "activation"]
            assert len(set(words)) == 10 and all(set(w) <= set("BOM") for w in words)
            assert all(c.section == "keys" for c in deck.cards if c.kind == "activation")


def _without(text: str, section_id: str) -> str:
    """The alt layout with one section (and its buttons) cut out."""
    start = text.index(f'id = "{section_id}"')
    start = text.rindex("[[modules.sections]]", 0, start)
    end = text.find("[[modules", start + 5)
    return text[:start] + (text[end:] if end != -1 else "")


@pytest.mark.parametrize("section, kind", [("keys", "keypad"), ("mini", "coordinates")])
def test_missing_expansion_section_is_a_clear_error(tmp_path, section, kind):
    p = tmp_path / "no.toml"
    p.write_text(_without(ALT_LAYOUT, section))
    generate_deck(load_layout(p, expansion=True), seed=1, expansion=False)  # the base deck is fine
    with pytest.raises(ConfigError) as e:
        generate_deck(load_layout(p, expansion=True), seed=1)
    [problem] = e.value.problems
    assert str(p) in str(problem) and f"no '{kind}' section" in str(problem)


def test_missing_base_sections_are_each_named(tmp_path):
    text = _without(_without(ALT_LAYOUT, "joy"), "dials")
    p = tmp_path / "no.toml"
    p.write_text(text)
    with pytest.raises(ConfigError) as e:
        generate_deck(load_layout(p), seed=1)
    msgs = [str(x) for x in e.value.problems]
    assert len(msgs) == 2
    assert any("no 'tokens' section" in m for m in msgs) and any("no 'sequence' section" in m for m in msgs)


# ------------------------------------------------------------------- any seed

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(), side=st.sampled_from(["blue", "gray"]), exp=st.booleans())
def test_any_seed_gives_an_all_playable_deck(default_layouts, seed, side, exp):
    layout = default_layouts[(side, exp)]
    deck = generate_deck(layout, seed=seed)
    assert len(deck.cards) == (80 if exp else 60)
    assert all(check_card(c, layout) == [] for c in deck.cards)
    assert len({c.word for c in deck.cards if c.word}) == (10 if exp else 0)
