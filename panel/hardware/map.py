"""The hardware map: which wire each control of the layout arrives on, and where the outputs go.

A map is one TOML file per build. It binds every control id of the layout
(``section.name``, cockpit controls included) to one source:

    gpio = 17                   a contact on a Pi GPIO (BCM number); pull and active state
    pins = [5, 6]               a three-position round lever: first pin closed = positions[0],
                                neither closed = positions[1] (the middle), second = positions[2]
    encoder = [19, 18]          the knob's quadrature encoder (A, B) on Pi GPIOs
    pico_encoder = [20, 21]     the same on the co-processor's GP pins
    mcp3008 = 0                 an MCP3008 channel, read by gpiozero over SPI
    pico_adc = 0                a co-processor ADC channel (0-2 = GP26-GP28)
    matrix = [row, col]         a cell of the co-processor's key matrix

and places the outputs: the NeoPixel chain (pin, driver, count, the pixels of each role)
and the buzzer. The map knows nothing of the game; the layout knows nothing of pins.

The shipped maps live in panel/maps/ and are found by name ("reference", "small") as
well as by file. `load_map` reads and checks the file's own structure; `HardwareMap.check(layout)` checks
it against a layout and returns (errors, warnings), each a `Problem` naming file and key.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.toml_file import read_toml
from panel.core.i18n import N_, Text, Word
from panel.core.layout import Layout

# BCM GPIOs on the 40-pin header. GPIO0/1 are the HAT ID EEPROM's I2C bus: left alone.
PI_GPIOS = frozenset(range(2, 28))
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
# What each NeoPixel driver can drive.
#   spi: adafruit-circuitpython-neopixel-spi, the bus's MOSI pin; no root, no PWM/audio clash.
#   pwm: adafruit-circuitpython-neopixel (rpi_ws281x underneath); root; not on a Pi 5.
NEOPIXEL_PINS = {"spi": {10: "spi0", 20: "spi1"}, "pwm": {10: None, 12: None, 18: None, 21: None}}
NEOPIXEL_CHAIN = N_("the NeoPixel chain")  # what uses its data pin, in the checker's messages
PIXEL_ORDERS = ("GRB", "RGB", "GRBW", "RGBW")
PIXEL_ROLES = ("timer", "counters", "mistakes", "progress")
MODELS = ("zero2w", "3", "4", "5")
# Pico (RP2040) GP pins: GP23-25 and GP29 are wired on the board (SMPS, VBUS, LED, VSYS).
PICO_GPS = frozenset(list(range(0, 23)) + [26, 27, 28])
PICO_ADC_GP = {0: 26, 1: 27, 2: 28}
MCP3008_CE = {0: 8, 1: 7}

SOURCE_KEYS = ("gpio", "pins", "encoder", "pico_encoder", "mcp3008", "pico_adc", "matrix")
_OPTION_KEYS = {
    "gpio": ("pull", "active", "closed"),
    "matrix": ("closed",),
    "pins": ("pull", "active"),
    "encoder": ("pull", "steps_per_position", "wrap"),
    "pico_encoder": ("steps_per_position", "wrap"),
    "mcp3008": ("calibration", "hysteresis", "settle_ms", "reversed"),
    "pico_adc": ("calibration", "hysteresis", "settle_ms", "reversed"),
}
_TOP_KEYS = ("name", "format", "description", "model", "expansion", "buses", "controls",
             "coprocessor", "mcp3008", "neopixel", "buzzer")


# ---------------------------------------------------------------------------- sources
#
# Each source type holds what its kind of map entry means: which position a closed
# contact stands for, the pull it asks of the pin, how a reading becomes a fraction of
# full scale and a position, and which pins it takes. panel/hardware/devices.py makes the
# device for an entry from these, for the service, the self-test and the calibration alike.

_PULL_UP = {"up": True, "down": False, "none": None}
# The co-processor reports 12-bit ADC counts (firmware/PROTOCOL.md: ADC and SNAP adc=);
# gpiozero's MCP3008.value is already a fraction of full scale.
PICO_ADC_FULL_SCALE = 4095


class _Pulled:
    """A contact read through a pull resistor."""

    pull: str
    active: str

    @property
    def pull_up(self) -> bool | None:
        """gpiozero's pull_up= value: None means floating (the active level is then given)."""
        return _PULL_UP[self.pull]

    @property
    def active_high(self) -> bool:
        return self.active == "high"


class _OneContact:
    """One contact: a button's press, or a two-position token's two positions."""

    closed: str | None

    def positions_of(self, control) -> tuple[str, str] | None:
        """(open, closed): the position a token stands at with its contact open and closed
        (closed: `closed`, else the token's second position); None for a button."""
        if getattr(control, "token_kind", None) is None:
            return None
        closed = self.closed or control.positions[1]
        return next(p for p in control.positions if p != closed), closed


