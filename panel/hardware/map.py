"""The hardware map: which wire each control of the layout arrives on, and where the outputs go.

A map is one TOML file per build. It binds every control id of the layout
(``section.name``, cockpit controls included) to one source:

    gpio = 17                   a contact on a Pi GPIO (BCM number); pull and active state
    pins = [5, 6]               a three-position round lever: first pin closed = positions[0],
                                neither closed = positions[1] (the middle), second = positions[2]
    encoder = [19, 18]          the knob's quadrature encoder (A, B) on Pi GPIOs
    pico_encoder = [20, 21]     the same on the co-processor's GP pins
    mcp3008 = 0                 an MCP3008 channel, read by gpiozero over SPI
    pico_adc = 0                a co-processor ADC channel (0-2 = the firmware's ADC_PINS, GP26-GP28)
    matrix = [row, col]         a cell of the co-processor's key matrix

and places the outputs: the NeoPixel chain (pin, driver, count, the pixels of each role)
and the buzzer. The map knows nothing of the game; the layout knows nothing of pins.

The shipped maps live in panel/maps/ and are found by name ("reference", "small") as
well as by file. `load_map` reads and checks the file's own structure; `HardwareMap.check(layout)` checks
it against a layout and returns (errors, warnings), each a `Problem` naming file and key.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, Word
from panel.core.layout import Layout
from panel.core.schema import Array, Bool, Choice, Each, Field, Int, Number, Problems, Str, Table, say
from panel.core.toml_file import read_toml
from panel.hardware.pinout import BUS_PINS, MCP3008_CE, PI_GPIOS, PICO_ADC_GP, PICO_GPS, PWM_CHANNEL, PicoPin, PiPin
from panel.hardware.sources import (PICO_ADC_FULL_SCALE, SOURCE_KEYS, AdcSource, EncoderSource, GpioSource,
                                    MatrixSource, PinPairSource, Source, read_source)

# Where the names other parts take from the map come from (the pins: panel.hardware.pinout;
# the kinds of entry: panel.hardware.sources).
__all__ = ["AdcSource", "BUS_PINS", "EncoderSource", "GpioSource", "HardwareMap", "MatrixSource", "PI_GPIOS",
           "PICO_ADC_FULL_SCALE", "PICO_ADC_GP", "PICO_GPS", "PWM_CHANNEL", "PinPairSource", "SOURCE_KEYS", "Source",
           "check_map", "checked_map", "load_map", "map_path", "shipped_maps"]

# What each NeoPixel driver can drive.
#   spi: adafruit-circuitpython-neopixel-spi, the bus's MOSI pin; no root, no PWM/audio clash.
#   pwm: adafruit-circuitpython-neopixel (rpi_ws281x underneath); root; not on a Pi 5.
NEOPIXEL_PINS = {"spi": {10: "spi0", 20: "spi1"}, "pwm": {10: None, 12: None, 18: None, 21: None}}
NEOPIXEL_CHAIN = N_("the NeoPixel chain")  # what uses its data pin, in the checker's messages
PIXEL_ORDERS = ("GRB", "RGB", "GRBW", "RGBW")
PIXEL_ROLES = ("timer", "counters", "mistakes", "progress")
MODELS = ("zero2w", "3", "4", "5")


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
        return {s.cell: cid for cid, s in self.controls.items() if s.cell is not None}

    def coprocessor_adc(self) -> dict[int, str]:
        """{adc channel: control id} for the co-processor's analog inputs."""
        return {s.board_adc: cid for cid, s in self.controls.items() if s.board_adc is not None}

    def coprocessor_encoders(self) -> dict[str, tuple[int, int]]:
        return {cid: s.board_encoder for cid, s in self.controls.items() if s.board_encoder is not None}

    def mcp3008_channels(self) -> dict[int, str]:
        """{MCP3008 channel: control id}."""
        return {s.spi_channel: cid for cid, s in self.controls.items() if s.spi_channel is not None}

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
        errors = Problems(self.source)
        for cid, s in self.controls.items():
            key = self.keys[cid]
            if cid not in layout:
                errors.add(key, Text(N_("unknown control id '{id}' (not in layout '{layout}')"), id=cid,
                                     layout=layout.name))
                continue
            c = layout.control(cid)
            kind = c.kind if c.kind == "button" else c.token_kind
            needs, reason = _NEEDS.get(kind, _NEEDS["contact"])
            if s.reads != needs:
                errors.add(key, Text(reason, id=cid, kind=kind, source=s.key))
                continue
            for under, why in s.fits(c):
                errors.add(f"{key}.{under}" if under else key, why)
        for cid in self.neopixel.buttons if self.neopixel is not None else ():
            if cid not in layout:
                errors.add(f"neopixel.buttons.{cid}", Text(N_("unknown control id '{id}' (not in layout '{layout}')"),
                                                          id=cid, layout=layout.name))
        warnings = Problems(self.source)
        for c in layout.controls():
            if c.id not in self.controls:
                (errors if strict else warnings).add(f"controls.{c.id}",
                                                     Text(N_("control of the layout is not wired (unmapped)")))
        return errors.found, warnings.found


