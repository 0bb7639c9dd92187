"""Analog controls: calibrate a raw reading, quantise it into positions with hysteresis,
report a position only once it has held for the settle time.

`SliderQuantiser` is pure (readings and times in, a position out) so the co-processor's
ADC readings, arriving over the serial link, go through the same code as the MCP3008's.
`AnalogInput` samples a gpiozero MCP3008 channel at a steady rate from the loop; the
co-processor's channels are `board.PicoSlider`s, fed by the link.

Hysteresis: the slider stays at its position while the reading is inside the position's
band widened by `hysteresis` (a fraction of full scale) on each side. With the default
0.05, noise of +-3 % of full scale at a boundary never flips the position.
"""

from __future__ import annotations

import math
from typing import Sequence

from panel.core.events import InputEvent
from panel.hardware.resource import Closeable
from panel.hardware.inputs import InputHub
from panel.hardware.pins import software_spi


class Calibration:
    """Maps a raw reading (0..1 of the ADC's full scale) to 0..1 of the slider's travel.
    `low` is the reading at the first position's end, `high` at the last's (low > high
    for a slider wired the other way round)."""

    __slots__ = ("low", "high")

    def __init__(self, low: float = 0.0, high: float = 1.0):
        if low == high:
            raise ValueError("a calibration needs two different readings")
        self.low, self.high = float(low), float(high)

    def __call__(self, raw: float) -> float:
        x = (raw - self.low) / (self.high - self.low)
        return 0.0 if x < 0 else 1.0 if x > 1 else x


class SliderQuantiser:
    def __init__(self, positions: Sequence[str], *, calibration: Calibration | tuple[float, float] = (0.0, 1.0),
                 hysteresis: float = 0.05, settle: float = 0.15):
        if len(positions) < 2:
            raise ValueError("a slider needs at least 2 positions")
        self.positions = tuple(positions)
        self.calibration = calibration if isinstance(calibration, Calibration) else Calibration(*calibration)
        self.hysteresis = hysteresis
        self.settle = settle
        self.index: int | None = None       # the reported position
        self._candidate: int | None = None  # a different position waiting to settle
        self._since = 0.0

    @property
    def position(self) -> str | None:
        return None if self.index is None else self.positions[self.index]

    @property
    def deadline(self) -> float | None:
        """When a new position waiting to settle would be reported, if the reading holds."""
        return None if self._candidate is None else self._since + self.settle

    def _inside(self, i: int, x: float) -> bool:
        n = len(self.positions)
        return i / n - self.hysteresis <= x <= (i + 1) / n + self.hysteresis

    def update(self, raw: float, t: float) -> str | None:
        """Feed one reading at time t; returns the new position when one is reported."""
        x = self.calibration(raw)
        if self.index is not None and self._inside(self.index, x):
            self._candidate = None
            return None
        if self._candidate is None or not self._inside(self._candidate, x):
            n = len(self.positions)
            self._candidate = min(int(x * n), n - 1)
            self._since = t
        if t >= self._since + self.settle:  # as `deadline` computes it
            self.index, self._candidate = self._candidate, None
            return self.positions[self.index]
        return None


class AnalogInput(Closeable):
    """One MCP3008 channel (an `AdcSource` of the map), sampled from the loop every
    `interval` seconds and quantised as the source says.

    An MCP3008 cannot say when a slider moves, so it is sampled on a timer: SAMPLE_EVERY
    while a match is played, SAMPLE_EVERY_IDLE (`pace(False)`) while none is, so an idle
    cockpit wakes four times a second for it instead of twenty-five.

    25 readings a second while a match is played: a position counts once it has held for
    the source's settle time (150 ms by default), so a reading every 40 ms sees it within
    a few tens of ms of that, as a reading every 20 ms did, at half the CPU (three sliders'
    readings were most of what a Pi Zero 2 W spent while a turn ran)."""

    SAMPLE_EVERY = 0.04
    SAMPLE_EVERY_IDLE = 0.25

    def __init__(self, control: str, source, *, hub: InputHub, positions: Sequence[str],
                 interval: float = SAMPLE_EVERY, select_pin: int = 8, device=None, pin_factory=None):
        self.control = control
        self.source = source
        self.interval = interval
        self._hub = hub
        self.quantiser = source.quantiser(positions)
        if device is None:
            from gpiozero import MCP3008

            # gpiozero picks hardware SPI (spidev) on a Pi, software SPI on mock pins.
            with software_spi(pin_factory):
                device = MCP3008(source.channel, clock_pin=11, mosi_pin=10, miso_pin=9, select_pin=select_pin,
                                 pin_factory=pin_factory)
            self._owned = True
        else:
            self._owned = False
        self._device = device
        self._next = -math.inf
        hub.add(self)

    @property
    def value(self) -> str | None:
        return self.quantiser.position

    @property
    def raw(self) -> float:
        """The channel's reading now, as a fraction of full scale (what calibration takes)."""
        return self.source.fraction(self._device.value)

    @property
    def deadline(self) -> float:
        return self._next

    def pace(self, playing: bool) -> None:
        """Sample at the match's pace or the idle one (from the next sample on)."""
        self.interval = self.SAMPLE_EVERY if playing else self.SAMPLE_EVERY_IDLE

    def poll(self, now: float) -> None:
        self._next = now + self.interval
        pos = self.quantiser.update(self.raw, now)
        if pos is not None:
            self._hub.emit(InputEvent(self.control, pos, now))

    def close(self) -> None:
        if self._device is not None:
            self._hub.remove(self)
            if self._owned:
                self._device.close()
            self._device = None

