"""The co-processor's controls as devices: what the link hands over raw becomes what the
map says it means (a token's position from a matrix key, a settled slider position from
12-bit readings, a knob's position from the board's count, kept across reconnections)."""

from __future__ import annotations

import pytest

from panel.hardware.pico_controls import PicoKnob, PicoSlider
from panel.hardware.devices import make_input
from panel.hardware.map import MAPS_DIR, AdcSource, EncoderSource, load_map
from panel.core.layout_file import load_layout

POS = ("1", "2", "3", "4", "5", "6")



def test_a_token_on_the_matrix_reports_its_positions_and_a_button_its_press(rig, tmp_path):
    layout = load_layout(expansion=True)
    m = tmp_path / "m.toml"
    # The left switch's contact moved from a Pi GPIO to a free cell of the matrix.
    m.write_text((MAPS_DIR / "reference.toml").read_text().replace('left = { gpio = 4, closed = "up" }',
                                                                   'left = { matrix = [7, 9], closed = "up" }'))
    hmap = load_map(m)
    switch = make_input(hmap, "switch.left", layout.control("switch.left"), hub=rig.hub)
    key = make_input(hmap, "grid.r1c1", layout.control("grid.r1c1"), hub=rig.hub)
    switch.feed(True, 100.0)
    switch.feed(False, 101.0)
    key.feed(True, 102.0)
    assert [(e.control, e.value, e.t) for e in rig.events()] == [
        ("switch.left", "up", 100.0), ("switch.left", "down", 101.0), ("grid.r1c1", True, 102.0)]


def test_a_board_slider_settles_without_a_new_reading(rig):
    slider = PicoSlider("slider.blue", AdcSource(0, "pico", calibration=(0.0, 1.0), settle_ms=150),
                         hub=rig.hub, positions=POS)
    slider.feed(2048, 100.0)            # 0.5 of full scale: the 4th band
    assert rig.events() == [] and rig.hub.deadline == pytest.approx(100.15)
    events = rig.events(until=100.15)   # the board says nothing more: the hub's poll settles it
    assert [(e.control, e.value) for e in events] == [("slider.blue", "4")]
    assert slider.raw == pytest.approx(2048 / 4095) and rig.hub.deadline is None


def test_a_board_knob_counts_from_its_saved_position_and_rebases_after_a_reconnection(rig, tmp_path):
    src = EncoderSource((20, 21), on="pico", steps_per_position=4)
    knob = PicoKnob("knob.main", src, hub=rig.hub, positions=POS, state_file=tmp_path / "k.json")
    knob.home("2")
    knob.feed(37, 100.0)                # the board's count when first heard: no move
    knob.feed(41, 101.0)                # 4 detents on
    assert [e.value for e in rig.events()] == ["3"]
    knob.resync()                       # the link was lost; the board restarted its count
    knob.feed(0, 102.0)
    knob.feed(-4, 103.0)
    assert [e.value for e in rig.events()] == ["2"]
    again = PicoKnob("knob.main", src, hub=rig.hub, positions=POS, state_file=tmp_path / "k.json")
    assert again.homed and again.value == "2"
