"""Penguin Kaboom on a built cockpit: a hardware map's buttons and lever on gpiozero
MockPins feed the service; START starts the mission, the lever lifts the mission button's
protection, the mission button closes it, and holding every player's colour button at
once ends it in success, with the lights the patterns draw."""

import asyncio
from pathlib import Path

from panel.games.kaboom.engine import Phase
from panel.games.kaboom.show import PLAYER_COLOURS
from panel.hardware.leds import FakeStrip
from panel.hardware.map import load_map
from panel.games.airlines.show import GREEN
from panel.service.cockpit import Cockpit
from panel.service.hardware_io import HardwareIO
from panel.storage.store import Store
from pin_tools import factory, level
from waiting import until

MAP = Path(__file__).resolve().parent / "data" / "kaboom_map.toml"
PINS = {"cockpit.start": 6, "alarm.red": 5, "beacon.blue": 12, "cross.up": 17, "lever.big": 16}
MISSION = {"mode": "kaboom", "players": ["red", "blue"], "mission": "custom", "seed": 5,
           "custom": {"time_per_player": 600, "alert_seconds": 600, "recharge_seconds": 20,
                      "recharge_above_start": False}}


def test_holding_every_colour_button_ends_the_mission(tmp_path):
    async def scenario():
        pins = factory()
        io = HardwareIO(load_map(MAP), pin_factory=pins, strip=None)
        io.strip = FakeStrip(io.map.neopixel.count)
        ring = range(24)
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sources=[io], effects=[io])
            await cockpit.start()
            try:
                await cockpit.create_match(MISSION)
                match = cockpit.match

                def tap(control):
                    level(pins.pin(PINS[control]), True)
                    level(pins.pin(PINS[control]), False)

                tap("cockpit.start")
                assert await until(lambda: match.phase is Phase.PLAYING)
                first = match.active
                # the ring drains the running clock in its player's colour
                assert await until(lambda: io.strip.last[0] == PLAYER_COLOURS[first])
                level(pins.pin(PINS["lever.big"]), True)  # pulled down: the protection is off
                assert await until(lambda: match.cover_open)
                tap("cross.up")
                assert await until(lambda: match.phase is Phase.CLOSING)
                level(pins.pin(PINS["alarm.red"]), True)
                assert await until(lambda: "red" in match.held)
                assert not match.finished  # one finger is not every finger
                level(pins.pin(PINS["beacon.blue"]), True)
                assert await until(lambda: match.finished)
                assert match.outcome == "success" and cockpit.record.status == "finished"
                assert await until(lambda: GREEN in [io.strip.last[i] for i in ring])  # the success chase
                logged = [(e.kind, e.data) for e in store.entries(cockpit.record.id)]
                assert ("input", {"control": "beacon.blue", "value": True}) in logged
            finally:
                await cockpit.close()
                pins.reset()

    asyncio.run(scenario())
