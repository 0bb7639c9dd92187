"""Penguin Kaboom's lights: frames drawn from the engine's own snapshots."""

from __future__ import annotations

from panel.games.kaboom.show import (BLUE, CUE_SECONDS, DIM, PLAYER_COLOURS, PRIORITY, TUNES, Cue, button_lights,
                                     render, ring)
from panel.hardware.map import NeoPixelConfig
from panel.games.lights import AMBER, GREEN, OFF, RED, WHITE, scale

from kaboom_helpers import MAPPING, act, hold, match, press

N = 24
CFG = NeoPixelConfig(10, "spi", 40, segments={"timer": (0, N), "counters": (N, 4)},
                     buttons={c: 28 + i for i, c in enumerate(list(MAPPING.players.values()) + [
                         MAPPING.recharge, MAPPING.mission, MAPPING.alert_flipped, MAPPING.alert_deactivated,
                         MAPPING.start])})


def lights(m, t):
    return button_lights(m.snapshot(t), t)


def colour_light(m, t, colour):
    return lights(m, t)[MAPPING.players[colour]]


def test_before_the_start_each_player_has_a_dim_share_of_the_ring_and_start_is_green():
    m = match(("red", "blue"))
    frame = ring(m.snapshot(0.0), 0.0, N, [])
    assert frame == [scale(PLAYER_COLOURS["red"], DIM)] * 12 + [scale(PLAYER_COLOURS["blue"], DIM)] * 12
    got = lights(m, 0.0)
    assert got[MAPPING.start] == GREEN and got[MAPPING.players["red"]] == PLAYER_COLOURS["red"]
    assert got[MAPPING.players["yellow"]] == scale(PLAYER_COLOURS["yellow"], DIM)  # may still join
    act(m, "start", 1.0)
    assert lights(m, 1.0)[MAPPING.players["yellow"]] == OFF  # does not play
    assert got[MAPPING.recharge] == OFF


def test_the_ring_drains_the_running_clock_in_its_players_colour():
    m = match(("red", "blue", "black"), time_per_player=60, alert_seconds=600)
    act(m, "start", 0.0)
    first = m.active
    assert ring(m.snapshot(0.0), 0.0, N, []) == [PLAYER_COLOURS[first]] * N
    assert ring(m.snapshot(30.0), 30.0, N, []) == [PLAYER_COLOURS[first]] * 12 + [OFF] * 12
    assert colour_light(m, 30.0, first) == PLAYER_COLOURS[first]
    other = next(c for c in m.colours if c != first)
    assert colour_light(m, 30.0, other) == scale(PLAYER_COLOURS[other], DIM)
    assert PLAYER_COLOURS["black"] != OFF  # a pixel cannot show black
    act(m, "recharge", 30.0)  # the running clock is the least: 30 + 25 s
    act(m, "recharge", 30.0)  # still the least: 80 s, above the start
    assert m.time_left(first) == 80.0
    assert ring(m.snapshot(30.0), 30.0, N, []) == [PLAYER_COLOURS[first]] * N  # full


def test_the_last_ten_seconds_blink_red_with_the_ticks():
    m = match(("red",), time_per_player=20, alert_seconds=600)
    act(m, "start", 0.0)
    assert ring(m.snapshot(10.2), 10.2, N, [])[0] == RED  # 9.8 s left: just after a whole second
    assert ring(m.snapshot(10.8), 10.8, N, []) == [OFF] * N  # 9.2 s left
    assert ring(m.snapshot(9.0), 9.0, N, [])[0] == PLAYER_COLOURS["red"]  # 11 s left


def test_a_waiting_player_under_ten_seconds_blinks_red_on_their_button():
    m = match(("red", "blue"), time_per_player=20, alert_seconds=600, seed=0)
    act(m, "start", 0.0)
    a = m.active
    press(m, a, 12.0)  # a: 8 s left, waiting
    assert {colour_light(m, t, a) for t in (13.0, 13.5)} == {RED, scale(PLAYER_COLOURS[a], DIM)}