# What each kind of control needs its source to read (panel.hardware.sources: `reads`), and
# what to say when it is wired to one that reads something else.
_NEEDS = {
    "button": ("contact", N_("'{id}' is a button: wire it to 'gpio' or 'matrix', not '{source}'")),
    "slider": ("analog", N_("'{id}' is a slider: it needs an ADC channel ('mcp3008' or 'pico_adc'), not '{source}'")),
    "knob": ("turns", N_("'{id}' is the knob: it needs 'encoder' or 'pico_encoder', not '{source}'")),
    "round_lever": ("three", N_("'{id}' is a round lever: it needs a pin pair 'pins = [a, b]', not '{source}'")),
    # switch, click, lever: one contact, two positions
    "contact": ("contact", N_("'{id}' is a {kind}: wire its contact to 'gpio' or 'matrix', not '{source}'")),
}


# ---------------------------------------------------------------------------- the file

class _SourceField(Field):
    def check(self, v, key, problems):
        return read_source(v, key, problems)


_INDEX = N_("a pixel index >= 0")
_SEGMENT = Table(fields={"first": Int(required=True, lo=0, what=_INDEX),
                         "count": Int(required=True, lo=1, hi=1024, what=N_("a number of pixels >= 1"))})
_NEOPIXEL = Table(fields={
    "gpio": PiPin(required=True), "driver": Choice(options=tuple(NEOPIXEL_PINS), default="spi"),
    "count": Int(required=True, lo=1, hi=1024, what=N_("the number of pixels, 1-1024")),
    "order": Choice(options=PIXEL_ORDERS, default="GRB"),
    "brightness": Number(default=0.3, ok=lambda x: 0 < x <= 1, says=N_("must be a fraction between 0 (off) and 1 "
                                                                      "(full)")),
    "buttons": Each(of=Each(of=Int(lo=0, what=_INDEX))),
    **{role: _SEGMENT for role in PIXEL_ROLES}})
_PICO_LINES = Array(of=PicoPin(), says=N_("must be an array of Pico GP pin numbers"))
MAP_FILE = Table(fields={
    "name": Str(says=N_("must be a string")), "format": Field(default=1), "description": Field(),
    "model": Choice(options=MODELS, says=N_("{value} is not a Pi model this build supports ({models})"),
                    values={"models": ", ".join(MODELS)}),
    "expansion": Bool(default=False),
    "buses": Array(of=Choice(options=tuple(BUS_PINS), says=N_("{value} is not a bus ({buses})"),
                             values={"buses": ", ".join(BUS_PINS)}), says=N_("must be an array of bus names")),
    "controls": Each(of=Each(of=_SourceField()), missing=N_("missing: a map needs a [controls] table")),
    "coprocessor": Table(fields={"kind": Choice(options=("pico",), default="pico"),
                                 "port": Str(says=N_("must be a device path like /dev/ttyACM0")),
                                 "rows": _PICO_LINES, "cols": _PICO_LINES}),
    "mcp3008": Table(fields={"port": Int(default=0, lo=0, hi=0, what=N_("0 (the Pi's hardware SPI0)")),
                             "device": Int(default=0, lo=0, hi=1, what=N_("0 (CE0, GPIO8) or 1 (CE1, GPIO7)"))}),
    "neopixel": _NEOPIXEL,
    "buzzer": Table(fields={"gpio": PiPin(required=True)}),
})


