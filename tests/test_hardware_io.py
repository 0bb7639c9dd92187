"""The built cockpit through the service: the small build's hardware map on gpiozero
MockPins, its START button starting a turn in the cockpit (logged), the pixels drawn."""

import asyncio
from pathlib import Path

from panel.hardware.leds import FakeStrip
from panel.hardware.map import load_map
from panel.service.cockpit import Cockpit
from panel.service.hardware_io import HardwareIO
from panel.service.store import Store
from pin_tools import factory, level

SMALL = Path(__file__).resolve().parent.parent / "panel" / "maps" / "small.toml"
START_PIN = 6
TEAMS = [{"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy", "Di"]}]


async def until(predicate, steps=500):
    for _ in range(steps):  # bounded by steps, not by the wall clock
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return predicate()


def test_start_button_starts_a_turn_and_the_ring_lights(tmp_path):
    async def scenario():
        pins = factory()
        io = HardwareIO(load_map(SMALL), pin_factory=pins, strip=None)
        io.strip = FakeStrip(io.map.neopixel.count)
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sources=[io], effects=[io])
            await cockpit.start()
            try:
                await cockpit.create_match({"teams": TEAMS, "seed": 1})
                level(pins.pin(START_PIN), True)
                assert await until(lambda: cockpit.match.phase.value == "in_turn")
                level(pins.pin(START_PIN), False)
                logged = [(e.kind, e.data) for e in store.entries(cockpit.record.id)]
                assert ("input", {"control": "cockpit.start", "value": True}) in logged
                assert await until(lambda: io.strip.last is not None and any(any(p) for p in io.strip.last))
            finally:
                await cockpit.close()
                pins.reset()
        assert io.inputs == {} and io.effects is None  # closed with the cockpit

    asyncio.run(scenario())


def test_the_calibration_file_is_applied_and_its_absence_named(tmp_path):
    from panel.calibration import Calibration, SliderCalibration, default_path, save

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