def test_an_alert_flashes_the_ring_and_its_button_until_reported_flipped():
    m = match(("red", "blue"), time_per_player=600, alert_seconds=10)
    act(m, "start", 0.0)
    m.advance(10.0)
    on, off = 10.1, 10.35  # 2 Hz: on for the first quarter second of each half
    assert ring(m.snapshot(on), on, N, []) == [RED] * N
    assert ring(m.snapshot(off), off, N, [])[0] == PLAYER_COLOURS[m.active]
    assert lights(m, on)[MAPPING.alert_flipped] == RED and lights(m, off)[MAPPING.alert_flipped] == OFF
    press(m, MAPPING.alert_flipped, 11.0)
    assert ring(m.snapshot(11.1), 11.1, N, [])[0] == PLAYER_COLOURS[m.active]
    assert lights(m, 11.1)[MAPPING.alert_flipped] == OFF
    assert lights(m, 11.1)[MAPPING.alert_deactivated] == scale(WHITE, DIM)  # a card is face up


def test_the_alert_cards_face_down_and_the_last_one_blinking():
    m = match(("red",), time_per_player=600, alert_seconds=10, alerts=3)
    act(m, "start", 0.0)
    frame = render(m.snapshot(1.0), 1.0, CFG)
    assert frame[N:N + 4] == [AMBER] * 3 + [OFF]
    for t in (10.0, 20.0):
        m.advance(t)
        press(m, MAPPING.alert_flipped, t)
    assert {render(m.snapshot(t), t, CFG)[N] for t in (20.2, 20.7)} == {RED, OFF}


def test_the_mission_button_wakes_up_when_its_protection_is_off():
    m = match(("red", "blue"))
    act(m, "start", 0.0)
    assert lights(m, 1.0)[MAPPING.mission] == scale(BLUE, DIM)
    act(m, "lift_cover", 1.0)
    assert {lights(m, t)[MAPPING.mission] for t in (1.1, 1.35)} == {BLUE, scale(BLUE, DIM)}
    assert lights(m, 1.0)[MAPPING.recharge] == GREEN


def test_closing_shows_who_still_has_to_put_a_finger_on():
    m = match(("red", "blue"))
    act(m, "start", 0.0)
    act(m, "lift_cover", 1.0)
    act(m, "confirm", 1.0)
    hold(m, "red", 2.0)
    for t in (2.1, 2.4):  # red held: steady; blue: blinking
        frame = ring(m.snapshot(t), t, N, [])
        assert frame[:12] == [PLAYER_COLOURS["red"]] * 12
        assert colour_light(m, t, "red") == PLAYER_COLOURS["red"]
    assert {ring(m.snapshot(t), t, N, [])[12] for t in (2.1, 2.4)} == {PLAYER_COLOURS["blue"], OFF}
    assert lights(m, 2.1)[MAPPING.recharge] == OFF


def test_the_end_green_or_red_with_its_cue_first():
    m = match(("red", "blue"))
    act(m, "start", 0.0)
    act(m, "lift_cover", 1.0)
    act(m, "confirm", 1.0)
    hold(m, "red", 2.0)
    hold(m, "blue", 2.0)
    cue = Cue("kaboom_success", 2.0)
    assert ring(m.snapshot(2.1), 2.1, N, [cue]).count(GREEN) == N // 3  # the chase
    assert ring(m.snapshot(9.0), 9.0, N, [cue]) == [GREEN] * N
    failed = match(("red",), time_per_player=10, alert_seconds=600)
    act(failed, "start", 0.0)
    failed.advance(10.0)
    assert ring(failed.snapshot(20.0), 20.0, N, []) == [RED] * N
    assert colour_light(failed, 20.2, "red") == RED  # whose clock ran out


def test_the_pass_cue_flashes_the_new_players_colour():
    m = match(("red", "blue"))
    act(m, "start", 0.0)
    nxt = next(c for c in m.colours if c != m.active)
    assert ring(m.snapshot(0.1), 0.1, N, [Cue("kaboom_pass", 0.0, nxt)]) == [PLAYER_COLOURS[nxt]] * N


