"""The hardware map's co-processor part, turned into the firmware config and link maps,
and a press on the reference build's emulated Pico arriving as the mapped control."""

import threading
from pathlib import Path

from panel.events import InputEvent
from panel.firmware import config as fwconfig
from panel.hardware.map import load_map
from panel.link.emulator import FirmwareEmulator
from panel.link.from_map import link_for_map, link_settings

REFERENCE = Path(__file__).resolve().parent.parent / "hardware" / "reference.toml"


def test_the_reference_map_gives_a_valid_firmware_config_and_consistent_maps():
    s = link_settings(load_map(REFERENCE))
    cfg = s["firmware_config"]
    assert fwconfig.validate(cfg) == []
    assert cfg["rows"] == [0, 1, 2, 3, 4, 5, 6, 7] and cfg["cols"] == list(range(8, 18))
    assert cfg["adc"] == [26, 27]
    assert s["adc_map"] == {0: "slider.blue", 1: "slider.red"}
    assert s["matrix_map"][(1, 7)] == "cross.ok"
    assert all(0 <= r < len(cfg["rows"]) and 0 <= c < len(cfg["cols"]) for r, c in s["matrix_map"])


def test_a_press_on_the_reference_pico_arrives_as_its_control():
    hmap = load_map(REFERENCE)
    cfg = link_settings(hmap)["firmware_config"]
    got, connected = [], threading.Event()
    arrived = threading.Event()

    def on_event(e):
        got.append(e)
        arrived.set()

    with FirmwareEmulator(cfg) as emu:
        link = link_for_map(hmap, finder=lambda: [emu.port], on_event=on_event,
                            on_status=lambda s: s["state"] == "connected" and connected.set())
        with link:
            assert connected.wait(10)
            emu.press(1, 7)
            assert arrived.wait(10)
            assert [(e.control, e.value) for e in got] == [("cross.ok", True)]
            assert isinstance(got[0], InputEvent)
            assert link.status()["board"]["cfg"] == "%04X" % link._config_crc   # no config push needed
