"""Analog channels (oversampling, filter, deadband) and the encoder, on the fake machine."""

from collections import deque

from panel.firmware.analog import Analog
from panel.firmware.encoder import Encoder
from panel.link.fake_machine import FakeMachine


def steps(a, n):
    """n scan steps of the analog inputs: what they report, as (channel, value)."""
    out = []
    for _ in range(n):
        v = a.step()
        if v >= 0:
            out.append((a.ch, v))
    return out


def test_oversampling_averages_out_noise_and_the_deadband_stops_chatter():
    m = FakeMachine()
    a = Analog(m, [26], oversample=16, deadband=8)
    noisy = deque([32000 + (i % 2) * 160 - 80 for i in range(10_000)])  # +-80 counts of 65535
    m.adc_values[26] = noisy
    out = steps(a, 200)
    assert out == [(0, 2000)]                  # one report; the noise never crosses the deadband


def test_a_slider_move_is_reported_and_settles_at_the_new_value():
    m = FakeMachine()
    a = Analog(m, [26, 27], oversample=4, deadband=8)
    m.adc_values[26], m.adc_values[27] = 16000, 48000
    a.settle()
    assert a.values() == [1000, 3000]
    m.adc_values[26] = 40000
    out = steps(a, 100)
    values = [v for ch, v in out if ch == 0]
    assert values == sorted(values) and abs(values[-1] - 2500) < 8
    assert all(ch == 0 for ch, _ in out)       # the still channel says nothing


def test_the_ends_of_travel_are_reported_exactly():
    m = FakeMachine()
    a = Analog(m, [26], deadband=50)
    m.adc_values[26] = 1000
    a.settle()
    m.adc_values[26] = 0
    out = steps(a, 60)
    assert out[-1] == (0, 0)


def turn(m, enc, steps):
    seq = [(1, 1), (0, 1), (0, 0), (1, 0)]
    out = []
    for i in range(1, abs(steps) + 1):
        a, b = seq[(i if steps > 0 else -i) % 4]
        m.set_level(20, a)
        m.set_level(21, b)
        p = enc.poll()
        if p is not None:
            out.append(p)
    return out


def test_the_encoder_counts_detents_both_ways():
    m = FakeMachine()
    m.set_level(20, 1)
    m.set_level(21, 1)
    e = Encoder(m, 20, 21, div=4)
    assert turn(m, e, 8) == [1, 2]
    assert turn(m, e, -12) == [1, 0, -1]


def test_bounce_near_a_detent_does_not_move_the_position():
    m = FakeMachine()
    m.set_level(20, 1)
    m.set_level(21, 1)
    e = Encoder(m, 20, 21, div=4)
    out = []
    for _ in range(20):                        # A chatters while B stays high
        for a in (0, 1):
            m.set_level(20, a)
            p = e.poll()
            if p is not None:
                out.append(p)
    assert out == [] and e.position == 0


def test_the_filter_follows_a_full_scale_jump_within_follow_samples():
    # What the emulator counts on when it waits for a slider to settle (wait_analog).
    from panel.firmware.analog import FOLLOW_SAMPLES

    for start, end, want in ((0, 65535, 4095), (65535, 0, 0), (0, 32768, 2048)):
        m = FakeMachine()
        a = Analog(m, [26], oversample=1, deadband=8)
        m.adc_values[26] = start
        a.settle()
        m.adc_values[26] = end
        reported = [v for v in (a.sample(0) for _ in range(FOLLOW_SAMPLES)) if v >= 0]
        assert abs(((a.filt[0] + 8) >> 4) - want) <= 1 and abs(reported[-1] - want) < 8  # the deadband
        assert all(a.sample(0) < 0 for _ in range(50))   # nothing more to say afterwards