def _neopixel(problems: Problems, v: dict | None) -> NeoPixelConfig | None:
    if v is None or v["gpio"] is None or v["count"] is None:
        return None
    pin, driver, count = v["gpio"], v["driver"], v["count"]
    if pin not in NEOPIXEL_PINS[driver]:
        pins = ", ".join(f"GPIO{p}" for p in NEOPIXEL_PINS[driver])
        problems.add("neopixel.gpio", Text(N_("the '{driver}' NeoPixel driver cannot drive GPIO{pin} (it drives "
                                              "{pins})"), driver=driver, pin=pin, pins=pins))
    owner: dict[int, str] = {}

    def take(i: int, key: str) -> None:
        if i >= count:
            problems.add(key, Text(N_("pixel {i} is past the end of the chain ({count} pixels, 0-{last})"), i=i,
                                   count=count, last=count - 1))
        elif i in owner:
            problems.add(key, Text(N_("pixel {i} is already given to {key}"), i=i, key=owner[i]))
        else:
            owner[i] = key

    segments = {role: (seg["first"], seg["count"]) for role in PIXEL_ROLES
                if (seg := v[role]) is not None and None not in seg.values()}
    for role, (first, n) in segments.items():
        for i in range(first, first + n):
            take(i, f"neopixel.{role}")
    buttons: dict[str, int] = {}
    for section, names in v["buttons"].items():
        for name, i in names.items():
            take(i, f"neopixel.buttons.{section}.{name}")
            buttons[f"{section}.{name}"] = i
    return NeoPixelConfig(pin, driver, count, v["order"], v["brightness"], segments, buttons)


def _buses(problems: Problems, top: dict, mcp: Mcp3008Config | None, neo: NeoPixelConfig | None, *,
           spi_adc: bool) -> dict[str, str]:
    """{bus: what it is in use for}: the declared ones and those the map's parts imply."""
    buses = {b: "buses = [...]" for b in top["buses"] if b is not None}  # the file's own words: said as they are
    if spi_adc:
        buses.setdefault("spi0", N_("the MCP3008"))
    if neo is not None and neo.pin in NEOPIXEL_PINS["spi"] and (neo.driver == "spi" or neo.pin == 10):
        bus = NEOPIXEL_PINS["spi"][neo.pin]
        if bus == "spi0" and mcp is not None:
            problems.add("neopixel.gpio", Text(N_("the NeoPixel chain on {bus} MOSI would take the MCP3008's SPI "
                                                  "traffic as pixel data: put the chain on the other SPI bus "
                                                  "(GPIO10/GPIO20) or use driver = \"pwm\""), bus=bus))
        buses.setdefault(bus, NEOPIXEL_CHAIN)
    if neo is not None and neo.driver == "pwm" and top["model"] == "5":
        problems.add("neopixel.driver", Text(N_("the 'pwm' NeoPixel driver (rpi_ws281x) does not work on a Pi 5: "
                                                "use driver = \"spi\"")))
    return buses


def _buzzer(problems: Problems, v: dict | None, neo: NeoPixelConfig | None) -> BuzzerConfig | None:
    pin = v["gpio"] if v is not None else None
    if pin is None:
        return None
    if pin not in PWM_CHANNEL:
        problems.add("buzzer.gpio", Text(N_("GPIO{pin} has no hardware PWM: put the buzzer on GPIO12, 13, 18 or 19"),
                                         pin=pin))
    elif neo is not None and neo.driver == "pwm" and PWM_CHANNEL.get(neo.pin) == PWM_CHANNEL[pin]:
        problems.add("buzzer.gpio", Text(N_("GPIO{pin} shares PWM channel {channel} with the NeoPixel chain "
                                            "on GPIO{other}: use a pin of the other channel"), pin=pin,
                                         channel=PWM_CHANNEL[pin], other=neo.pin))
    return BuzzerConfig(pin)


