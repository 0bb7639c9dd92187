"""A whole turn of the engine played through mocked pins: the small build's buttons, switch
and cockpit controls on MockPins, the engine judging, the pixels and buzzer asserted."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from panel.cards import Card
from panel.engine import Match, MatchSettings, Team
from panel.hardware.build import Hardware
from panel.hardware.leds import FakeStrip
from panel.hardware.map import load_map
from panel.hardware.patterns import AMBER, GREEN, OFF, RED, TEAM_COLOURS, WHITE
from panel.hardware.runner import PanelRunner
from panel.layout import load_layout
from pin_tools import Rig, chatter

SMALL = Path(__file__).resolve().parent.parent / "panel" / "maps" / "small.toml"
PENGUINS = TEAM_COLOURS[0]
# the small build's pins (panel/maps/small.toml)
FLIP, START, UP, DOWN, LEFT, RED_BTN, SWITCH = 5, 6, 17, 27, 22, 24, 4
# its pixels
RING = range(0, 16)
COUNTERS = range(16, 20)
MISTAKES = range(20, 22)
PROGRESS = range(22, 27)
LED = {"cockpit.flip": 27, "cockpit.start": 28, "cross.left": 31}


class Cockpit:
    def __init__(self):
        self.rig = Rig()
        self.map = load_map(SMALL)
        self.layout = load_layout()
        self.strip = FakeStrip(self.map.neopixel.count)
        self.hw = Hardware(self.map, self.layout, self.rig.hub, pin_factory=self.rig.factory, strip=self.strip)
        settings = MatchSettings(teams=(Team("Penguins", ("Ana", "Ben")), Team("Puffins", ("Cy", "Di"))),
                                 turn_seconds=30, seed=1)
        cards = [Card("simple", press=("cross.up",)),
                 Card("simple", press=("cross.red",), set=(("switch.left", "up"),)),
                 Card("simple", press=("cross.down",)),
                 Card("simple", press=("cross.right",), set=(("switch.left", "down"),))]
        self.match = Match(settings, self.layout, cards, positions=self.hw.positions())
        self.runner = PanelRunner(self.match, self.rig.hub, self.hw.effects)
        self.t = 99.9

    def run_to(self, t: float, dt: float = 0.05) -> None:
        """Let the loop take the pins' edges, then step the runner every dt up to t."""
        self.rig.loop.run_until_complete(asyncio.sleep(0))
        while self.t < t - 1e-9:
            self.t = min(t, self.t + dt)
            self.rig.clock.t = self.t
            self.runner.step(self.t)

    def press(self, pin: int, at: float, hold: float = 0.15) -> None:
        self.run_to(at)
        chatter(self.rig.pin(pin), self.rig.clock, True, at=at, bounces=(0.001, 0.003, 0.006, 0.008))
        self.run_to(at + hold)
        chatter(self.rig.pin(pin), self.rig.clock, False, at=at + hold, bounces=(0.002, 0.004))
        self.run_to(at + hold + 0.05)

    def frame_at(self, t: float):
        self.run_to(t)
        return self.strip.last

    def types(self) -> list[str]:
        return [e.type for e in self.runner.log]

    def close(self):
        self.hw.close()
        self.rig.close()


@pytest.fixture
def cockpit():
    c = Cockpit()
    yield c
    c.close()


def px(frame, pixels):
    return [frame[i] for i in pixels]


