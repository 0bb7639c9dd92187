"""What the pages and drawings say about the panel, checked without a browser (issue 23,
items 7 and 9): where the crew puts the tokens back, the words beside a card's switches and
big lever (readable on the tower's phone, never under the handle), the list of stored
matches saying how a mission came out, and the Spanish catalog's plurals and words."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

import pytest

from panel.core.i18n import translations
from panel.core.layout_file import load_layout
from panel.games.airlines.card_drawing import W, card_svg
from panel.games.airlines.cards import Card

NS = "{http://www.w3.org/2000/svg}"
# The tower's page draws the card as wide as a 390 px phone's page allows (tower.css: 0.6rem a side).
PHONE_CARD_PX = 371


def test_the_crew_is_told_where_every_token_starts():
    layout = load_layout()
    words = layout.start_words()
    assert words == ("the switches down, the big lever up, the clicks off, the sliders at 0, "
                     "the round levers at 1, the rotating knob at 1")
    for t in layout.tokens.values():  # each kind said once, at its start
        assert t.start in words
    spanish = layout.start_words(translations("es"))
    assert "switches" not in spanish and " at " not in spanish and "arriba" in spanish


def test_tokens_of_a_kind_that_start_apart_are_said_one_by_one():
    layout = load_layout()
    tokens = dict(layout.tokens)
    lever = tokens["round_lever.red"]
    tokens["round_lever.red"] = type(lever)(**{**lever.__dict__, "start": "2"})
    moved = type(layout)(**{**layout.__dict__, "tokens": tokens})
    words = moved.start_words()
    assert "the round levers" not in words
    assert "the red round lever at 2" in words and "the blue round lever at 1" in words


@pytest.mark.parametrize("cards", [
    [Card("simple", set=(("lever.big", pos),)) for pos in ("up", "down")],
    [Card("simple", set=(("lever.big", pos), ("switch.left", pos))) for pos in ("up", "down")],
    # three sections: the smallest cells a simple card draws
    [Card("simple", press=("alarm.red", "grid.r1c1"), set=(("lever.big", pos), ("slider.red", "3"), ("switch.middle", pos)))
     for pos in ("up", "down")],
])
def test_a_cards_switch_and_lever_words_read_on_a_phone_below_the_handle(cards):
    layout = load_layout()
    for card in cards:
        root = ET.fromstring(card_svg(card, layout))
        slots = [g for g in root.iter(f"{NS}g") if (g.get("data-control") or "").split(".")[0] in ("lever", "switch")
                 and "token" in (g.get("class") or "")]
        assert slots
        for g in slots:
            handle = list(g.iter(f"{NS}circle"))[-1]
            word = next(t for t in g.iter(f"{NS}text") if t.get("class") == "position-word")
            size = float(word.get("font-size"))
            assert word.text == g.get("data-position")
            assert size * PHONE_CARD_PX / W >= 12, f"{g.get('data-control')}: {size * PHONE_CARD_PX / W:.1f} px"
            # the word's top (its centre less half its height) below the handle's bottom
            assert float(word.get("y")) - size / 2 >= float(handle.get("cy")) + float(handle.get("r")) - 0.5


def test_the_list_of_matches_says_a_mission_was_lost(tmp_path, capsys):
    from panel.games.kaboom.mapping_file import load_mapping
    from panel.service.cockpit import Cockpit
    from panel.storage.store import Store
    from panel.tools.cli import main
    from waiting import until

    mapping = load_mapping()
    db = tmp_path / "panel.db"

    now = [1000.0]  # the cockpit's clock, moved by the test: the alert is due when it says

    async def play():
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True, clock=lambda: now[0])
            await cockpit.start()
            try:
                await cockpit.create_match({"mode": "kaboom", "players": ["green"], "mission": "custom",
                                            "custom": {"time_per_player": 300, "alert_seconds": 5, "alerts": 1,
                                                       "alerts_face_up": 0}})
                await cockpit.action("start", {})
                now[0] += 6
                await until(lambda: cockpit.match.snapshot(cockpit.now())["alerts"]["sounded"])
                await cockpit.input(mapping.alert_flipped, True)  # the one alert card face up: the last
                await until(lambda: cockpit.match.finished)
                return cockpit.match.outcome
            finally:
                await cockpit.close()

    assert asyncio.run(play()) == "failed"
    assert main(["matches", "list", "--db", str(db)]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert " failed " in line and "finished" not in line
