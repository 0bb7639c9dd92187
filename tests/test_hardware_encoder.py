"""The knob: a RotaryEncoder on MockPins, kept as an absolute position across restarts."""

from __future__ import annotations

import pytest

from panel.core.events import InputEvent
from panel.hardware.encoder import KnobInput
from panel.hardware.map import EncoderSource
from pin_tools import turn

POS = ("1", "2", "3", "4", "5", "6")



def knob(rig, tmp_path, **kw):
    return KnobInput("knob.main", EncoderSource((19, 18), steps_per_position=4, **kw), hub=rig.hub, positions=POS,
                     state_file=tmp_path / "knob.json", pin_factory=rig.factory)


def test_turns_both_ways(rig, tmp_path):
    with knob(rig, tmp_path) as k:
        a, b = rig.pin(19), rig.pin(18)
        assert k.value == "1" and not k.homed
        t = turn(a, b, rig.clock, 4, at=100.0)
        assert [e.value for e in rig.events()] == ["2"]
        t = turn(a, b, rig.clock, 8, at=t)
        assert [e.value for e in rig.events()] == ["3", "4"]
        turn(a, b, rig.clock, -12, at=t)
        assert [e.value for e in rig.events()] == ["3", "2", "1"]
        assert k.steps == 0


def test_position_changes_halfway_between_detents_and_wraps(rig, tmp_path):
    with knob(rig, tmp_path) as k:
        a, b = rig.pin(19), rig.pin(18)
        turn(a, b, rig.clock, 1, at=100.0)
        assert rig.events() == []                 # 1 of 4 detents: still "1"
        turn(a, b, rig.clock, 1, at=101.0)
        assert rig.events() == [InputEvent("knob.main", "2", pytest.approx(101.006))]
        turn(a, b, rig.clock, -5, at=102.0)       # back past 1 (steps 0) to 6 (steps -4, from -3 on)
        assert [e.value for e in rig.events()] == ["1", "6"]
        assert k.value == "6"


def test_no_wrap_stops_at_the_ends(rig, tmp_path):
    with knob(rig, tmp_path, wrap=False) as k:
        turn(rig.pin(19), rig.pin(18), rig.clock, -8, at=100.0)
        assert rig.events() == [] and k.value == "1"


def test_absolute_position_survives_a_restart_and_home_sets_it(rig, tmp_path):
    with knob(rig, tmp_path) as k:
        k.home("3")
        assert k.value == "3" and k.homed
        turn(rig.pin(19), rig.pin(18), rig.clock, 8, at=100.0)
        assert [e.value for e in rig.events()] == ["4", "5"]
    rig.factory.reset()
    with knob(rig, tmp_path) as k:            # a new process: the encoder counts from 0 again
        assert k.homed and k.value == "5"
        turn(rig.pin(19), rig.pin(18), rig.clock, 4, at=200.0)
        assert [e.value for e in rig.events()] == ["6"]
    with pytest.raises(ValueError):
        KnobInput.home(k, "9")


def test_damaged_state_file_means_not_homed(rig, tmp_path):
    (tmp_path / "knob.json").write_text("{not json")
    with knob(rig, tmp_path) as k:
        assert not k.homed and k.value == "1"
