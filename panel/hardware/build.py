"""Everything a hardware map describes on the Pi side, made real: inputs and outputs.

`Hardware(map, layout, hub, pin_factory=...)` makes one adapter per Pi-side source (GPIO
contacts, round-lever pin pairs, the knob's encoder, MCP3008 channels) and the outputs
(pixels, buzzer). Matrix cells and co-processor ADC channels belong to the serial link;
`map.matrix_cells()` and `map.coprocessor_adc()` tell it which control each one is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..layout import Layout
from ..resource import Closeable
from .analog import AnalogInput
from .buttons import ContactInput
from .buzzer import BuzzerPlayer
from .effects import Effects
from .encoder import KnobInput
from .inputs import InputHub
from .leds import FakeStrip, PixelStrip, open_strip
from .map import AdcSource, EncoderSource, GpioSource, HardwareMap, PinPairSource
from .round_lever import RoundLeverInput


class Hardware(Closeable):
    def __init__(self, hmap: HardwareMap, layout: Layout, hub: InputHub, *, pin_factory=None,
                 strip: PixelStrip | None = None, sim: bool = False, state_dir: str | Path | None = None,
                 window: float | None = None):
        self.map = hmap
        self.layout = layout
        self.inputs: dict[str, Any] = {}
        self.effects: Effects | None = None
        kw = {} if window is None else {"window": window}
        try:
            for cid, src in hmap.controls.items():
                if cid not in layout:
                    continue  # an expansion control on a base-game layout
                c = layout.control(cid)
                if isinstance(src, GpioSource):
                    positions = None
                    if c.kind == "token":
                        closed = src.closed or c.positions[1]
                        opened = next(p for p in c.positions if p != closed)
                        positions = (opened, closed)
                    self.inputs[cid] = ContactInput(cid, src.pin, hub=hub, pull_up=src.pull_up,
                                                    active_high=src.active_high, positions=positions,
                                                    pin_factory=pin_factory, **kw)
                elif isinstance(src, PinPairSource):
                    self.inputs[cid] = RoundLeverInput(cid, src.pins, hub=hub, positions=tuple(c.positions),
                                                       pull_up={"up": True, "down": False}.get(src.pull),
                                                       active_high=src.active == "high",
                                                       pin_factory=pin_factory, **kw)
                elif isinstance(src, EncoderSource) and src.on == "pi":
                    state = Path(state_dir) / f"{cid}.json" if state_dir is not None else None
                    self.inputs[cid] = KnobInput(cid, src.pins, hub=hub, positions=tuple(c.positions),
                                                 steps_per_position=src.steps_per_position, wrap=src.wrap,
                                                 state_file=state, pin_factory=pin_factory)
                elif isinstance(src, AdcSource) and src.on == "mcp3008":
                    self.inputs[cid] = AnalogInput(cid, src.channel, hub=hub, positions=tuple(c.positions),
                                                   calibration=src.calibration, hysteresis=src.hysteresis,
                                                   settle=src.settle_ms / 1000,
                                                   select_pin=hmap.mcp3008.select_pin if hmap.mcp3008 else 8,
                                                   pin_factory=pin_factory)
            buzzer = BuzzerPlayer(hmap.buzzer.pin, pin_factory=pin_factory) if hmap.buzzer else None
            neo = hmap.neopixel
            if neo is not None and strip is None:
                strip = FakeStrip(neo.count, keep=1000) if sim else open_strip(neo)
            self.effects = Effects(strip if neo else None, neo, buzzer)
        except BaseException:
            self.close()
            raise

    def positions(self) -> dict[str, str]:
        """Where every wired token stands now (for the engine's start positions)."""
        return {cid: inp.value for cid, inp in self.inputs.items()
                if cid in self.layout.tokens and inp.value is not None}

    def close(self) -> None:
        for inp in self.inputs.values():
            inp.close()
        self.inputs = {}
        if self.effects is not None:
            self.effects.close()
            self.effects = None