@dataclass(frozen=True)
class GpioSource(_Pulled, _OneContact):
    """One contact on a Pi GPIO. For a two-position token, `closed` is the position the
    token stands at while the contact is closed (default: its second position)."""

    pin: int
    pull: str = "up"          # up | down | none
    active: str = "low"       # the level that means "closed"
    closed: str | None = None
    kind = "gpio"
    on_board = False

    @property
    def key(self) -> str:
        return "gpio"

    @property
    def pi_pins(self) -> tuple[int, ...]:
        return (self.pin,)


@dataclass(frozen=True)
class PinPairSource(_Pulled):
    """A three-position round lever: first pin closed, neither (the middle), second closed."""

    pins: tuple[int, int]
    pull: str = "up"
    active: str = "low"
    kind = "pins"
    on_board = False

    @property
    def key(self) -> str:
        return "pins"

    @property
    def pi_pins(self) -> tuple[int, ...]:
        return self.pins

    @staticmethod
    def closed_position(i: int, control) -> str:
        """The position the lever stands at while its i-th pin's contact is closed."""
        return control.positions[0 if i == 0 else -1]


@dataclass(frozen=True)
class EncoderSource(_Pulled):
    """The knob's quadrature encoder; `steps_per_position` detents move it one position."""

    pins: tuple[int, int]
    on: str = "pi"            # pi | pico
    steps_per_position: int = 4
    wrap: bool = True
    pull: str = "up"
    active = "low"            # (the encoder's contacts close to ground)
    kind = "encoder"

    @property
    def on_board(self) -> bool:
        return self.on == "pico"

    @property
    def key(self) -> str:
        return "pico_encoder" if self.on_board else "encoder"

    @property
    def pi_pins(self) -> tuple[int, ...]:
        return () if self.on_board else self.pins

    def position_of(self, steps: int, positions) -> str:
        """The position at an absolute detent count: the nearest whole multiple of
        `steps_per_position` (halfway rounds up), wrapping round a knob that turns freely."""
        n = len(positions)
        i = math.floor(steps / self.steps_per_position + 0.5)
        i = i % n if self.wrap else min(max(i, 0), n - 1)
        return positions[i]

    def steps_at(self, position: str, positions) -> int:
        """The absolute detent count of a position (what homing sets)."""
        return list(positions).index(position) * self.steps_per_position


@dataclass(frozen=True)
class AdcSource:
    """An analog control: MCP3008 channel on the Pi's SPI, or a co-processor ADC channel.
    Readings are fractions 0..1 of full scale; `calibration` is (reading at the first
    position's end, reading at the last position's end)."""

    channel: int
    on: str = "mcp3008"       # mcp3008 | pico
    calibration: tuple[float, float] = (0.0, 1.0)
    hysteresis: float = 0.05
    settle_ms: int = 150
    kind = "adc"
    pi_pins = ()              # the MCP3008's pins are its bus's (spi0), not the control's

    @property
    def on_board(self) -> bool:
        return self.on == "pico"

    @property
    def key(self) -> str:
        return "pico_adc" if self.on_board else "mcp3008"

    @property
    def full_scale(self) -> float:
        """What a reading of the whole range is, as the device hands it over."""
        return PICO_ADC_FULL_SCALE if self.on_board else 1.0

    def fraction(self, raw: float) -> float:
        """A reading as a fraction (0..1) of full scale."""
        return raw / self.full_scale

    def reading_at(self, positions, position: str) -> float:
        """The reading (0..1 of full scale) in the middle of `position`'s band: where a
        hand leaves the slider (the self-test's simulated slider, the soak's emulated board)."""
        lo, hi = self.calibration
        return lo + (hi - lo) * (list(positions).index(position) + 0.5) / len(positions)

    def quantiser(self, positions):
        """The calibrated, hysteretic quantiser that turns this channel's readings into
        the slider's positions, settling for `settle_ms`."""
        from panel.hardware.analog import SliderQuantiser

        return SliderQuantiser(positions, calibration=self.calibration, hysteresis=self.hysteresis,
                               settle=self.settle_ms / 1000)


@dataclass(frozen=True)
class MatrixSource(_OneContact):
    """A cell of the co-processor's diode matrix."""

    row: int
    col: int
    closed: str | None = None
    kind = "matrix"
    on_board = True
    pi_pins = ()

    @property
    def key(self) -> str:
        return "matrix"


Source = GpioSource | PinPairSource | EncoderSource | AdcSource | MatrixSource


@dataclass(frozen=True)
class NeoPixelConfig:
    pin: int
    driver: str               # spi | pwm
    count: int
    order: str = "GRB"
    brightness: float = 0.3
    segments: dict[str, tuple[int, int]] = field(default_factory=dict)  # role -> (first, count)
    buttons: dict[str, int] = field(default_factory=dict)               # control id -> pixel

    def pixels(self, role: str) -> range:
        first, count = self.segments.get(role, (0, 0))
        return range(first, first + count)


@dataclass(frozen=True)
class BuzzerConfig:
    pin: int


@dataclass(frozen=True)
class CoprocessorConfig:
    kind: str = "pico"
    port: str | None = None
    rows: tuple[int, ...] = ()
    cols: tuple[int, ...] = ()