def test_a_whole_turn_through_the_pins(cockpit):
    c = cockpit
    buzzer = c.rig.pin(12)
    f = c.frame_at(99.95)
    assert px(f, RING) == [tuple(round(x * 0.15) for x in PENGUINS)] * 16   # between turns: dim team colour
    assert f[LED["cockpit.start"]] == GREEN

    # START (with chatter): one turn starts; the ring flashes the team's colour, a chirp sounds
    c.press(START, 100.0)
    assert c.types() == ["turn_started", "card_drawn"]
    assert c.runner.log[0].t == 100.0                 # judged at the first edge
    assert px(c.strip.frames[-1], RING) == [PENGUINS] * 16
    assert buzzer.notes == [880.0, 1318.5]
    f = c.frame_at(101.5)                             # after the flash: full ring draining
    assert px(f, RING)[:15] == [PENGUINS] * 15 and f[LED["cockpit.start"]] == OFF

    # card 1: press cross.up (bouncing): one press, card complete, a counter, progress
    c.press(UP, 102.0)
    assert c.types().count("card_completed") == 1 and "counter_granted" in c.types()
    assert buzzer.notes[-2:] == [1318.5, 1760.0]
    f = c.frame_at(102.1)
    assert px(f, PROGRESS) == [WHITE, OFF, OFF, OFF, OFF]      # the newest card flashes
    assert px(f, COUNTERS) == [AMBER, OFF, OFF, OFF]
    assert f[LED["cockpit.flip"]] == AMBER                      # a counter to spend
    f = c.frame_at(103.0)
    assert px(f, PROGRESS) == [GREEN, OFF, OFF, OFF, OFF]

    # card 2: switch up (settles 500 ms in the engine) and cross.red
    c.run_to(104.0)
    chatter(c.rig.pin(SWITCH), c.rig.clock, True, at=104.0, bounces=(0.002, 0.005))
    c.press(RED_BTN, 104.2)
    c.run_to(105.5)
    assert c.types().count("card_completed") == 2
    assert px(c.strip.last, PROGRESS) == [GREEN, GREEN, OFF, OFF, OFF]

    # card 3: a wrong button first: a mistake, cross.left is stuck, its LED red
    c.press(LEFT, 106.0)
    mistakes = [e for e in c.runner.log if e.type == "mistake"]
    assert len(mistakes) == 1 and mistakes[0].details.get("control") == "cross.left"
    c.run_to(106.6)
    assert buzzer.notes[-2:] == [329.6, 246.9]
    f = c.frame_at(107.5)                              # after the mistake cue: steady
    assert px(f, MISTAKES) == [RED, OFF]
    assert f[LED["cross.left"]] == RED
    c.press(DOWN, 108.0)
    assert c.types().count("card_completed") == 3

    # FLIP: spend a counter, the timer is full again (30 s from 110)
    c.press(FLIP, 110.0)
    assert "counter_spent" in c.types()
    assert c.match.snapshot(110.2)["time_left"] == pytest.approx(30 - 0.2)
    assert px(c.frame_at(110.5), COUNTERS) == [AMBER, AMBER, OFF, OFF]  # 3 granted, 1 spent

    # the last five seconds: a tick each second, the ring blinking red with it
    ticks_before = buzzer.notes.count(2093.0)
    f = c.frame_at(135.2)                              # 4.8 s left: on
    lit = px(f, RING)
    assert all(p[1] == 0 and p[2] == 0 for p in lit) and lit[0] == RED
    assert px(c.frame_at(135.7), RING) == [OFF] * 16   # 4.3 s left: off
    c.run_to(139.99)
    assert buzzer.notes.count(2093.0) - ticks_before == 5
    assert [s for _, s in c.hw.effects.sounds].count("tick") == 5

    # time runs out: the turn ends with its sound and three white flashes
    c.run_to(140.1)
    ended = [e for e in c.runner.log if e.type == "turn_ended"]
    assert len(ended) == 1 and ended[0].t == 140.0 and ended[0].details["reason"] == "time"
    assert px(c.strip.last, RING) == [WHITE] * 16
    c.run_to(141.0)
    assert buzzer.notes[-3:] == [1760.0, 1318.5, 880.0]
    f = c.frame_at(142.0)
    assert f[LED["cockpit.start"]] == GREEN            # next team, waiting to start
    assert px(f, RING) == [tuple(round(x * 0.15) for x in TEAM_COLOURS[1])] * 16
    assert c.match.scores["Penguins"] == 3
    c.run_to(143.0)
    assert buzzer.frequency is None or buzzer.state == 0    # nothing left sounding


def test_nothing_is_judged_between_turns_but_the_panel_is_live(cockpit):
    c = cockpit
    c.press(LEFT, 100.0)
    assert c.types() == []
    chatter(c.rig.pin(SWITCH), c.rig.clock, True, at=101.0)
    c.run_to(102.0)
    assert c.match.snapshot(102.0)["positions"]["switch.left"] == "up"
