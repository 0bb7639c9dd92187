"""/sim's lights are the built panel's: the simulator's strip is drawn by each game's own
show (the one picture per game), so for the same snapshot at the same moment it shows
what the reference build's strip shows, pixel for pixel, in both games."""

from __future__ import annotations

import pytest

from panel.core.events import Action, InputEvent
from panel.games import registry
from panel.games.lights import OFF
from panel.hardware.effects import Effects
from panel.hardware.leds import FakeStrip
from panel.hardware.map import load_map
from panel.service.effects import SIM_PIXELS, sim_leds, sim_strip

from engine_helpers import SIMPLE, scenario
from kaboom_helpers import MAPPING, act, hold, match, press

REFERENCE = load_map("reference").neopixel


def strip_frame(snapshot, now):
    """What the reference build's strip shows for `snapshot` at `now` (no cue playing)."""
    strip = FakeStrip(REFERENCE.count)
    with Effects(strip, REFERENCE) as fx:
        fx.update(snapshot, now)
        return strip.last


def assert_same_picture(snapshot, now):
    sim = sim_leds(snapshot, now=now)
    real = strip_frame(snapshot, now)
    ours = sim_strip()
    assert len(sim["pixels"]) == sum(SIM_PIXELS.values())
    for role in SIM_PIXELS:  # the ring first, then the counters and the mistakes, as the build's
        assert [sim["pixels"][i] for i in ours.pixels(role)] == [list(real[i]) for i in REFERENCE.pixels(role)], role
    assert set(REFERENCE.buttons) <= set(ours.buttons)  # an LED under every button the build lights
    lit = {c: list(real[i]) for c, i in REFERENCE.buttons.items() if real[i] != OFF}
    assert {c: v for c, v in sim["buttons"].items() if c in REFERENCE.buttons} == lit  # the others off
    return sim


def airlines_moments():
    """An Airlines match at the moments its picture differs: between turns, in a turn
    (counters held, a mistake, the stuck control), paused, the last seconds, finished."""
    m = scenario([], cards=SIMPLE * 3, turn_seconds=30).new_match()
    yield "between turns", m.snapshot(0.0), 0.0
    m.handle(Action("start_turn", 1.0, {}))
    yield "turn start", m.snapshot(1.0), 1.0
    for t, control in ((2.0, SIMPLE[0]["press"][0]), (3.0, SIMPLE[1]["press"][0])):
        m.handle(InputEvent(control, True, t))
        m.handle(InputEvent(control, False, t))
    m.handle(InputEvent("cross.ok", True, 4.0))  # a button no card asks for: a mistake, held down
    yield "mistake", m.snapshot(4.5), 4.5
    m.handle(InputEvent("cross.ok", False, 5.0))
    m.handle(Action("pause", 6.0, {}))
    yield "paused", m.snapshot(6.0), 6.0
    m.handle(Action("resume", 7.0, {}))
    m.advance(28.2)
    yield "last seconds", m.snapshot(28.2), 28.2  # a blink's lit half, as the tick sounds
    m.advance(200.0)  # the turn runs out
    m.handle(Action("end", 201.0, {}))
    yield "finished", m.snapshot(201.0), 201.0


def kaboom_moments():
    """A Kaboom mission at the moments its picture differs: set up, played, an alert
    waiting, its last seconds, closing, accomplished."""
    m = match(("red", "blue"), time_per_player=60, alert_seconds=10)
    yield "setup", m.snapshot(0.0), 0.0
    act(m, "start", 0.0)
    press(m, m.active, 1.0)
    yield "playing", m.snapshot(1.5), 1.5
    m.advance(10.2)
    yield "alert waiting", m.snapshot(10.2), 10.2
    press(m, MAPPING.alert_flipped, 10.5)
    act(m, "lift_cover", 11.0)
    act(m, "confirm", 11.0)
    hold(m, "red", 12.0)
    yield "closing", m.snapshot(12.3), 12.3
    hold(m, "blue", 13.0)
    yield "accomplished", m.snapshot(13.0), 13.0


@pytest.mark.parametrize("moments", [airlines_moments, kaboom_moments], ids=["airlines", "kaboom"])
def test_the_simulator_shows_the_strips_picture_in_both_games(moments):
    seen = {}
    for name, snapshot, now in moments():
        seen[name] = assert_same_picture(snapshot, now)
    # the pictures change through the match: one that stood still (or stayed dark) would prove nothing
    assert len({repr(s) for s in seen.values()}) >= 4
    assert any(p != list(OFF) for s in seen.values() for p in s["pixels"])


def test_the_idle_cockpit_shows_the_default_games_picture():
    idle = {"phase": "idle"}
    assert registry.game_of(idle).id == registry.DEFAULT
    sim = assert_same_picture(idle, 0.0)
    assert all(p == list(OFF) for p in sim["pixels"]) and sim["buttons"] == {}


def test_every_games_tunes_are_one_table_for_the_pages():
    """/api/sounds serves the games' tunes in one table by name: a name two games share
    (the tick) is the same tune in both, with the same priority."""
    shows = [g.show for g in registry.games()]
    for a in shows:
        for b in shows:
            for name in set(a.TUNES) & set(b.TUNES):
                assert a.TUNES[name] == b.TUNES[name] and a.PRIORITY[name] == b.PRIORITY[name], name
        assert set(a.TUNES) == set(a.PRIORITY)
        assert set(a.CUE_SECONDS) <= set(a.TUNES)  # every light has its sound
        for name, seconds in a.CUE_SECONDS.items():
            assert sum(s for _, s in a.TUNES[name]) <= seconds + 1e-9  # the light lasts the sound