@dataclass(frozen=True)
class Mcp3008Config:
    port: int = 0
    device: int = 0

    @property
    def select_pin(self) -> int:
        return MCP3008_CE[self.device]


@dataclass(frozen=True)
class BoardWiring:
    """The co-processor's side of a map, numbered as the board numbers it: the firmware
    config written to the board (its n-th "adc" entry is ADC channel n on the wire, the
    n-th "encoders" entry encoder n), and which control each matrix cell, wire channel
    and encoder is, for the link."""

    firmware_config: dict[str, Any]
    matrix: dict[tuple[int, int], str]
    adc: dict[int, str]
    encoders: dict[int, str]
    port: str | None


@dataclass
class HardwareMap:
    name: str
    source: str
    model: str | None
    expansion: bool
    buses: tuple[str, ...]                     # declared and implied, sorted
    controls: dict[str, Source]                # control id -> source
    keys: dict[str, str]                       # control id -> key in the file
    neopixel: NeoPixelConfig | None = None
    buzzer: BuzzerConfig | None = None
    coprocessor: CoprocessorConfig | None = None
    mcp3008: Mcp3008Config | None = None

    # -- views other parts use ---------------------------------------------------------

    def on_pi(self) -> list[str]:
        """Controls the Pi reads itself, in file order."""
        return [cid for cid, s in self.controls.items() if not s.on_board]

    def on_board(self) -> list[str]:
        """Controls the co-processor reads (matrix cells, its ADC channels and encoders)."""
        return [cid for cid, s in self.controls.items() if s.on_board]

    def matrix_cells(self) -> dict[tuple[int, int], str]:
        """{(row, col): control id} for the co-processor's matrix."""
        return {(s.row, s.col): cid for cid, s in self.controls.items() if isinstance(s, MatrixSource)}

    def coprocessor_adc(self) -> dict[int, str]:
        """{adc channel: control id} for the co-processor's analog inputs."""
        return {s.channel: cid for cid, s in self.controls.items()
                if isinstance(s, AdcSource) and s.on_board}

    def coprocessor_encoders(self) -> dict[str, tuple[int, int]]:
        return {cid: s.pins for cid, s in self.controls.items()
                if isinstance(s, EncoderSource) and s.on_board}

    def board(self) -> "BoardWiring":
        """What the co-processor's firmware and the serial link need from this map."""
        cp = self.coprocessor
        adc = sorted(self.coprocessor_adc().items())              # [(map channel, control)]
        encoders = sorted(self.coprocessor_encoders().items())    # [(control, (a, b))]
        config = {"rows": list(cp.rows) if cp else [], "cols": list(cp.cols) if cp else [],
                  "adc": [PICO_ADC_GP[ch] for ch, _ in adc], "encoders": [list(pins) for _, pins in encoders]}
        return BoardWiring(config, self.matrix_cells(), {i: cid for i, (_, cid) in enumerate(adc)},
                           {i: cid for i, (cid, _) in enumerate(encoders)}, cp.port if cp else None)

    def pi_claims(self) -> list[tuple[int, str, str]]:
        """(BCM pin, what uses it, key in the file) for every Pi GPIO the map claims, in
        file order (the SPI bus's own pins, claimed by the bus, are not in it)."""
        claims: list[tuple[int, str, str]] = []
        for cid, s in self.controls.items():
            claims += [(p, cid, f"{self.keys[cid]}.{s.key}") for p in s.pi_pins]
        if self.neopixel is not None:
            claims.append((self.neopixel.pin, NEOPIXEL_CHAIN, "neopixel.gpio"))
        if self.buzzer is not None:
            claims.append((self.buzzer.pin, N_("the buzzer"), "buzzer.gpio"))
        return claims

    # -- checks against a layout -------------------------------------------------------

    def check(self, layout: Layout, *, strict: bool = False) -> tuple[list[Problem], list[Problem]]:
        """(errors, warnings) of this map against `layout` (resolved with the expansion
        when the map says the build has it). With strict, warnings are errors."""
        errors: list[Problem] = []
        warnings: list[Problem] = []
        f = self.source

        for cid, s in self.controls.items():
            key = self.keys[cid]
            if cid not in layout:
                errors.append(Problem(f, key, Text(N_("unknown control id '{id}' (not in layout '{layout}')"), id=cid,
                                                     layout=layout.name)))
                continue
            c = layout.control(cid)
            if c.kind == "button":
                if not isinstance(s, (GpioSource, MatrixSource)):
                    errors.append(Problem(f, key, Text(N_("'{id}' is a button: wire it to 'gpio' or 'matrix', "
                                                          "not '{source}'"), id=cid, source=s.key)))
                elif s.closed is not None:
                    errors.append(Problem(f, f"{key}.closed", Text(N_("only a token has positions; a button is "
                                                                      "pressed while its contact is closed"))))
                continue
            tk = c.token_kind
            if tk == "slider":
                if not isinstance(s, AdcSource):
                    errors.append(Problem(f, key, Text(N_("'{id}' is a slider: it needs an ADC channel "
                                                          "('mcp3008' or 'pico_adc'), not '{source}'"),
                                                       id=cid, source=s.key)))
            elif tk == "knob":
                if not isinstance(s, EncoderSource):
                    errors.append(Problem(f, key, Text(N_("'{id}' is the knob: it needs 'encoder' or "
                                                          "'pico_encoder', not '{source}'"), id=cid, source=s.key)))
            elif tk == "round_lever" or isinstance(s, PinPairSource):
                if not isinstance(s, PinPairSource):
                    errors.append(Problem(f, key, Text(N_("'{id}' is a round lever: it needs a pin pair "
                                                          "'pins = [a, b]', not '{source}'"), id=cid, source=s.key)))
                elif len(c.positions) != 3:
                    errors.append(Problem(f, key, Text(N_("a pin pair reads 3 positions, '{id}' has {n}"), id=cid,
                                                       n=len(c.positions))))
            else:  # switch, click, lever: one contact, two positions
                if not isinstance(s, (GpioSource, MatrixSource)):
                    errors.append(Problem(f, key, Text(N_("'{id}' is a {kind}: wire its contact to 'gpio' or "
                                                          "'matrix', not '{source}'"), id=cid, kind=tk, source=s.key)))
                elif len(c.positions) != 2:
                    errors.append(Problem(f, key, Text(N_("one contact reads 2 positions, '{id}' has {n}"), id=cid,
                                                       n=len(c.positions))))
                elif s.closed is not None and s.closed not in c.positions:
                    errors.append(Problem(f, f"{key}.closed", Text(N_("{value} is not a position of '{id}' ({positions})"),
                                                                   value=repr(s.closed), id=cid,
                                                                   positions=", ".join(c.positions))))

        if self.neopixel is not None:
            for cid in self.neopixel.buttons:
                if cid not in layout:
                    errors.append(Problem(f, f"neopixel.buttons.{cid}",
                                          Text(N_("unknown control id '{id}' (not in layout '{layout}')"), id=cid,
                                               layout=layout.name)))

        for c in layout.controls():
            if c.id not in self.controls:
                p = Problem(f, f"controls.{c.id}", Text(N_("control of the layout is not wired (unmapped)")))
                (errors if strict else warnings).append(p)
        return errors, warnings


