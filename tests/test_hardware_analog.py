"""Sliders: calibration, quantising with hysteresis, settle time; an MCP3008 over mock SPI."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panel.hardware.analog import AnalogInput, Calibration, SliderQuantiser
from panel.hardware.map import AdcSource
from mcp3008_chip import MockMCP3008
from pin_tools import Rig

POSITIONS = ("0", "1", "2", "3", "4")


def test_calibration_maps_and_clamps():
    cal = Calibration(0.1, 0.9)
    assert cal(0.1) == 0.0 and cal(0.9) == 1.0 and cal(0.5) == pytest.approx(0.5)
    assert cal(0.0) == 0.0 and cal(1.0) == 1.0
    assert Calibration(0.9, 0.1)(0.8) == pytest.approx(0.125)  # wired the other way round
    with pytest.raises(ValueError):
        Calibration(0.5, 0.5)


def test_position_reported_only_after_the_settle_time():
    q = SliderQuantiser(POSITIONS, settle=0.15)
    assert q.update(0.5, 0.0) is None
    assert q.update(0.5, 0.1) is None
    assert q.update(0.5, 0.15) == "2"
    assert q.update(0.5, 0.3) is None          # reported once
    assert q.update(0.95, 1.0) is None
    assert q.update(0.95, 1.14) is None
    assert q.update(0.95, 1.16) == "4"


def test_passing_through_positions_while_moving_reports_only_where_it_stops():
    q = SliderQuantiser(POSITIONS, settle=0.15)
    q.update(0.05, 0.0)
    assert q.update(0.05, 0.2) == "0"
    # a 0.45 s push to the top: 90 ms in each position on the way, never the 150 ms to settle
    reported = [q.update(0.05 + i * 0.02, 0.2 + i * 0.01) for i in range(1, 46)]
    assert [r for r in reported if r] == []
    assert q.update(0.95, 0.65 + 0.16) == "4"


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=4), st.integers(min_value=0, max_value=2**32 - 1),
       st.booleans())
def test_noise_of_3_percent_at_a_boundary_never_flips(boundary, seed, from_below):
    rnd = random.Random(seed)
    q = SliderQuantiser(POSITIONS, calibration=(0.0, 1.0), hysteresis=0.05, settle=0.1)
    b = boundary / 5
    # settle clearly on one side first, then sit on the boundary with +-3 % noise
    start = b - 0.1 if from_below else b + 0.1
    q.update(start, 0.0)
    first = q.update(start, 0.2)
    assert first == POSITIONS[boundary - 1 if from_below else boundary]
    for i in range(400):
        assert q.update(b + rnd.uniform(-0.03, 0.03), 0.3 + i * 0.02) is None
    assert q.position == first


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_noisy_sweep_up_and_down_lands_on_each_position(seed):
    """A slow sweep with +-3 % noise: every position is reached in order, once each way."""
    rnd = random.Random(seed)
    q = SliderQuantiser(POSITIONS, calibration=(0.05, 0.95), settle=0.1)
    t = 0.0
    seen = []
    for target in (0.1, 0.3, 0.5, 0.7, 0.9, 0.7, 0.5, 0.3, 0.1):
        for _ in range(30):                       # hold each position 0.6 s
            raw = 0.05 + target * 0.9 + rnd.uniform(-0.03, 0.03)
            r = q.update(raw, t)
            t += 0.02
            if r:
                seen.append(r)
    assert seen == ["0", "1", "2", "3", "4", "3", "2", "1", "0"]


def test_mcp3008_channel_sampled_from_the_loop():
    rig = Rig()
    chip = MockMCP3008(pin_factory=rig.factory)
    try:
        with AnalogInput("slider.blue", AdcSource(1, settle_ms=100), hub=rig.hub, positions=POSITIONS, interval=0.02,
                         pin_factory=rig.factory) as s:
            chip.values[1] = 0.72                  # position 3 (0.6-0.8)
            chip.values[0] = 0.1                   # another channel, not ours
            t = 100.0
            events = []
            while t < 100.2:
                assert rig.hub.deadline <= t
                events += rig.events(until=t)
                t += 0.02
            assert [(e.control, e.value) for e in events] == [("slider.blue", "3")]
            assert 100.1 - 1e-9 <= events[0].t <= 100.12 + 1e-9   # after 100 ms of settle
            chip.values[1] = 0.74                  # noise inside the band: nothing
            events = []
            for i in range(10):
                events += rig.events(until=t + i * 0.02)
            assert events == []
            assert s.value == "3"
    finally:
        chip.close()
        rig.close()
