"""The kinds of map entry (panel.hardware.sources): each knows its pins, its plain
description, its device and how the self-test's simulated hands drive it; the callers ask
the source, whatever its kind."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from panel.core.layout_file import load_layout
from panel.firmware.config import ADC_PINS
from panel.hardware.devices import make_input
from panel.hardware.inputs import InputHub
from panel.hardware.map import check_map, load_map
from panel.hardware.selftest import Step
from panel.hardware.selftest_runner import SimPanel
from panel.hardware.sources import KINDS, Source
from pin_tools import factory

MAPS = Path(__file__).resolve().parent.parent / "panel" / "maps"
REFERENCE = MAPS / "reference.toml"
SMALL = MAPS / "small.toml"


def test_every_kind_of_entry_is_a_source_with_its_own_table():
    assert set(KINDS) == {"gpio", "pins", "encoder", "pico_encoder", "mcp3008", "pico_adc", "matrix"}
    for key, (kind, table) in KINDS.items():
        assert issubclass(kind, Source) and key in table.fields


def test_each_source_says_its_pins_and_where_its_wire_arrives():
    hm = load_map(REFERENCE)
    said = {cid: (s.describe(), s.pi_pins, s.board_pins(), s.on_board) for cid, s in hm.controls.items()}
    assert said["cockpit.flip"] == ("Pi GPIO13 (pin 33)", (13,), (), False)
    assert said["round_lever.red"] == ("Pi GPIO5 + GPIO6 (pins 29, 31)", (5, 6), (), False)
    assert said["knob.main"] == ("Pi GPIO19 (A) + GPIO18 (B), encoder", (19, 18), (), False)
    assert said["grid.r1c1"] == ("matrix row 0, column 0", (), (), True)
    channel = hm.controls["slider.blue"].board_adc
    assert said["slider.blue"] == (f"Pico ADC{channel} (GP{ADC_PINS[channel]})", (), (ADC_PINS[channel],), True)


def test_the_picos_adc_pins_are_the_firmwares(tmp_path):
    """A matrix line on the firmware's third ADC pin clashes with ADC channel 2."""
    f = tmp_path / "map.toml"
    f.write_text(f"[coprocessor]\nrows = [{ADC_PINS[2]}]\ncols = [1]\n"
                 "[controls.slider]\nblue = { pico_adc = 2 }\n")
    errors, _ = check_map(f)
    assert any(f"controls.slider.blue.pico_adc: Pico GP{ADC_PINS[2]} is used twice (also by matrix row 0)" in str(p)
               for p in errors), errors


@pytest.mark.parametrize("cid, device", [("cockpit.flip", "ContactInput"), ("round_lever.red", "RoundLeverInput"),
                                         ("knob.main", "KnobInput"), ("grid.r1c1", "PicoKey"),
                                         ("slider.blue", "PicoSlider")])
def test_each_source_makes_its_own_device(cid, device):
    hm = load_map(REFERENCE)
    layout = load_layout(expansion=hm.expansion)

    async def made():
        hub = InputHub(asyncio.get_running_loop(), asyncio.Queue())
        d = make_input(hm, cid, layout.control(cid), hub=hub, pin_factory=factory())
        try:
            return type(d).__name__
        finally:
            d.close()

    assert asyncio.run(made()) == device


def test_the_simulated_hands_drive_each_pi_source_through_its_own_pins():
    hm = load_map(SMALL)
    layout = load_layout(expansion=hm.expansion)
    sim = SimPanel(hm, layout)
    sim.power_up()
    lever, pair = hm.controls["lever.big"], hm.controls["round_lever.red"]  # closed = "down"; pins [13, 26]
    assert layout.control("lever.big").start != "down" and sim.pin(lever.pin).state == 1  # open, pulled up
    sim.act(Step("lever.big", "lever", "pull it down", "down"))
    assert sim.pin(lever.pin).state == 0 and sim.positions["lever.big"] == "down"
    positions = layout.control("round_lever.red").positions
    sim.act(Step("round_lever.red", "round_lever", "to the end", positions[-1]))
    assert [sim.pin(p).state for p in pair.pins] == [1, 0]  # the second pin's contact closed
    sim.act(Step("round_lever.red", "round_lever", "to the start", positions[0]))
    assert [sim.pin(p).state for p in pair.pins] == [0, 1]