# ---------------------------------------------------------------------------- parsing

class _Reader:
    """Walks the raw TOML collecting every problem, so a file gets all its errors at once."""

    def __init__(self, file: str):
        self.file = file
        self.problems: list[Problem] = []

    def add(self, key: str, reason: Text) -> None:
        self.problems.append(Problem(self.file, key, reason))

    def unknown(self, raw: dict, allowed: tuple[str, ...], key: str) -> None:
        for k in raw:
            if k not in allowed:
                where = f"{key}.{k}" if key else k
                self.add(where, Text(N_("unknown key (expected one of: {keys})"), keys=", ".join(allowed)))

    def table(self, raw: Any, key: str) -> dict | None:
        if raw is None:
            return None
        if not isinstance(raw, dict):
            self.add(key, Text(N_("must be a table, not {type}"), type=type(raw).__name__))
            return None
        return raw

    def int_(self, v: Any, key: str, lo: int | None = None, hi: int | None = None,
             what: str = N_("a whole number")) -> int | None:
        """`what` (marked N_) says what the number is, in the problem's words."""
        if not isinstance(v, int) or isinstance(v, bool):
            self.add(key, Text(N_("must be {what}, not {value}"), what=Word(what), value=repr(v)))
            return None
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            self.add(key, Text(N_("{value} is out of range ({what})"), value=v, what=Word(what)))
            return None
        return v

    def gpio(self, v: Any, key: str) -> int | None:
        if not isinstance(v, int) or isinstance(v, bool):
            self.add(key, Text(N_("must be a BCM GPIO number, not {value}"), value=repr(v)))
            return None
        if v in (0, 1):
            self.add(key, Text(N_("GPIO{pin} is reserved for the HAT ID EEPROM (ID_SD/ID_SC); use GPIO2-27"), pin=v))
            return None
        if v not in PI_GPIOS:
            self.add(key, Text(N_("GPIO{pin} is not on the 40-pin header (GPIO2-27)"), pin=v))
            return None
        return v

    def pico_gp(self, v: Any, key: str) -> int | None:
        if not isinstance(v, int) or isinstance(v, bool) or v not in PICO_GPS:
            self.add(key, Text(N_("{value} is not a free Pico GP pin (GP0-22, GP26-28)"), value=repr(v)))
            return None
        return v

    def pair(self, v: Any, key: str, pin) -> tuple[int, int] | None:
        if not isinstance(v, list) or len(v) != 2:
            self.add(key, Text(N_("must be a pair of pins [a, b]")))
            return None
        a, b = pin(v[0], f"{key}[0]"), pin(v[1], f"{key}[1]")
        if a is None or b is None:
            return None
        if a == b:
            self.add(key, Text(N_("the two pins of a pair must differ (both are {pin})"), pin=a))
            return None
        return (a, b)

    def choice(self, raw: dict, key: str, name: str, options: tuple[str, ...], default: str) -> str:
        v = raw.get(name, default)
        if v not in options:
            self.add(f"{key}.{name}", Text(N_("{value} is not one of: {options}"), value=repr(v), options=", ".join(options)))
            return default
        return v


