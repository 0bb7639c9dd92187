"""Penguin Ultimatum as a game of the cockpit (panel/games/ultimatum/game.py): its lights and
sounds on the real effects (every sound with its light), the venue and Home Assistant seeing
the cockpit idle (Ultimatum rule 14), no control of the panel setting a game up (Ultimatum
rule 15), the pages' names for every id a state carries, the settings file's table."""

from __future__ import annotations

from panel.core.events import Action
from panel.core.i18n import translations
from panel.games.base import Build
from panel.games.lights import OFF, WHITE
from panel.games.registry import game_named
from panel.games.ultimatum.cards import ANIMALS, CARDS, FORMS, PLAYER_COLOURS
from panel.games.ultimatum.game import GAME
from panel.games.ultimatum.show import CUE_SECONDS, PLAYER_COLOURS as LIGHTS, PRIORITY, SOUNDS, TUNES
from panel.hardware.map import NeoPixelConfig
from panel.mqtt import protocol

N = 24
CFG = NeoPixelConfig(10, "spi", 40, segments={"timer": (0, N)})
PLAYERS = {"players": [{"player": "red", "name": "Lea", "form": "dance"}, {"player": "green", "form": "music"}]}


def new_game():
    return GAME.set_up(PLAYERS, build=Build(), positions={}, language="en")


def test_it_is_registered_and_its_word_is_everywhere():
    assert game_named("ultimatum") is GAME
    g = new_game()
    assert g.snapshot()["game"] == "ultimatum" and GAME.stored_settings(g) == PLAYERS


def test_every_sound_has_a_light_and_a_place_in_line():
    for event, (tune, _who) in SOUNDS.items():
        assert event in GAME.event_types and tune in CUE_SECONDS and tune in PRIORITY
        assert sum(s for _, s in TUNES[tune]) <= CUE_SECONDS[tune] + 1e-9  # the light lasts the sound
        assert all(f is None or 220 <= f <= 3520 for f, _ in TUNES[tune])


def test_each_sound_starts_with_its_light_on_the_chain():
    from panel.hardware.buzzer import BuzzerPlayer
    from panel.hardware.effects import Effects
    from panel.hardware.leds import FakeStrip
    from pin_tools import factory

    strip = FakeStrip(CFG.count)
    with Effects(strip, CFG, BuzzerPlayer(12, pin_factory=factory())) as fx:
        g = new_game()
        fx.apply([], g.snapshot(0.0), 0.0)
        assert set(strip.last[:N]) == {tuple(round(c * 0.2) for c in LIGHTS[p]) for p in ("red", "green")}
        events = g.handle(Action("performance", 1.0, {"colour": "red", "form": "dance", "points": {"red": 3}}))
        fx.apply(events, g.snapshot(1.0), 1.0)
        assert strip.last[:N] == tuple([LIGHTS["red"]] * N)  # the card's new owner's colour
        events = g.handle(Action("performance", 3.0, {"colour": "red", "form": "music", "points": {"red": 0}}))
        fx.apply(events, g.snapshot(3.0), 3.0)
        assert strip.last[:N] in (tuple([WHITE] * N), tuple([OFF] * N))  # out of the game: white flashes
        events = g.handle(Action("penalty", 5.0, {"player": "green", "points": 2}))
        fx.apply(events, g.snapshot(5.0), 5.0)
        events = g.handle(Action("end", 7.0))
        fx.apply(events, g.snapshot(7.0), 7.0)
        assert [s for _, s in fx.sounds] == ["ultimatum_card", "ultimatum_out", "ultimatum_penalty", "ultimatum_won"]
        assert strip.last[:N].count(LIGHTS["red"]) == N // 3  # the winner's chase


def test_the_venue_and_home_assistant_see_the_cockpit_idle_and_count_nothing():
    g = new_game()
    state = {**GAME.present(g.snapshot(), g, translations("en")), "match_id": 3, "status": "active",
             "link": {"connected": True, "firmware": None}}
    payload = protocol.state_payload("c1", "Café", state, dropped=0)
    protocol.validate("state", payload)  # the schema the venue and Home Assistant read
    assert payload["phase"] == "idle" and payload["match"] is None and payload["commands"] == []
    assert not GAME.at_venue and GAME.venue_result(g) is None


def test_no_control_of_the_panel_sets_a_game_up():
    for control in ("cockpit.start", "alarm.red", "cross.ok"):
        assert not GAME.walks_up(control, build=Build(), last=None)
        assert not GAME.walks_up(control, build=Build(), last=PLAYERS)


def test_the_pages_have_a_name_for_every_id_in_either_language():
    for lang in ("en", "es"):
        names = GAME.pages(translations(lang))["names"]
        assert set(names["player"]) == set(PLAYER_COLOURS) and set(names["form"]) == set(FORMS)
        assert set(names["colour"]) == set(names["animal"]) == set(ANIMALS)
        assert set(names["reason"]) == {"points", "entertainer_points", "entertainer_cards", "shorter"}
    es = GAME.pages(translations("es"))
    assert es["names"]["animal"]["green"] == "oveja" and es["names"]["form"]["dance"] == "danza"
    assert len(es["cards"]) == len(CARDS) == 16


def test_the_settings_files_table_has_no_key_yet():
    assert GAME.check_defaults({}, file="s.toml") == []
    [problem] = GAME.check_defaults({"players": 4}, file="s.toml")
    assert problem.key == "ultimatum.players"
