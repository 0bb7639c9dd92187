"""Reading and writing a deck file (the format is panel.games.airlines.cards'): its tables
declared once (panel.core.schema), every shape problem at once; whether a card can be
played on a panel is `check_card`'s (cards.py), not the reader's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.errors import Problem
from panel.core.i18n import N_, Text
from panel.core.layout import SIDES
from panel.core.schema import Bool, Check, Choice, Each, Field, Int, Problems, Str, Table, whole
from panel.core.toml_file import read_toml
from panel.games.airlines.cards import CARD_KINDS, Card, Deck


def _strings(message: str):
    """A test: an array of strings, else `message`."""
    return lambda v: None if isinstance(v, list) and all(isinstance(x, str) for x in v) else message


def _position(v: Any) -> str | None:
    return None if isinstance(v, str) or whole(v) else N_("a position must be a string (or a whole number)")


CARD = Table(says=N_("a card must be a table"), fields={
    "number": Int(says=N_("must be a whole number")),
    "kind": Choice(options=CARD_KINDS, required=True, says=N_("{value} is not a card kind ({kinds})"),
                   values={"kinds": ", ".join(CARD_KINDS)}),
    "press": Check(default=(), test=_strings(N_("must be an array of button ids")), convert=tuple),
    "set": Each(of=Check(test=_position, convert=str), says=N_("must be a table of token id = position")),
    "section": Field(), "steps": Field(), "word": Field(),
    "colours": Check(default=(), test=_strings(N_("must be an array of colour names")), convert=tuple),
    "expansion": Bool(),
})
DECK_FILE = Table(fields={
    "side": Choice(options=SIDES, default="blue", says=N_("{value} is not a side (blue or gray)")),
    "expansion": Bool(default=False), "seed": Int(says=N_("must be a whole number")),
    "layout": Str(says=N_("must be the path of a layout file (a string)")), "cards": Field(default=[])})


def _simple(raw: dict, v: dict, sets: list[tuple[str, str]], bad) -> dict[str, Any]:
    if len(set(v["press"])) != len(v["press"]):
        bad("press", Text(N_("a button is listed twice")))
    for k in ("section", "steps", "word"):
        if k in raw:
            bad(k, Text(N_("not used on a simple card")))
    return {"press": v["press"], "set": tuple(sets)}


def _activation(v: dict, bad) -> dict[str, Any] | None:
    word, section = v["word"], v["section"]
    if not isinstance(word, str) or not word.isalpha():
        bad("word", Text(N_("an activation card needs a 'word' of letters")))
        return None
    if section is not None and not isinstance(section, str):
        bad("section", Text(N_("must be the id of a keypad section (a string)")))
        return None
    return {"word": word.upper(), "steps": tuple(word.upper()), "section": section or None}


def _sequence(kind: str, v: dict, bad) -> dict[str, Any] | None:
    section, steps = v["section"], v["steps"]
    if not isinstance(section, str):
        bad("section", Text(N_("a {kind} card needs a 'section'"), kind=kind))
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        bad("steps", Text(N_("a sequence card needs 'steps', an array of directions") if kind == "sequence"
                          else N_("a {kind} card needs 'steps', an array of coordinates like \"A1\""), kind=kind))
        return None
    if not isinstance(section, str):
        return None
    return {"section": section, "steps": tuple(s.lower() if kind == "sequence" else s.upper() for s in steps)}


def parse_card(raw: Any, file: str | None, key: str, problems: list[Problem]) -> Card | None:
    """Parse one [[cards]] entry; shape problems go to `problems` (feasibility is separate)."""
    found = Problems(file)
    v = CARD.read(raw, key, found)
    kind = v["kind"] if v is not None else None
    if kind is None:
        problems += found.found
        return None
    sets = list(v["set"].items())

    def bad(k: str, reason: Text) -> None:
        found.add(f"{key}.{k}", reason)

    if kind == "simple":
        parts = _simple(raw, v, sets, bad)
        if not parts["press"] and not parts["set"] and not found:
            found.add(key, Text(N_("a simple card needs at least one 'press' or 'set'")))
    elif kind == "activation":
        parts = _activation(v, bad)
    else:
        parts = _sequence(kind, v, bad)
    problems += found.found
    if parts is None or found:
        return None
    exp = v["expansion"] if v["expansion"] is not None else kind in ("coordinates", "activation")
    return Card(kind, number=v["number"], expansion=exp, colours=v["colours"], **parts)


def parse_cards(raw_cards: Any, file: str | None, key: str = "cards") -> tuple[list[Card], list[Problem]]:
    problems: list[Problem] = []
    if not isinstance(raw_cards, list):
        return [], [Problem(file, key, Text(N_("must be an array of tables ([[cards]])")))]
    cards = [parse_card(rc, file, f"{key}[{i}]", problems) for i, rc in enumerate(raw_cards)]
    return [c for c in cards if c is not None], problems


def load_deck(path: str | Path) -> Deck:
    """Read a deck file. Shape problems raise ConfigError; feasibility is `check_card`'s job."""
    file = str(path)
    problems = Problems(file)
    top = DECK_FILE.read_top(read_toml(path), problems)
    cards, card_problems = parse_cards(top["cards"], file)
    problems.found += card_problems
    problems.raise_any()
    return Deck(top["side"], top["expansion"], cards, top["seed"], file, top["layout"])


def dump_deck(deck: Deck) -> str:
    """The deck as TOML, in the format `load_deck` reads."""
    import tomli_w

    doc: dict[str, Any] = {"side": deck.side, "expansion": deck.expansion}
    if deck.seed is not None:
        doc["seed"] = deck.seed
    if deck.layout is not None:
        doc["layout"] = deck.layout
    doc["cards"] = [c.as_dict() for c in deck.cards]
    return tomli_w.dumps(doc)