def _pull_active(r: _Reader, raw: dict, key: str) -> tuple[str, str]:
    pull = r.choice(raw, key, "pull", ("up", "down", "none"), "up")
    if "active" not in raw and pull == "none":
        r.add(f"{key}.active", Text(N_("a floating input (pull = \"none\") needs 'active' (\"low\" or \"high\")")))
    default = "high" if pull == "down" else "low"
    active = r.choice(raw, key, "active", ("low", "high"), default)
    return pull, active


def _closed(r: _Reader, raw: dict, key: str) -> str | None:
    v = raw.get("closed")
    if v is not None and not isinstance(v, str):
        r.add(f"{key}.closed", Text(N_("must be a position name")))
        return None
    return v


def _parse_source(r: _Reader, raw: Any, key: str) -> Source | None:
    raw = r.table(raw, key)
    if raw is None:
        return None
    kinds = [k for k in SOURCE_KEYS if k in raw]
    if len(kinds) != 1:
        r.add(key, Text(N_("more than one source ({given}): give exactly one of {keys}") if kinds else
                        N_("no source given: give exactly one of {keys}"), given=", ".join(kinds),
                        keys=", ".join(SOURCE_KEYS)))
        return None
    kind = kinds[0]
    r.unknown(raw, (kind,) + _OPTION_KEYS[kind], key)
    v = raw[kind]
    k = f"{key}.{kind}"
    if kind == "gpio":
        pin = r.gpio(v, k)
        pull, active = _pull_active(r, raw, key)
        return None if pin is None else GpioSource(pin, pull, active, _closed(r, raw, key))
    if kind == "pins":
        pins = r.pair(v, k, r.gpio)
        pull, active = _pull_active(r, raw, key)
        return None if pins is None else PinPairSource(pins, pull, active)
    if kind in ("encoder", "pico_encoder"):
        pins = r.pair(v, k, r.gpio if kind == "encoder" else r.pico_gp)
        spp = r.int_(raw.get("steps_per_position", 4), f"{key}.steps_per_position", 1, 100,
                     N_("detents per position, 1-100"))
        wrap = raw.get("wrap", True)
        if not isinstance(wrap, bool):
            r.add(f"{key}.wrap", Text(N_("must be true or false")))
            wrap = True
        pull = r.choice(raw, key, "pull", ("up", "down", "none"), "up") if kind == "encoder" else "up"
        if pins is None or spp is None:
            return None
        return EncoderSource(pins, "pi" if kind == "encoder" else "pico", spp, wrap, pull)
    if kind in ("mcp3008", "pico_adc"):
        hi = 7 if kind == "mcp3008" else 2
        ch = r.int_(v, k, 0, hi, N_("an ADC channel 0-7") if hi == 7 else N_("an ADC channel 0-2"))
        cal = raw.get("calibration", [0.0, 1.0])
        ok = (isinstance(cal, list) and len(cal) == 2
              and all(isinstance(x, (int, float)) and not isinstance(x, bool) and 0 <= x <= 1 for x in cal)
              and cal[0] != cal[1])
        if not ok:
            r.add(f"{key}.calibration", Text(N_("must be [low, high]: two different readings between 0.0 and 1.0")))
            cal = [0.0, 1.0]
        if raw.get("reversed", False) is True:  # wired backwards: swap the ends
            cal = [cal[1], cal[0]]
        hyst = raw.get("hysteresis", 0.05)
        if not isinstance(hyst, (int, float)) or isinstance(hyst, bool) or not 0 <= hyst < 0.5:
            r.add(f"{key}.hysteresis", Text(N_("must be a fraction of full scale, 0 to 0.5")))
            hyst = 0.05
        settle = r.int_(raw.get("settle_ms", 150), f"{key}.settle_ms", 0, 5000, N_("milliseconds, 0-5000"))
        if ch is None:
            return None
        return AdcSource(ch, "mcp3008" if kind == "mcp3008" else "pico", (float(cal[0]), float(cal[1])),
                         float(hyst), 150 if settle is None else settle)
    if kind == "matrix":
        if not isinstance(v, list) or len(v) != 2:
            r.add(k, Text(N_("must be [row, column]")))
            return None
        row = r.int_(v[0], f"{k}[0]", 0, 31, N_("a row index 0-31"))
        col = r.int_(v[1], f"{k}[1]", 0, 31, N_("a column index 0-31"))
        if row is None or col is None:
            return None
        return MatrixSource(row, col, _closed(r, raw, key))
    raise AssertionError(kind)


