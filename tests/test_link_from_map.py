"""The hardware map's co-processor part, turned into the firmware config and link maps
(the one producer: `HardwareMap.board()`, which `firmware install --hardware` writes),
and a press on the reference build's emulated Pico arriving as the mapped control."""

import threading
from pathlib import Path

from panel.core.events import InputEvent
from panel.firmware import config as fwconfig
from panel.hardware.map import load_map
from panel.link.emulator import FirmwareEmulator
from panel.link.from_map import link_for_map

REFERENCE = Path(__file__).resolve().parent.parent / "panel" / "maps" / "reference.toml"


def test_the_reference_map_gives_a_valid_firmware_config_and_consistent_maps():
    board = load_map(REFERENCE).board()
    cfg = board.firmware_config
    assert fwconfig.validate(cfg) == []
    assert cfg["rows"] == [0, 1, 2, 3, 4, 5, 6, 7] and cfg["cols"] == list(range(8, 18))
    assert cfg["adc"] == [26, 27]
    assert board.adc == {0: "slider.blue", 1: "slider.red"}
    assert board.matrix[(1, 7)] == "cross.ok"
    assert all(0 <= r < len(cfg["rows"]) and 0 <= c < len(cfg["cols"]) for r, c in board.matrix)


def test_a_map_with_board_encoders_gives_a_config_the_firmware_takes(tmp_path):
    text = REFERENCE.read_text().replace("main = { encoder = [19, 18],", "main = { pico_encoder = [20, 21],")
    assert "pico_encoder" in text
    (tmp_path / "m.toml").write_text(text)
    board = load_map(tmp_path / "m.toml").board()
    assert fwconfig.validate(board.firmware_config) == []
    assert board.firmware_config["encoders"] == [[20, 21]] and board.encoders == {0: "knob.main"}


def test_a_press_on_the_reference_pico_arrives_as_its_control():
    hmap = load_map(REFERENCE)
    cfg = hmap.board().firmware_config
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
