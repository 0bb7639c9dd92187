"""`penguin-panel deck generate|check`, through the real CLI entry point."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from panel.games.airlines.cards import Card
from panel.games.airlines.deck_file import dump_deck, load_deck
from panel.tools.cli import main
from panel.core.layout_file import default_layout_path

ALT_LAYOUT = (Path(__file__).parent / "data" / "tiny_layout.toml").read_text()


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


@pytest.fixture
def alt(tmp_path):
    d = tmp_path / "layouts"
    d.mkdir()
    p = d / "tiny.toml"
    p.write_text(ALT_LAYOUT)
    return p


def test_generate_to_stdout(capsys):
    code, out, err = run(capsys, "deck", "generate", "--seed", "5")
    assert code == 0 and err == ""
    doc = tomllib.loads(out)
    assert (doc["side"], doc["expansion"], doc["seed"]) == ("blue", False, 5)
    assert "layout" not in doc  # the default panel needs no naming
    assert len(doc["cards"]) == 60
    code, again, _ = run(capsys, "deck", "generate", "--seed", "5")
    assert again == out
    code, other, _ = run(capsys, "deck", "generate", "--seed", "6")
    assert other != out


def test_generate_without_seed_writes_the_seed_it_used(capsys, tmp_path):
    code, out, _ = run(capsys, "deck", "generate")
    seed = tomllib.loads(out)["seed"]
    assert isinstance(seed, int)
    code, again, _ = run(capsys, "deck", "generate", "--seed", str(seed))
    assert again == out


def test_generate_to_file_and_check_it(capsys, tmp_path):
    out_file = tmp_path / "deck.toml"
    code, out, _ = run(capsys, "deck", "generate", "--side", "gray", "--expansion", "--seed", "9",
                       "--out", str(out_file))
    assert code == 0
    assert out.strip() == f"{out_file}: 80 cards for the gray side with the expansion (seed 9)"
    deck = load_deck(out_file)
    assert (deck.side, deck.expansion, deck.seed, len(deck.cards)) == ("gray", True, 9, 80)
    code, out, err = run(capsys, "deck", "check", str(out_file))
    assert code == 0 and err == ""
    assert out.strip() == f"{out_file}: 80 cards, all playable on the gray side with the expansion"


def test_check_good_base_deck(capsys, tmp_path):
    f = tmp_path / "deck.toml"
    run(capsys, "deck", "generate", "--seed", "1", "--out", str(f))
    code, out, _ = run(capsys, "deck", "check", str(f))
    assert code == 0 and out == f"{f}: 60 cards, all playable on the blue side\n"


def test_check_broken_deck_prints_one_line_per_bad_card(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run(capsys, "deck", "generate", "--seed", "2", "--out", "deck.toml")
    deck = load_deck("deck.toml")
    deck.cards[12] = Card("simple", press=("grid.r9c9",), number=13)
    deck.cards[20] = Card("simple", press=("grid.r9c9", "alarm.pink"), set=(("knob.main", "9"),), number=21)
    deck.cards[45] = Card("sequence", section="cross", steps=("up", "down"), colours=("red", "red"), number=46)
    Path("deck.toml").write_text(dump_deck(deck))
    code, out, err = run(capsys, "deck", "check", "deck.toml")
    assert code == 1 and err == ""
    assert out.splitlines() == [
        "deck.toml: cards[12] (#13): button 'grid.r9c9' is not on the blue side (base game)",
        "deck.toml: cards[20] (#21): button 'grid.r9c9' is not on the blue side (base game); "
        "button 'alarm.pink' is not on the blue side (base game); "
        "token 'knob.main' has no position '9' (it has 1, 2, 3, 4, 5, 6)",
        "deck.toml: cards[45] (#46): colour sequence red, red does not match the panel's blue, white on the blue side",
    ]


def test_check_expansion_cards_in_a_base_deck(capsys, tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text('side = "blue"\nexpansion = false\n'
                 '[[cards]]\nkind = "activation"\nword = "FNAP"\n'
                 '[[cards]]\nkind = "simple"\npress = ["grid.r1c1"]\nexpansion = true\n'
                 '[[cards]]\nkind = "simple"\npress = ["grid.r1c1"]\n')
    code, out, _ = run(capsys, "deck", "check", str(f))
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{f}: cards[0]: no keypad on the blue side (base game) can type 'FNAP'")
    assert lines[1] == f"{f}: cards[1]: an expansion card (star) in a deck without the expansion"


def test_empty_deck_is_not_playable(capsys, tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text('side = "gray"\n')
    code, out, _ = run(capsys, "deck", "check", str(f))
    assert code == 1 and out == f"{f}: cards: the deck has no cards\n"


@pytest.mark.parametrize("text, words", [
    ("this is not toml\n", "not valid TOML"),
    ('side = "blue"\ncolour = 1\n', "colour: unknown key"),
])
def test_check_bad_file_is_one_line_exit_2(capsys, tmp_path, text, words):
    f = tmp_path / "deck.toml"
    f.write_text(text)
    code, out, err = run(capsys, "deck", "check", str(f))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and words in err and str(f) in err


def test_check_missing_file(capsys, tmp_path):
    code, out, err = run(capsys, "deck", "check", str(tmp_path / "none.toml"))
    assert code == 2 and err.strip() == f"error: {tmp_path / 'none.toml'}: file not found"


def test_other_layout_is_named_in_the_deck_and_used_by_check(capsys, tmp_path, monkeypatch, alt):
    decks = tmp_path / "decks"
    decks.mkdir()
    f = decks / "tiny-deck.toml"
    code, _, _ = run(capsys, "deck", "generate", "--layout", str(alt), "--expansion", "--seed", "4",
                     "--out", str(f))
    assert code == 0
    doc = tomllib.loads(f.read_text())
    assert doc["layout"] == "../layouts/tiny.toml"  # relative to the deck: the pair moves together
    monkeypatch.chdir(decks.parent.parent)  # check from elsewhere: still finds the layout
    code, out, _ = run(capsys, "deck", "check", str(f))
    assert code == 0 and out.strip() == f"{f}: 80 cards, all playable on the blue side with the expansion"
    # Against the default panel, the home-made deck does not fit: one line per card.
    code, out, _ = run(capsys, "deck", "check", str(f), "--layout", str(default_layout_path()))
    assert code == 1 and len(out.splitlines()) == 80


def test_generate_to_stdout_with_other_layout_names_it_absolutely(capsys, tmp_path, monkeypatch, alt):
    monkeypatch.chdir(alt.parent)
    code, out, _ = run(capsys, "deck", "generate", "--layout", "tiny.toml", "--seed", "1")
    assert code == 0 and tomllib.loads(out)["layout"] == str(alt.resolve())
    code, out, _ = run(capsys, "deck", "generate", "--layout", str(default_layout_path()), "--seed", "1")
    assert "layout" not in tomllib.loads(out)


def test_deck_naming_a_missing_layout(capsys, tmp_path):
    f = tmp_path / "deck.toml"
    f.write_text('layout = "gone.toml"\n[[cards]]\nkind = "simple"\npress = ["grid.r1c1"]\n')
    code, out, err = run(capsys, "deck", "check", str(f))
    assert code == 2 and len(err.splitlines()) == 1
    assert f"{f}: layout: the layout file it names" in err and "--layout" in err


def test_generate_errors_are_one_line(capsys, tmp_path, alt):
    text = ALT_LAYOUT.replace('kind = "keypad"', 'kind = "buttons"').replace('role = "B", ', "") \
        .replace('role = "O", ', "").replace('role = "M", ', "").replace('{ name = "ok", role = "ok", colour = "black" }', '{ name = "ok2", colour = "black" }')
    nokeys = tmp_path / "nokeys.toml"
    nokeys.write_text(text)
    code, out, err = run(capsys, "deck", "generate", "--layout", str(nokeys), "--expansion")
    assert code == 2 and out == ""
    assert err.splitlines() == [f"error: {nokeys}: cannot make a deck for the blue side with the expansion: "
                                "the layout has no 'keypad' section (for activation cards)"]
    code, out, err = run(capsys, "deck", "generate", "--out", str(tmp_path / "no" / "deck.toml"))
    assert code == 2 and len(err.splitlines()) == 1 and "cannot write the deck" in err
    with pytest.raises(SystemExit) as e:  # argparse's own exit, through the CLI's one-line error()
        main(["deck", "generate", "--seed", "many"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and len(err.splitlines()) == 1 and "--seed" in err


def test_real_command_line(tmp_path):
    """Once through a real process: the console entry point, exit codes, clean stderr."""
    f = tmp_path / "deck.toml"
    r = subprocess.run([sys.executable, "-m", "panel", "deck", "generate", "--seed", "3", "--expansion"],
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == ""
    f.write_text(r.stdout.replace('"grid.r', '"grid.x', 1))
    r = subprocess.run([sys.executable, "-m", "panel", "deck", "check", str(f)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stderr == ""
    assert len(r.stdout.splitlines()) == 1 and "is not on the blue side with the expansion" in r.stdout
    f.write_text("[[[")
    r = subprocess.run([sys.executable, "-m", "panel", "deck", "check", str(f)], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
