"""The one factory from a hardware map's entries to their devices.

Every part that reads or drives the panel makes its devices here: the service (the Pi's
inputs and outputs, the co-processor's inputs behind the link), the self-test and the
calibration. What an entry means (which position a closed contact is, the pull, how a
reading becomes a position) and which device reads it is its source kind's
(panel/hardware/sources.py, `Source.make_device`); this module hands each kind the same
kit (the hub, the pin factory, the knob's state file, the MCP3008's select pin):

    gpio = N                 ContactInput     a button, or a token's two positions
    pins = [a, b]            RoundLeverInput  a round lever's three positions
    encoder = [a, b]         KnobInput        the knob on Pi GPIOs, its count kept in a file
    pico_encoder = [a, b]    PicoKnob        the same, counted by the co-processor
    mcp3008 = ch             AnalogInput      sampled over SPI, quantised
    pico_adc = ch            PicoSlider      read by the co-processor, quantised
    matrix = [r, c]          PicoKey         a key (or a token's contact) of the matrix
    [neopixel]               a PixelStrip     (panel/hardware/leds.py)
    [buzzer]                 BuzzerPlayer

and, from those, the Effects (pixels and buzzer driven by the game).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.hardware.buzzer import BuzzerPlayer
from panel.hardware.effects import Effects
from panel.hardware.inputs import InputHub
from panel.hardware.leds import PixelStrip, open_strip
from panel.hardware.map import HardwareMap, Mcp3008Config


def make_input(hmap: HardwareMap, cid: str, control, *, hub: InputHub, pin_factory=None,
               state_dir: str | Path | None = None, adc_device=None, window: float | None = None) -> Any:
    """The device reading map entry `cid` for `control` (the layout's), emitting into `hub`.

    state_dir: where a knob keeps its absolute count (`<control id>.json`); None keeps it
    in memory. adc_device: an MCP3008 channel to read instead of opening one (a simulated
    panel's). window: the contacts' debounce window, when not the default."""
    state_file = Path(state_dir) / f"{cid}.json" if state_dir is not None else None
    select_pin = (hmap.mcp3008 or Mcp3008Config()).select_pin
    return hmap.controls[cid].make_device(cid, control, hub=hub, pin_factory=pin_factory, state_file=state_file,
                                          adc_device=adc_device, select_pin=select_pin,
                                          debounce={} if window is None else {"window": window})


def make_inputs(hmap: HardwareMap, layout, *, hub: InputHub, on_board: bool,
                adc_devices: dict[str, Any] | None = None, **kw) -> dict[str, Any]:
    """A device for every entry the Pi reads (on_board False) or the co-processor reads
    (True) whose control is in `layout` (a base-game layout leaves the expansion's out).
    If one cannot be made, those already made are closed before the error goes on."""
    made: dict[str, Any] = {}
    try:
        for cid in (hmap.on_board() if on_board else hmap.on_pi()):
            if cid in layout:
                made[cid] = make_input(hmap, cid, layout.control(cid), hub=hub,
                                       adc_device=(adc_devices or {}).get(cid), **kw)
    except BaseException:
        for device in made.values():
            device.close()
        raise
    return made


def make_buzzer(hmap: HardwareMap, *, pin_factory=None) -> BuzzerPlayer | None:
    return BuzzerPlayer(hmap.buzzer.pin, pin_factory=pin_factory) if hmap.buzzer is not None else None


def make_strip(hmap: HardwareMap, *, sim: bool = False) -> PixelStrip | None:
    """The NeoPixel chain (a FakeStrip that keeps its frames under --sim); None without one."""
    return open_strip(hmap.neopixel, sim=sim) if hmap.neopixel is not None else None


def make_effects(hmap: HardwareMap, *, pin_factory=None, strip: PixelStrip | None = None,
                 sim: bool = False) -> Effects:
    """The pixels and the buzzer, driven by the game. `strip`: one already open (a test's)."""
    buzzer = make_buzzer(hmap, pin_factory=pin_factory)
    try:
        if hmap.neopixel is None:
            strip = None
        elif strip is None:
            strip = make_strip(hmap, sim=sim)
        return Effects(strip, hmap.neopixel, buzzer)
    except BaseException:
        if buzzer is not None:
            buzzer.close()
        raise