def _parse_neopixel(r: _Reader, raw: Any) -> NeoPixelConfig | None:
    raw = r.table(raw, "neopixel")
    if raw is None:
        return None
    r.unknown(raw, ("gpio", "driver", "count", "order", "brightness", "buttons") + PIXEL_ROLES, "neopixel")
    driver = r.choice(raw, "neopixel", "driver", tuple(NEOPIXEL_PINS), "spi")
    if "gpio" not in raw:
        r.add("neopixel", Text(N_("missing 'gpio' (the data pin)")))
        return None
    pin = r.gpio(raw["gpio"], "neopixel.gpio")
    count = r.int_(raw.get("count"), "neopixel.count", 1, 1024, N_("the number of pixels, 1-1024"))
    order = r.choice(raw, "neopixel", "order", PIXEL_ORDERS, "GRB")
    bright = raw.get("brightness", 0.3)
    if not isinstance(bright, (int, float)) or isinstance(bright, bool) or not 0 < bright <= 1:
        r.add("neopixel.brightness", Text(N_("must be a fraction between 0 (off) and 1 (full)")))
        bright = 0.3
    if pin is None or count is None:
        return None
    if pin not in NEOPIXEL_PINS[driver]:
        pins = ", ".join(f"GPIO{p}" for p in NEOPIXEL_PINS[driver])
        r.add("neopixel.gpio", Text(N_("the '{driver}' NeoPixel driver cannot drive GPIO{pin} (it drives {pins})"),
                                    driver=driver, pin=pin, pins=pins))
    owner: dict[int, str] = {}

    def take(i: int, key: str) -> None:
        if i >= count:
            r.add(key, Text(N_("pixel {i} is past the end of the chain ({count} pixels, 0-{last})"), i=i, count=count,
                            last=count - 1))
        elif i in owner:
            r.add(key, Text(N_("pixel {i} is already given to {key}"), i=i, key=owner[i]))
        else:
            owner[i] = key

    segments: dict[str, tuple[int, int]] = {}
    for role in PIXEL_ROLES:
        seg = raw.get(role)
        if seg is None:
            continue
        key = f"neopixel.{role}"
        seg = r.table(seg, key)
        if seg is None:
            continue
        r.unknown(seg, ("first", "count"), key)
        first = r.int_(seg.get("first"), f"{key}.first", 0, None, N_("a pixel index >= 0"))
        n = r.int_(seg.get("count"), f"{key}.count", 1, 1024, N_("a number of pixels >= 1"))
        if first is None or n is None:
            continue
        segments[role] = (first, n)
        for i in range(first, first + n):
            take(i, key)
    buttons: dict[str, int] = {}
    braw = r.table(raw.get("buttons"), "neopixel.buttons") or {}
    for section, names in braw.items():
        names = r.table(names, f"neopixel.buttons.{section}")
        for name, idx in (names or {}).items():
            key = f"neopixel.buttons.{section}.{name}"
            i = r.int_(idx, key, 0, None, N_("a pixel index >= 0"))
            if i is not None:
                take(i, key)
                buttons[f"{section}.{name}"] = i
    return NeoPixelConfig(pin, driver, count, order, float(bright), segments, buttons)


