"""A three-position round lever read from a pin pair."""

from __future__ import annotations

import pytest

from panel.core.events import InputEvent
from panel.hardware.round_lever import RoundLeverInput
from pin_tools import chatter



def test_positions_from_the_pin_pair_with_bounce(rig):
    with RoundLeverInput("round_lever.red", (5, 6), hub=rig.hub, positions=("0", "1", "2"),
                         pin_factory=rig.factory) as lever:
        a, b = rig.pin(5), rig.pin(6)
        assert lever.value == "1"                       # neither closed: the middle
        chatter(a, rig.clock, True, at=100.0, bounces=(0.001, 0.004))
        assert rig.events() == [InputEvent("round_lever.red", "0", 100.0)]
        chatter(a, rig.clock, False, at=101.0, bounces=(0.002, 0.005))
        assert rig.events() == []                       # opening waits for the window
        assert rig.events(until=101.1) == [InputEvent("round_lever.red", "1", 101.005)]
        chatter(b, rig.clock, True, at=102.0)
        assert rig.events() == [InputEvent("round_lever.red", "2", 102.0)]
        assert lever.value == "2"


def test_both_contacts_closed_is_ignored(rig):
    with RoundLeverInput("round_lever.blue", (16, 26), hub=rig.hub, positions=("0", "1", "2"),
                         pin_factory=rig.factory) as lever:
        chatter(rig.pin(16), rig.clock, True, at=100.0)
        chatter(rig.pin(26), rig.clock, True, at=100.5)  # a short between the wires
        assert [e.value for e in rig.events(until=101.0)] == ["0"]
        assert lever.value == "0"
        chatter(rig.pin(16), rig.clock, False, at=102.0)
        assert [e.value for e in rig.events(until=103.0)] == ["2"]


def test_needs_three_positions(rig):
    with pytest.raises(ValueError):
        RoundLeverInput("switch.left", (5, 6), hub=rig.hub, positions=("down", "up", "x", "y"),
                        pin_factory=rig.factory)
