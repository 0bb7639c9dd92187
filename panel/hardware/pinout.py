"""What the two boards offer a map: the Pi's 40-pin header and the Pico's GP pins, and the
schema fields (panel.core.schema) that check a pin named in a map.

The Pico's ADC pins are the firmware's own declaration (firmware/config.py, imported on
the Pi as panel.firmware), so the map and the board cannot disagree about them.
"""

from __future__ import annotations

from dataclasses import dataclass

from panel.core.i18n import N_, Text
from panel.core.schema import MISSING, Field, whole
from panel.firmware.config import ADC_PINS

# BCM GPIOs on the 40-pin header. GPIO0/1 are the HAT ID EEPROM's I2C bus: left alone.
PI_GPIOS = frozenset(range(2, 28))
# BCM GPIO -> physical pin on the 40-pin header (same on every 40-pin Pi).
BCM_TO_PHYS = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 5: 29, 6: 31,
               13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18, 25: 22, 8: 24,
               7: 26, 12: 32, 16: 36, 20: 38, 21: 40}
# Pins each bus takes when its overlay is enabled (spi1 as dtoverlay=spi1-1cs).
BUS_PINS: dict[str, dict[int, str]] = {
    "i2c": {2: "SDA", 3: "SCL"},
    "spi0": {7: "CE1", 8: "CE0", 9: "MISO", 10: "MOSI", 11: "SCLK"},
    "spi1": {18: "CE0", 19: "MISO", 20: "MOSI", 21: "SCLK"},
    "uart": {14: "TXD", 15: "RXD"},
}
# Hardware PWM channel of each PWM-capable pin: the buzzer wants one, and two pins on the
# same channel cannot play different things.
PWM_CHANNEL = {12: 0, 18: 0, 13: 1, 19: 1}
MCP3008_CE = {0: 8, 1: 7}
# Pico (RP2040) GP pins: GP23-25 and GP29 are wired on the board (SMPS, VBUS, LED, VSYS).
PICO_GPS = frozenset(range(0, 23)) | frozenset(ADC_PINS)
# A map's co-processor ADC channel n is the firmware's n-th ADC pin.
PICO_ADC_GP = dict(enumerate(ADC_PINS))


class PiPin(Field):
    """A BCM GPIO of the 40-pin header."""

    def check(self, v, key, problems):
        if not whole(v):
            return self.wrong(v, key, problems, N_("must be a BCM GPIO number, not {value}"))
        if v in (0, 1):
            problems.add(key, Text(N_("GPIO{pin} is reserved for the HAT ID EEPROM (ID_SD/ID_SC); use GPIO2-27"),
                                   pin=v))
            return MISSING
        if v not in PI_GPIOS:
            problems.add(key, Text(N_("GPIO{pin} is not on the 40-pin header (GPIO2-27)"), pin=v))
            return MISSING
        return v


class PicoPin(Field):
    """A GP pin of the Pico that a panel can use."""

    def check(self, v, key, problems):
        if not whole(v) or v not in PICO_GPS:
            return self.wrong(v, key, problems, N_("{value} is not a free Pico GP pin (GP0-22, GP26-28)"))
        return v


@dataclass(frozen=True, kw_only=True)
class Pair(Field):
    """Two values ([a, b]), each read by its own field; `distinct`: they must differ."""

    items: tuple[Field, Field] = (Field(), Field())
    distinct: bool = True

    def check(self, v, key, problems):
        if not isinstance(v, list) or len(v) != 2:
            return self.wrong(v, key, problems, N_("must be a pair of pins [a, b]"))
        a, b = (f.read(x, f"{key}[{i}]", problems, key) for i, (f, x) in enumerate(zip(self.items, v)))
        if a is None or b is None:
            return MISSING
        if self.distinct and a == b:
            problems.add(key, Text(N_("the two pins of a pair must differ (both are {pin})"), pin=a))
            return MISSING
        return (a, b)
