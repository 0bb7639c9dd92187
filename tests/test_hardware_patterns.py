"""LED patterns (pure), the buzzer's tunes (non-blocking, prioritised), and effects tying
each sound to a light."""

from __future__ import annotations

import math

import pytest

from panel.core.events import GameEvent
from panel.hardware.buzzer import BuzzerPlayer
from panel.hardware.effects import Effects
from panel.hardware.leds import FakeStrip
from panel.hardware.map import NeoPixelConfig
from panel.games.airlines.show import (AMBER, GREEN, OFF, PRIORITY, RED, TEAM_COLOURS, TUNES, WHITE, Cue, drain,
                                     render, timer_ring)
from pin_tools import factory

CFG = NeoPixelConfig(10, "spi", 40, segments={"timer": (0, 24), "counters": (24, 4), "mistakes": (28, 2),
                                              "progress": (30, 5)},
                     buttons={"cross.ok": 35, "cockpit.flip": 36, "cockpit.start": 37})
TEAMS = [{"name": "A", "players": []}, {"name": "B", "players": []}]


def snap(**kw):
    s = {"phase": "in_turn", "team": "A", "teams": TEAMS, "time_left": 30.0, "turn_seconds": 30,
         "counters_held": 0, "mistakes": 0, "completed": 0, "stuck": None, "winner": None}
    s.update(kw)
    return s


def test_drain_full_half_and_partial():
    assert drain(4, 1.0, WHITE) == [WHITE] * 4
    assert drain(4, 0.5, WHITE) == [WHITE, WHITE, OFF, OFF]
    assert drain(4, 0.375, (200, 0, 0)) == [(200, 0, 0), (100, 0, 0), OFF, OFF]
    assert drain(4, 0.0, WHITE) == [OFF] * 4