def test_every_kaboom_sound_has_a_light_and_a_place_in_line():
    kaboom = [name for name in TUNES if name.startswith("kaboom_")]
    assert len(kaboom) >= 7
    for name in kaboom:
        assert name in CUE_SECONDS and name in PRIORITY
        assert sum(s for _, s in TUNES[name]) <= CUE_SECONDS[name] + 1e-9  # the light lasts the sound
    assert all(f is None or 220 <= f <= 3520 for name in kaboom for f, _ in TUNES[name])


# ---------------------------------------------------------------------- effects: sound and light

def played(fx):
    return [s for _, s in fx.sounds]


def step(fx, m, events, t):
    fx.apply(events, m.snapshot(t), t)


def test_every_kaboom_sound_starts_with_its_light_on_the_chain():
    from panel.hardware.buzzer import BuzzerPlayer
    from panel.hardware.effects import Effects
    from panel.hardware.leds import FakeStrip
    from pin_tools import factory

    strip = FakeStrip(CFG.count)
    with Effects(strip, CFG, BuzzerPlayer(12, pin_factory=factory())) as fx:
        m = match(("red", "blue"), time_per_player=600, alert_seconds=10)
        step(fx, m, act(m, "start", 0.0), 0.0)
        assert strip.last[:N] == tuple([PLAYER_COLOURS[m.active]] * N)  # the first player's colour
        events = press(m, m.active, 1.0)
        step(fx, m, events, 1.0)
        assert strip.last[:N] == tuple([PLAYER_COLOURS[events[0].details["to"]]] * N)
        step(fx, m, act(m, "recharge", 2.0), 2.0)
        assert strip.last[0][1] > 0 and strip.last[0][0] == 0  # the green pulse
        step(fx, m, act(m, "lift_cover", 3.0), 3.0)
        step(fx, m, act(m, "confirm", 3.0), 3.0)
        assert strip.last[:N] == tuple([WHITE] * N)
        step(fx, m, hold(m, "red", 4.0) + hold(m, "blue", 4.0), 4.0)
        assert played(fx) == ["kaboom_start", "kaboom_pass", "kaboom_recharge", "kaboom_confirmed", "kaboom_success"]
        assert strip.last[:N].count(GREEN) == N // 3  # the chase


def test_the_alert_siren_calls_again_until_the_card_is_reported_flipped():
    from panel.hardware.effects import Effects
    from panel.hardware.leds import FakeStrip

    strip = FakeStrip(CFG.count)
    fx = Effects(strip, CFG)
    m = match(("red",), time_per_player=600, alert_seconds=10)
    step(fx, m, act(m, "start", 0.0), 0.0)
    t = 0.0
    while t < 19.0:  # the service calls update at each deadline
        t = min(fx.deadline, 19.0)
        events = m.advance(t)
        step(fx, m, events, t)
    alerts = [at for at, s in fx.sounds if s == "kaboom_alert"]
    assert alerts[0] == 10.0 and alerts[1] == 14.0 and alerts[2] == 18.0
    step(fx, m, press(m, MAPPING.alert_flipped, 19.0), 19.0)
    while t < 23.5:
        t = min(fx.deadline, 23.5)
        events = m.advance(t)
        step(fx, m, events, t)
        if events:  # the next alert, at 20 s: reported at once
            step(fx, m, press(m, MAPPING.alert_flipped, t), t)
    assert [at for at, s in fx.sounds if s == "kaboom_alert"] == alerts + [20.0]  # the next alert only


def test_the_last_ten_seconds_tick():
    from panel.hardware.effects import Effects

    fx = Effects(None, None)
    m = match(("red",), time_per_player=15, alert_seconds=600)
    step(fx, m, act(m, "start", 0.0), 0.0)
    t = 0.0
    while not m.finished:
        t += 0.25
        step(fx, m, m.advance(t), t)
    ticks = [at for at, s in fx.sounds if s == "tick"]
    assert ticks == [5.0 + k for k in range(10)]  # at 10, 9 ... 1 s left
    assert played(fx)[-1] == "kaboom_failed"
