"""The built cockpit through the service: the small build's hardware map on gpiozero
MockPins, its START button starting a turn in the cockpit (logged), the pixels drawn."""

import asyncio
import contextlib
import threading
from pathlib import Path

from panel.hardware.leds import FakeStrip
from panel.hardware.map import load_map
from panel.service.cockpit import Cockpit
from panel.service.hardware_io import HardwareIO
from panel.storage.store import Store
from pin_tools import factory, level
from teams import TEAMS
from waiting import until

SMALL = Path(__file__).resolve().parent.parent / "panel" / "maps" / "small.toml"
REFERENCE = SMALL.with_name("reference.toml")
START_PIN = 6


@contextlib.asynccontextmanager
async def built(tmp_path, map_path):
    """The build's Pi side on MockPins (pixels on a FakeStrip) in the real cockpit and store."""
    pins = factory()
    hmap = load_map(map_path)
    io = HardwareIO(hmap, pin_factory=pins, strip=FakeStrip(hmap.neopixel.count))
    with Store(tmp_path / "panel.db") as store:
        cockpit = Cockpit(store, sources=[io], effects=[io])
        await cockpit.start()
        try:
            yield pins, io, store, cockpit
        finally:
            await cockpit.close()
            pins.reset()


def test_start_button_starts_a_turn_and_the_ring_lights(tmp_path):
    async def scenario():
        async with built(tmp_path, SMALL) as (pins, io, store, cockpit):
            await cockpit.create_match({"teams": TEAMS, "seed": 1})
            level(pins.pin(START_PIN), True)
            assert await until(lambda: cockpit.match.phase.value == "in_turn")
            level(pins.pin(START_PIN), False)
            logged = [(e.kind, e.data) for e in store.entries(cockpit.record.id)]
            assert ("input", {"control": "cockpit.start", "value": True}) in logged
            assert await until(lambda: io.strip.last is not None and any(any(p) for p in io.strip.last))
        assert io.inputs == {} and io.effects is None  # closed with the cockpit

    asyncio.run(scenario())


def test_the_calibration_file_is_applied_and_its_absence_named(tmp_path):
    from panel.hardware.calibration import Calibration, SliderCalibration, default_path, save

    io = HardwareIO(load_map(SMALL), map_arg="small")
    assert io.warnings and "penguin-panel calibrate small" in io.warnings[0]
    sliders = [cid for cid, s in io.map.controls.items() if cid.startswith("slider.")]
    assert sliders
    save(Calibration(io.map.name, {cid: SliderCalibration(0.1, 0.9) for cid in sliders},
                     {cid: "1" for cid in io.map.controls if cid.startswith("knob.")}), default_path())
    io = HardwareIO(load_map(SMALL))
    assert io.warnings == []
    assert all(io.map.controls[cid].calibration == (0.1, 0.9) for cid in sliders)
    assert io.state_dir == default_path().parent


class LoopSleeps:
    """Watches how the event loop waits: `idle` is set when it waits with no timer at all
    (nothing due: it sleeps until a pin, a socket or another thread wakes it)."""

    def __init__(self, loop):
        self.loop = loop
        self.idle = threading.Event()
        self.timeouts: list = []
        select = loop._selector.select  # the loop's own wait (what aiotools' clock patches too)

        def watched(timeout=None):
            self.timeouts.append(timeout)
            if timeout is None:
                self.idle.set()
            return select(timeout)

        loop._selector.select = watched

    async def until_idle(self) -> bool:
        """True once the loop has slept with no timer (a thread watches, so that this wait
        adds no timer of its own); False if it never did within a generous guard."""
        self.idle.clear()
        woken = asyncio.Event()

        def watch():
            self.seen = self.idle.wait(30)  # a guard against a loop that never idles, not a measure
            self.loop.call_soon_threadsafe(woken.set)

        threading.Thread(target=watch, daemon=True).start()
        await woken.wait()
        return self.seen


def test_an_idle_cockpit_wakes_for_nothing(tmp_path):
    """The reference build's Pi side (no ADC there to sample): with no match, with a match
    between turns, and after a press once its release is reported, the loop sleeps with
    no timer; the release's debounce window is timed exactly, not polled."""
    async def scenario():
        sleeps = LoopSleeps(asyncio.get_running_loop())
        async with built(tmp_path, REFERENCE) as (pins, io, store, cockpit):
            assert await sleeps.until_idle()  # no match: nothing to do
            await cockpit.create_match({"teams": TEAMS, "seed": 1})
            assert await sleeps.until_idle()  # between turns: nothing moves
            flip = pins.pin(io.map.controls["cockpit.flip"].pin)
            level(flip, True)
            level(flip, False)  # a release: reported once it has held for the debounce window
            assert await until(lambda: [e.data for e in store.entries(cockpit.record.id)][-1:] ==
                               [{"control": "cockpit.flip", "value": False}])
            assert await sleeps.until_idle()  # and then nothing again

    asyncio.run(scenario())


def test_sliders_are_sampled_at_the_matchs_pace_only_while_one_is_played(tmp_path):
    """An MCP3008 has no interrupt: its sliders are read on a timer, fifty times a second
    while a match is played, four times a second while none is."""
    from panel.hardware.analog import AnalogInput

    async def scenario():
        async with built(tmp_path, SMALL) as (pins, io, store, cockpit):
            sliders = [inp for inp in io.inputs.values() if isinstance(inp, AnalogInput)]
            assert sliders
            await cockpit.call(lambda: None, durable=False)  # the start's own publish is done
            assert {s.interval for s in sliders} == {AnalogInput.SAMPLE_EVERY_IDLE}
            await cockpit.create_match({"teams": TEAMS, "seed": 1})
            assert {s.interval for s in sliders} == {AnalogInput.SAMPLE_EVERY}
            await cockpit.action("end", {})
            assert {s.interval for s in sliders} == {AnalogInput.SAMPLE_EVERY_IDLE}

    asyncio.run(scenario())