@pytest.mark.parametrize("n", [24, 30, 60])
def test_the_ring_drains_like_the_hourglass(n):
    lit = [sum(1 for p in timer_ring(snap(time_left=t), 0, n, []) if p != OFF) for t in (30, 22.5, 15, 7.5)]
    assert lit == [n, math.ceil(n * 3 / 4), n // 2, math.ceil(n / 4)]   # the partial pixel counts
    assert timer_ring(snap(time_left=20), 0, n, [])[0] == TEAM_COLOURS[0]


def test_last_five_seconds_blink_red_with_the_ticks():
    on = timer_ring(snap(time_left=4.9), 0, 24, [])
    assert on[0] == RED and all(p in (RED, OFF) or p[1:] == (0, 0) for p in on)
    assert timer_ring(snap(time_left=4.4), 0, 24, []) == [OFF] * 24
    assert timer_ring(snap(time_left=4.0), 0, 24, [])[0] == RED
    assert timer_ring(snap(time_left=5.2), 0, 24, [])[0] == TEAM_COLOURS[0]   # not yet


def test_paused_between_turns_and_finished():
    assert timer_ring(snap(phase="paused", time_left=15), 0, 24, [])[:12] == [AMBER] * 12
    assert timer_ring(snap(phase="between_turns", team="B"), 0, 4, []) == [(38, 0, 6)] * 4
    assert timer_ring(snap(phase="finished", winner=["B"]), 0, 4, []) == [TEAM_COLOURS[1]] * 4


def test_cues_team_colour_at_turn_start_flashes_and_chase():
    assert timer_ring(snap(), 100.5, 4, [Cue("turn_start", 100.0, "B")]) == [TEAM_COLOURS[1]] * 4
    assert timer_ring(snap(), 101.5, 4, [Cue("turn_start", 100.0, "B")])[0] == TEAM_COLOURS[0]
    assert timer_ring(snap(phase="between_turns"), 100.1, 4, [Cue("turn_end", 100.0)]) == [WHITE] * 4
    assert timer_ring(snap(phase="between_turns"), 100.3, 4, [Cue("turn_end", 100.0)]) == [OFF] * 4
    chase1 = timer_ring(snap(phase="finished", winner=["B"]), 100.0, 12, [Cue("game_end", 100.0)])
    chase2 = timer_ring(snap(phase="finished", winner=["B"]), 100.1, 12, [Cue("game_end", 100.0)])
    assert chase1 != chase2 and chase1.count(TEAM_COLOURS[1]) == 4


def test_counters_mistakes_progress_and_button_leds():
    f = render(snap(counters_held=3, mistakes=1, completed=2, stuck="cross.ok", actions={"flip": {}}), 0, CFG)
    assert f[24:28] == [AMBER, AMBER, AMBER, OFF]
    assert f[28:30] == [RED, OFF]
    assert f[30:35] == [GREEN, GREEN, OFF, OFF, OFF]
    assert f[35] == RED and f[36] == AMBER and f[37] == OFF
    # the newest card flashes white with the card sound; the mistake pixels blink with theirs
    f = render(snap(completed=2, mistakes=1), 100.1, CFG, [Cue("card", 100.0), Cue("mistake", 100.0)])
    assert f[31] == WHITE and f[28] == RED
    f = render(snap(completed=2, mistakes=1, stuck="cross.ok"), 100.05 + 0.125, CFG, [Cue("mistake", 100.05)])
    assert f[28] == OFF and f[35] == OFF
    between = render(snap(phase="between_turns", counters_held=2, actions={"start_turn": {}}), 0, CFG)
    assert between[24:35] == [OFF] * 11 and between[37] == GREEN


def play(buzzer, name, now):
    """The buzzer plays the tune a game's show declares (here Penguin Airlines')."""
    return buzzer.play(name, now, steps=TUNES[name], priority=PRIORITY[name])


def test_buzzer_steps_without_blocking_and_tick_never_cuts_a_mistake():
    f = factory()
    with BuzzerPlayer(12, pin_factory=f) as b:
        pin = f.pin(12)
        play(b, "mistake", 10.0)
        assert b.deadline == pytest.approx(10.15)
        assert not play(b, "tick", 10.1)
        b.poll(10.15)
        b.poll(10.21)
        assert pin.notes == [329.6, 246.9]
        b.poll(11.0)
        assert b.playing is None and pin.state == 0 and b.deadline is None
        assert play(b, "tick", 12.0) and play(b, "game_end", 12.01)   # a bigger one cuts the tick
        b.poll(20.0)                                                  # a late loop catches up at once
        assert pin.notes[-2:] == [2093.0, 880.0]                      # the missed notes are skipped
        assert b.playing is None


def test_every_tune_is_in_the_buzzer_range():
    assert all(f is None or 220 <= f <= 3520 for tune in TUNES.values() for f, _ in tune)


def test_every_sound_has_its_light():
    f = factory()
    strip = FakeStrip(CFG.count)
    fx = Effects(strip, CFG, BuzzerPlayer(12, pin_factory=f))
    fx.apply([GameEvent(100.0, "turn_started", {"team": "A"})], snap(), 100.0)
    assert strip.last[0:24] == tuple([TEAM_COLOURS[0]] * 24)
    fx.apply([GameEvent(101.0, "mistake", {"control": "cross.ok"})], snap(mistakes=1, stuck="cross.ok"), 101.0)
    assert strip.last[28] == RED and strip.last[35] == RED
    fx.apply([GameEvent(102.0, "card_completed", {})], snap(completed=1, mistakes=1), 102.0)
    assert strip.last[30] == WHITE
    fx.apply([GameEvent(102.5, "challenge", {"team": "B"})], snap(phase="paused", completed=1, mistakes=1), 102.5)
    assert strip.last[0:24] == tuple([AMBER] * 24)
    fx.apply([GameEvent(103.0, "turn_ended", {}), GameEvent(103.0, "game_ended", {})],
             snap(phase="finished", winner=["A"]), 103.0)
    assert [s for _, s in fx.sounds] == ["turn_start", "mistake", "card", "challenge", "game_end"]
    assert {c.kind for c in fx.cues} >= {"game_end"}
    assert fx.deadline is not None
    fx.close()
    fx.close()
    assert strip.closed


def test_frames_keep_a_fixed_schedule_while_the_ring_moves_and_stop_when_it_rests():
    """The next frame is the next slot of a fixed grid: an update between frames (a press)
    does not move it, a late wake-up skips the slots it missed, and a paused or finished
    turn with no cue asks for no frame at all."""
    strip = FakeStrip(CFG.count)
    fx = Effects(strip, CFG, None, frame_interval=0.05)
    fx.apply([], snap(), 10.0)
    assert fx.deadline == pytest.approx(10.05)
    fx.apply([], snap(time_left=19.97), 10.03)  # a press between two frames
    assert fx.deadline == pytest.approx(10.05)
    fx.update(snap(time_left=19.95), 10.0501)  # woken a hair late
    assert fx.deadline == pytest.approx(10.10)
    fx.update(snap(time_left=19.80), 10.2207)  # woken very late: the missed slots are skipped
    assert fx.deadline == pytest.approx(10.25)
    for _ in range(1000):  # many frames: still on the grid, no drift
        fx.update(snap(time_left=5.0), fx.deadline)
    assert fx.deadline == pytest.approx(10.25 + 1000 * 0.05)
    fx.update(snap(phase="paused"), fx.deadline)
    assert fx.deadline is None  # nothing moves: no frame due
