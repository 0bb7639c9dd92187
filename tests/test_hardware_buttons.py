"""Buttons and two-position tokens through gpiozero Buttons on MockPins, debounced by us."""

from __future__ import annotations

import threading

from panel.core.events import InputEvent
from panel.hardware.buttons import ContactInput
from pin_tools import chatter



def test_a_bouncy_press_is_one_press_at_its_first_edge(rig):
    with ContactInput("cross.ok", 17, hub=rig.hub, pin_factory=rig.factory):
        pin = rig.pin(17)
        chatter(pin, rig.clock, True, at=100.0, bounces=(0.001, 0.002, 0.004, 0.007, 0.008, 0.010))
        assert rig.events() == [InputEvent("cross.ok", True, 100.0)]
        chatter(pin, rig.clock, False, at=100.5, bounces=(0.001, 0.003, 0.006, 0.009))
        assert rig.events() == []                      # the release waits for the window
        assert rig.events(until=100.5 + 0.009 + 0.012) == [InputEvent("cross.ok", False, 100.509)]


def test_long_and_short_presses(rig):
    with ContactInput("alarm.red", 5, hub=rig.hub, pin_factory=rig.factory) as b:
        pin = rig.pin(5)
        chatter(pin, rig.clock, True, at=100.0)
        chatter(pin, rig.clock, False, at=103.0)       # a long press: 3 s
        ev = rig.events()
        assert b.value is True                         # not released until the window passes
        chatter(pin, rig.clock, True, at=103.1)
        chatter(pin, rig.clock, False, at=103.105)     # a 5 ms tap
        ev += rig.events(until=104.0)
        assert ev == [InputEvent("alarm.red", True, 100.0), InputEvent("alarm.red", False, 103.0),
                      InputEvent("alarm.red", True, 103.1), InputEvent("alarm.red", False, 103.105)]
        assert b.value is False


def test_presses_30ms_apart_through_pins_are_all_counted(rig):
    with ContactInput("cross.up", 22, hub=rig.hub, pin_factory=rig.factory):
        pin = rig.pin(22)
        for i in range(20):
            t = 100.0 + i * 0.030
            chatter(pin, rig.clock, True, at=t, bounces=(0.001, 0.003))
            chatter(pin, rig.clock, False, at=t + 0.012, bounces=(0.001, 0.002))
        ev = rig.events(until=101.0)
        assert [e.t for e in ev if e.value is True] == [100.0 + i * 0.030 for i in range(20)]
        assert len(ev) == 40


def test_token_reports_positions_and_gpiozero_bounce_time_is_off(rig):
    with ContactInput("switch.left", 4, hub=rig.hub, positions=("down", "up"), pin_factory=rig.factory) as s:
        assert s._device.pin.bounce is None
        assert s.value == "down"
        chatter(rig.pin(4), rig.clock, True, at=100.0, bounces=(0.002, 0.004))
        chatter(rig.pin(4), rig.clock, False, at=101.0)
        assert rig.events(until=102.0) == [InputEvent("switch.left", "up", 100.0),
                                           InputEvent("switch.left", "down", 101.0)]


def test_pull_down_active_high_contact(rig):
    with ContactInput("beacon.red", 6, hub=rig.hub, pull_up=False, pin_factory=rig.factory):
        pin = rig.pin(6)
        chatter(pin, rig.clock, True, at=100.0, active_low=False)
        assert rig.events() == [InputEvent("beacon.red", True, 100.0)]


def test_normally_closed_contact_pulled_up_reads_closed_when_high(rig):
    with ContactInput("lever.big", 16, hub=rig.hub, pull_up=True, active_high=True,
                      positions=("up", "down"), pin_factory=rig.factory) as lever:
        assert lever.value == "down"                  # pulled up, nothing pressing: high = closed
        chatter(rig.pin(16), rig.clock, False, at=100.0, active_low=False)
        assert rig.events(until=101.0) == [InputEvent("lever.big", "up", 100.0)]


def test_edges_from_gpiozero_threads_reach_the_loop_in_order(rig):
    """Edges made on other threads (as gpiozero's callbacks are) reach the queue through
    call_soon_threadsafe, in order, with the time read on that thread."""
    with ContactInput("cross.ok", 17, hub=rig.hub, pin_factory=rig.factory):
        pin = rig.pin(17)
        times = iter([100.0, 100.2, 100.4, 100.6])
        rig.hub.clock = lambda: next(times)

        def worker():
            pin.drive_low()
            pin.drive_high()
            pin.drive_low()
            pin.drive_high()

        th = threading.Thread(target=worker)
        th.start()
        th.join()
        ev = rig.events()
        rig.hub.poll(101.0)
        ev += rig.events()
        assert ev == [InputEvent("cross.ok", True, 100.0), InputEvent("cross.ok", False, 100.2),
                      InputEvent("cross.ok", True, 100.4), InputEvent("cross.ok", False, 100.6)]


def test_close_is_idempotent_and_frees_the_pin(rig):
    b = ContactInput("cross.ok", 17, hub=rig.hub, pin_factory=rig.factory)
    b.close()
    b.close()
    assert rig.hub.deadline is None
    with ContactInput("cross.ok", 17, hub=rig.hub, pin_factory=rig.factory):
        pass