def _parse(raw: dict, file: str) -> tuple[HardwareMap, list[Problem]]:
    r = _Reader(file)
    r.unknown(raw, _TOP_KEYS, "")
    fmt = raw.get("format", 1)
    if fmt != 1:
        r.add("format", Text(N_("unsupported hardware map format {value} (this program reads format 1)"), value=repr(fmt)))
    name = raw.get("name", Path(file).stem)
    if not isinstance(name, str):
        r.add("name", Text(N_("must be a string")))
        name = Path(file).stem
    model = raw.get("model")
    if model is not None and model not in MODELS:
        r.add("model", Text(N_("{value} is not a Pi model this build supports ({models})"), value=repr(model),
                            models=", ".join(MODELS)))
        model = None
    expansion = raw.get("expansion", False)
    if not isinstance(expansion, bool):
        r.add("expansion", Text(N_("must be true or false")))
        expansion = False

    declared = raw.get("buses", [])
    buses: dict[str, str] = {}  # bus -> why it is in use
    if not isinstance(declared, list):
        r.add("buses", Text(N_("must be an array of bus names")))
        declared = []
    for i, b in enumerate(declared):
        if not isinstance(b, str) or b not in BUS_PINS:
            r.add(f"buses[{i}]", Text(N_("{value} is not a bus ({buses})"), value=repr(b), buses=", ".join(BUS_PINS)))
        else:
            buses[b] = "buses = [...]"  # the file's own words: said as they are

    controls: dict[str, Source] = {}
    keys: dict[str, str] = {}
    craw = r.table(raw.get("controls"), "controls")
    if craw is None:
        r.add("controls", Text(N_("missing: a map needs a [controls] table")))
        craw = {}
    for section, names in craw.items():
        names = r.table(names, f"controls.{section}")
        if names is None:
            continue
        for cname, sraw in names.items():
            cid = f"{section}.{cname}"
            key = f"controls.{cid}"
            src = _parse_source(r, sraw, key)
            if src is not None:
                controls[cid] = src
                keys[cid] = key

    cp = None
    cpraw = r.table(raw.get("coprocessor"), "coprocessor")
    if cpraw is not None:
        r.unknown(cpraw, ("kind", "port", "rows", "cols"), "coprocessor")
        kind = r.choice(cpraw, "coprocessor", "kind", ("pico",), "pico")
        port = cpraw.get("port")
        if port is not None and not isinstance(port, str):
            r.add("coprocessor.port", Text(N_("must be a device path like /dev/ttyACM0")))
            port = None
        lines = {}
        for what in ("rows", "cols"):
            v = cpraw.get(what, [])
            if not isinstance(v, list):
                r.add(f"coprocessor.{what}", Text(N_("must be an array of Pico GP pin numbers")))
                v = []
            lines[what] = tuple(p for i, p in enumerate(v) if r.pico_gp(p, f"coprocessor.{what}[{i}]") is not None)
        cp = CoprocessorConfig(kind, port, lines["rows"], lines["cols"])

    mcp = None
    mraw = r.table(raw.get("mcp3008"), "mcp3008")
    if mraw is not None:
        r.unknown(mraw, ("port", "device"), "mcp3008")
        port = r.int_(mraw.get("port", 0), "mcp3008.port", 0, 0, N_("0 (the Pi's hardware SPI0)"))
        dev = r.int_(mraw.get("device", 0), "mcp3008.device", 0, 1, N_("0 (CE0, GPIO8) or 1 (CE1, GPIO7)"))
        mcp = Mcp3008Config(port or 0, dev or 0)
    if any(isinstance(s, AdcSource) and s.on == "mcp3008" for s in controls.values()):
        mcp = mcp or Mcp3008Config()
        buses.setdefault("spi0", N_("the MCP3008"))

    neo = _parse_neopixel(r, raw.get("neopixel"))
    if neo is not None and neo.pin in NEOPIXEL_PINS["spi"] and (neo.driver == "spi" or neo.pin == 10):
        bus = NEOPIXEL_PINS["spi"][neo.pin]
        if bus == "spi0" and mcp is not None:
            r.add("neopixel.gpio", Text(N_("the NeoPixel chain on {bus} MOSI would take the MCP3008's SPI traffic "
                                           "as pixel data: put the chain on the other SPI bus (GPIO10/GPIO20) or "
                                           "use driver = \"pwm\""), bus=bus))
        buses.setdefault(bus, NEOPIXEL_CHAIN)
    if neo is not None and neo.driver == "pwm" and model == "5":
        r.add("neopixel.driver", Text(N_("the 'pwm' NeoPixel driver (rpi_ws281x) does not work on a Pi 5: "
                                         "use driver = \"spi\"")))

    buzzer = None
    braw = r.table(raw.get("buzzer"), "buzzer")
    if braw is not None:
        r.unknown(braw, ("gpio",), "buzzer")
        pin = r.gpio(braw.get("gpio"), "buzzer.gpio")
        if pin is not None:
            if pin not in PWM_CHANNEL:
                r.add("buzzer.gpio", Text(N_("GPIO{pin} has no hardware PWM: put the buzzer on GPIO12, 13, 18 or 19"), pin=pin))
            elif neo is not None and neo.driver == "pwm" and PWM_CHANNEL.get(neo.pin) == PWM_CHANNEL[pin]:
                r.add("buzzer.gpio", Text(N_("GPIO{pin} shares PWM channel {channel} with the NeoPixel chain "
                                             "on GPIO{other}: use a pin of the other channel"), pin=pin,
                                          channel=PWM_CHANNEL[pin], other=neo.pin))
            buzzer = BuzzerConfig(pin)

    hm = HardwareMap(name, file, model, expansion, tuple(sorted(buses)), controls, keys, neo, buzzer, cp, mcp)
    _check_pins(r, hm, buses)
    return hm, r.problems


