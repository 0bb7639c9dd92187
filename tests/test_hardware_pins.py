"""Pin backends: MockFactory for --sim and the tests; no hardware library imported off a Pi."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from panel.hardware.pins import board_model, pin_factory

ROOT = Path(__file__).resolve().parent.parent


def test_sim_gives_a_mock_factory_with_pwm_pins():
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    f = pin_factory(sim=True)
    assert isinstance(f, MockFactory) and f.pin_class is MockPWMPin


def test_off_a_pi_without_sim_is_a_clear_error(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Some Laptop\0")
    with pytest.raises(RuntimeError, match="not a Raspberry Pi: run with --sim"):
        pin_factory(model_file=model)
    assert board_model(tmp_path / "missing") is None


def test_on_a_pi_gpiozero_chooses_the_backend(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi Zero 2 W Rev 1.0\0")
    assert board_model(model) == "Raspberry Pi Zero 2 W Rev 1.0"
    assert pin_factory(model_file=model) is None      # gpiozero's own choice: lgpio, RPi.GPIO ...


def test_the_whole_sim_stack_imports_no_hardware_library():
    code = f"""
import asyncio, sys
sys.path.insert(0, {str(ROOT / 'tests')!r})
from panel.hardware.devices import make_effects, make_inputs
from panel.hardware.inputs import InputHub
from panel.hardware.map import load_map
from panel.hardware.pins import pin_factory
from panel.core.layout_file import load_layout
loop = asyncio.new_event_loop()
for name, exp in (("reference", True), ("small", False)):
    f = pin_factory(sim=True)
    hmap, layout = load_map(name), load_layout(expansion=exp)
    hub = InputHub(loop, asyncio.Queue())
    inputs = {{**make_inputs(hmap, layout, hub=hub, on_board=False, pin_factory=f),
              **make_inputs(hmap, layout, hub=hub, on_board=True)}}
    assert set(inputs) == set(hmap.controls) & {{c.id for c in layout.controls()}}
    effects = make_effects(hmap, pin_factory=f, sim=True)
    effects.update({{"phase": "between_turns", "team": "A", "teams": [{{"name": "A"}}]}}, 0.0)
    assert effects.strip.frames, "a frame was written"
    for inp in inputs.values():
        inp.close()
    effects.close()
bad = sorted(m for m in sys.modules if m.split(".")[0] in
             ("lgpio", "RPi", "pigpio", "neopixel", "neopixel_spi", "board", "busio", "spidev", "digitalio"))
print(bad)
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"