def _parse(raw: dict, file: str) -> tuple[HardwareMap, list[Problem]]:
    problems = Problems(file)
    top = MAP_FILE.read_top(raw, problems)
    if top["format"] != 1:
        problems.add("format", say(N_("unsupported hardware map format {value} (this program reads format 1)"),
                                   top["format"]))
    controls = {f"{section}.{name}": s for section, names in top["controls"].items() for name, s in names.items()}
    cp = top["coprocessor"]
    if cp is not None:
        cp = CoprocessorConfig(cp["kind"], cp["port"], *(tuple(p for p in cp[k] if p is not None)
                                                         for k in ("rows", "cols")))
    mcp = top["mcp3008"]
    mcp = Mcp3008Config(mcp["port"], mcp["device"]) if mcp is not None else None
    spi_adc = any(s.spi_channel is not None for s in controls.values())
    mcp = mcp or (Mcp3008Config() if spi_adc else None)
    neo = _neopixel(problems, top["neopixel"])
    buses = _buses(problems, top, mcp, neo, spi_adc=spi_adc)
    hm = HardwareMap(top["name"] if top["name"] is not None else Path(file).stem, file, top["model"],
                     top["expansion"], tuple(sorted(buses)), controls, {cid: f"controls.{cid}" for cid in controls},
                     neo, _buzzer(problems, top["buzzer"], neo), cp, mcp)
    _check_pi_pins(problems, hm, buses)
    _check_board_pins(problems, hm)
    return hm, problems.found


def _check_pi_pins(problems: Problems, hm: HardwareMap, buses: dict[str, str]) -> None:
    """Pi pins: each used once, none on a bus the map uses (a bus's own device excepted)."""
    seen: dict[int, str] = {}
    reserved = {pin: (bus, sig) for bus in buses for pin, sig in BUS_PINS[bus].items()}
    for pin, what, key in hm.pi_claims():
        if pin in seen:
            problems.add(key, Text(N_("GPIO{pin} is used twice (also by {other})"), pin=pin, other=Word(seen[pin])))
            continue
        seen[pin] = what
        if pin in reserved and not (key == "neopixel.gpio" and reserved[pin][1] == "MOSI"):
            bus, sig = reserved[pin]
            problems.add(key, Text(N_("GPIO{pin} is {signal}, reserved because the map uses {bus} (for {user})"),
                                   pin=pin, signal=f"{bus.upper()} {sig}", bus=bus, user=Word(buses[bus])))


def _check_board_pins(problems: Problems, hm: HardwareMap) -> None:
    """Co-processor: matrix lines and analog pins each used once, cells inside the matrix,
    ADC channels each used once."""
    cp = hm.coprocessor
    cells = {cid: s.cell for cid, s in hm.controls.items() if s.cell is not None}
    if cells and (cp is None or not cp.rows or not cp.cols):
        problems.add("coprocessor", Text(N_("controls use 'matrix' cells but the map gives no [coprocessor] rows "
                                            "and cols")))
    claims = [(gp, Text(N_("matrix row {i}"), i=i), f"coprocessor.rows[{i}]") for i, gp in enumerate(cp.rows)] + \
             [(gp, Text(N_("matrix column {i}"), i=i), f"coprocessor.cols[{i}]") for i, gp in enumerate(cp.cols)] \
        if cp is not None else []
    claims += [(gp, cid, f"{hm.keys[cid]}.{s.key}") for cid, s in hm.controls.items() for gp in s.board_pins()]
    _once(problems, claims, lambda gp, other: Text(N_("Pico GP{pin} is used twice (also by {other})"), pin=gp,
                                                  other=other))
    taken: dict[tuple[int, int], str] = {}
    for cid, (row, col) in cells.items():
        key = f"{hm.keys[cid]}.matrix"
        if cp is not None and cp.rows and cp.cols and (row >= len(cp.rows) or col >= len(cp.cols)):
            problems.add(key, Text(N_("cell ({row}, {col}) is outside the {rows}x{cols} matrix"), row=row, col=col,
                                   rows=len(cp.rows), cols=len(cp.cols)))
        elif (row, col) in taken:
            problems.add(key, Text(N_("matrix cell ({row}, {col}) is used twice (also by {other})"), row=row, col=col,
                                   other=taken[(row, col)]))
        else:
            taken[(row, col)] = cid
    adc = [((s.key, s.board_adc if s.board_adc is not None else s.spi_channel), cid, f"{hm.keys[cid]}.{s.key}")
           for cid, s in hm.controls.items() if s.board_adc is not None or s.spi_channel is not None]
    _once(problems, adc, lambda ch, other: Text(N_("ADC channel {channel} is used twice (also by {other})"),
                                               channel=ch[1], other=other))


def _once(problems: Problems, claims: list[tuple[Any, Any, str]], twice) -> None:
    """Each (thing, user, key) claimed once: a problem `twice(thing, first user)` at each later key."""
    owner: dict[Any, Any] = {}
    for thing, user, key in claims:
        if thing in owner:
            problems.add(key, twice(thing, owner[thing]))
        else:
            owner[thing] = user


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