def _check_pins(r: _Reader, hm: HardwareMap, buses: dict[str, str]) -> None:
    # Pi pins: each used once, none on a bus the map uses (a bus's own device excepted).
    seen: dict[int, str] = {}
    reserved = {pin: (bus, sig) for bus in buses for pin, sig in BUS_PINS[bus].items()}
    for pin, what, key in hm.pi_claims():
        if pin in seen:
            r.add(key, Text(N_("GPIO{pin} is used twice (also by {other})"), pin=pin, other=Word(seen[pin])))
            continue
        seen[pin] = what
        if pin in reserved and not (key == "neopixel.gpio" and reserved[pin][1] == "MOSI"):
            bus, sig = reserved[pin]
            r.add(key, Text(N_("GPIO{pin} is {signal}, reserved because the map uses {bus} (for {user})"), pin=pin,
                            signal=f"{bus.upper()} {sig}", bus=bus, user=Word(buses[bus])))

    # Co-processor: matrix lines and analog pins each used once, cells inside the matrix.
    cp = hm.coprocessor
    cells = [(cid, s) for cid, s in hm.controls.items() if isinstance(s, MatrixSource)]
    if cells and (cp is None or not cp.rows or not cp.cols):
        r.add("coprocessor", Text(N_("controls use 'matrix' cells but the map gives no [coprocessor] rows and cols")))
    pico_seen: dict[int, str] = {}

    def claim_gp(gp: int, what: str | Text, key: str) -> None:
        if gp in pico_seen:
            r.add(key, Text(N_("Pico GP{pin} is used twice (also by {other})"), pin=gp, other=pico_seen[gp]))
        else:
            pico_seen[gp] = what

    if cp is not None:
        for i, gp in enumerate(cp.rows):
            claim_gp(gp, Text(N_("matrix row {i}"), i=i), f"coprocessor.rows[{i}]")
        for i, gp in enumerate(cp.cols):
            claim_gp(gp, Text(N_("matrix column {i}"), i=i), f"coprocessor.cols[{i}]")
    for cid, s in hm.controls.items():
        key = hm.keys[cid]
        if isinstance(s, AdcSource) and s.on == "pico":
            claim_gp(PICO_ADC_GP[s.channel], cid, f"{key}.pico_adc")
        elif isinstance(s, EncoderSource) and s.on == "pico":
            for gp in s.pins:
                claim_gp(gp, cid, f"{key}.pico_encoder")
    taken: dict[tuple, str] = {}
    for cid, s in cells:
        key = f"{hm.keys[cid]}.matrix"
        if cp is not None and cp.rows and cp.cols and (s.row >= len(cp.rows) or s.col >= len(cp.cols)):
            r.add(key, Text(N_("cell ({row}, {col}) is outside the {rows}x{cols} matrix"), row=s.row, col=s.col,
                            rows=len(cp.rows), cols=len(cp.cols)))
        elif (s.row, s.col) in taken:
            r.add(key, Text(N_("matrix cell ({row}, {col}) is used twice (also by {other})"), row=s.row, col=s.col,
                            other=taken[(s.row, s.col)]))
        else:
            taken[(s.row, s.col)] = cid
    adc: dict[tuple[str, int], str] = {}
    for cid, s in hm.controls.items():
        if isinstance(s, AdcSource):
            k = (s.on, s.channel)
            if k in adc:
                r.add(f"{hm.keys[cid]}.{s.key}", Text(N_("ADC channel {channel} is used twice (also by {other})"),
                                                      channel=s.channel, other=adc[k]))
            else:
                adc[k] = cid


# The maps shipped with the package (panel/maps/*.toml), found by name from anywhere.
MAPS_DIR = Path(__file__).resolve().parent.parent / "maps"
DEFAULT_MAP = "reference"


def shipped_maps() -> list[str]:
    """Names of the hardware maps shipped with the package."""
    return sorted(p.stem for p in MAPS_DIR.glob("*.toml"))


def map_path(arg: str | Path) -> Path:
    """A map given on the command line: a file, or the name of a shipped map ("reference",
    "small"). A file of that name in the current folder wins over a shipped map."""
    p = Path(arg)
    if p.exists() or len(p.parts) != 1:
        return p
    shipped = MAPS_DIR / (p.name if p.suffix == ".toml" else f"{p.name}.toml")
    return shipped if shipped.is_file() else p


def _read(arg: str | Path) -> tuple[Path, dict]:
    file = map_path(arg)
    if not file.exists() and len(file.parts) == 1:
        raise ConfigError(Problem(file, None, Text(N_("no such file, nor a shipped map ({maps})"),
                                                  maps=", ".join(shipped_maps()))))
    return file, read_toml(file)


def load_map(path: str | Path) -> HardwareMap:
    """Read a hardware map (a file, or a shipped map's name) and check its own structure
    (pins, buses, pixels).

    Raises ConfigError listing every problem. Checks against a layout are `check()`'s."""
    file, raw = _read(path)
    hm, problems = _parse(raw, str(file))
    if problems:
        raise ConfigError(problems)
    return hm


def check_map(path: str | Path, layout: Layout | None = None, *, strict: bool = False,
              layout_path: str | Path | None = None, side: str = "blue") -> tuple[list[Problem], list[Problem]]:
    """Every problem of a map file, structure and layout alike: (errors, warnings).

    Never raises for a bad map or layout; the problems are returned."""
    _, _, errors, warnings = _checked(path, layout, strict, layout_path, side)
    return errors, warnings


def checked_map(path: str | Path, layout_path: str | Path | None = None, *, side: str = "blue",
                strict: bool = False) -> tuple[HardwareMap, Layout, list[Problem]]:
    """The map, its layout (with the expansion when the map has it) and the warnings, or
    a ConfigError with every error: the same checks as `penguin-panel hardware check`,
    and what the service, the self-test, the calibration and the wiring start from."""
    hm, layout, errors, warnings = _checked(path, None, strict, layout_path, side)
    if errors:
        raise ConfigError(errors)
    return hm, layout, warnings


def _checked(path, layout, strict, layout_path, side):
    from panel.core.layout_file import load_layout

    try:
        file, raw = _read(path)
    except ConfigError as e:
        return None, None, e.problems, []
    hm, errors = _parse(raw, str(file))
    if layout is None:
        try:
            layout = load_layout(layout_path, side=side, expansion=hm.expansion)
        except ConfigError as e:
            return hm, None, errors + e.problems, []
    more, warnings = hm.check(layout, strict=strict)
    return hm, layout, errors + more, warnings
