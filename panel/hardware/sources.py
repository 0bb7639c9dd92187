"""The kinds of map entry: where a control's wire arrives, each kind knowing its own.

    gpio = 17                   GpioSource      a contact on a Pi GPIO
    pins = [5, 6]               PinPairSource   a round lever's two contacts
    encoder = [19, 18]          EncoderSource   the knob's quadrature encoder, on the Pi
    pico_encoder = [20, 21]       (on="pico")   the same, counted by the co-processor
    mcp3008 = 0                 AdcSource       an MCP3008 channel, read over SPI
    pico_adc = 0                  (on="pico")   a co-processor ADC channel
    matrix = [row, col]         MatrixSource    a cell of the co-processor's key matrix

Each kind is one class behind the `Source` interface: the keys its entry takes (a schema
table, panel.core.schema), what it reads (a contact, three positions, turns, an analog
level) and what of a control it fits, its pins on either board, a plain description for
the wiring documents, the device that reads it (panel.hardware.devices asks it), how the
self-test's simulated hands drive it (panel.hardware.selftest_runner.SimPanel), and
whether it is calibrated. Callers ask the source; none asks which kind it is.
"""

from __future__ import annotations

import asyncio
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from panel.core.i18n import N_, Text
from panel.core.schema import Bool, Check, Choice, Field, Int, Number, Problems, Str, Table, number
from panel.hardware.pinout import BCM_TO_PHYS, PICO_ADC_GP, Pair, PicoPin, PiPin

# The co-processor reports 12-bit ADC counts (firmware/PROTOCOL.md: ADC and SNAP adc=);
# gpiozero's MCP3008.value is already a fraction of full scale.
PICO_ADC_FULL_SCALE = 4095
_PULL_UP = {"up": True, "down": False, "none": None}
_PULL = Choice(options=("up", "down", "none"), default="up")
_CLOSED = Str(says=N_("must be a position name"))


class Source(ABC):
    """One map entry: what every part that reads, checks, draws or simulates the panel asks."""

    reads: ClassVar[str]                   # contact | three | turns | analog
    calibrated: ClassVar[str | None] = None  # "ends" (a slider's), "home" (a knob's), or None
    on_board: bool                         # read by the co-processor, not the Pi
    pi_pins: tuple[int, ...] = ()          # the Pi GPIOs it takes
    cell: tuple[int, int] | None = None    # its (row, col) in the co-processor's matrix
    board_adc: int | None = None           # its co-processor ADC channel
    board_encoder: tuple[int, int] | None = None  # its pins as a co-processor encoder
    spi_channel: int | None = None         # its MCP3008 channel

    @classmethod
    @abstractmethod
    def from_entry(cls, v: dict, raw: dict, key: str, problems: Problems) -> Source | None:
        """The source of an entry read with its table (`v`; `raw` as written), or None
        after a problem (said in `problems`)."""

    @property
    @abstractmethod
    def key(self) -> str:
        """The entry's key in the map file ("gpio", "pico_adc" ...)."""

    def board_pins(self) -> tuple[int, ...]:
        """The Pico GP pins it takes (matrix lines are the matrix's)."""
        return ()

    def fits(self, control) -> list[tuple[str, Text]]:
        """(key under the entry, reason) for each way the control does not fit a source
        that reads what it needs (the count of positions, a closed position)."""
        return []

    @abstractmethod
    def describe(self) -> str:
        """Where the wire arrives, in plain words (the wiring tables)."""

    def carries(self, pin: int, user: str, control) -> str:
        """What Pi `pin` carries for control `user` (the pinout)."""
        return user

    def harness(self, control) -> tuple[list[str], list[int | None], list[str], str] | None:
        """Its cable to the Pi's header for the harness drawing: the part's pin labels, the
        BCM pin of each (None: a ground), the wire colours and what the part is; None for
        what is not wired to the Pi."""
        return None

    @abstractmethod
    def make_device(self, cid: str, control, **kit: Any) -> Any:
        """The device reading this entry (kit: hub, pin_factory, state_file, adc_device,
        select_pin, debounce: what panel.hardware.devices hands every kind)."""

    # -- the self-test's simulated hands (sim: a SimPanel) -----------------------------

    def sim_power_up(self, sim, cid: str, control, position: str | None) -> None:
        """Set the Pi's side of the entry to where the control stands."""

    def sim_power_up_board(self, sim, cid: str, control, position: str | None) -> None:
        """Set the co-processor's side (stuck keys held, sliders where they stand)."""

    def sim_reading(self, control, position: str | None) -> float | None:
        """The reading a simulated MCP3008 channel starts at; None if it is not one."""
        return None

    def sim_act(self, sim, cid: str, step, control, t: float) -> float:
        """Do the step on the Pi's side, from time t; the time after."""
        return t

    async def sim_act_board(self, sim, cid: str, step, control) -> None:
        """Do the step on the co-processor's side, in real time."""


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

    @property
    def pull_words(self) -> str:
        return f"pull {self.pull}, active {self.active}"


def _pull_active(v: dict, raw: dict, key: str, problems: Problems) -> tuple[str, str]:
    """The pull and the active level (its default follows the pull)."""
    if "active" not in raw and v["pull"] == "none":
        problems.add(f"{key}.active",
                     Text(N_("a floating input (pull = \"none\") needs 'active' (\"low\" or \"high\")")))
    return v["pull"], v["active"] or ("high" if v["pull"] == "down" else "low")


class _OnEither:
    """Read on the Pi or by the co-processor (`on`), as the entry's key says."""

    on: str

    @property
    def on_board(self) -> bool:
        return self.on == "pico"


class _OneContact:
    """One contact: a button's press, or a two-position token's two positions."""

    closed: str | None
    reads = "contact"

    def positions_of(self, control) -> tuple[str, str] | None:
        """(open, closed): the position a token stands at with its contact open and closed
        (closed: `closed`, else the token's second position); None for a button."""
        if getattr(control, "token_kind", None) is None:
            return None
        closed = self.closed or control.positions[1]
        return next(p for p in control.positions if p != closed), closed

    def fits(self, control) -> list[tuple[str, Text]]:
        if getattr(control, "token_kind", None) is None:
            return [] if self.closed is None else [("closed", Text(N_("only a token has positions; a button is "
                                                                     "pressed while its contact is closed")))]
        if len(control.positions) != 2:
            return [("", Text(N_("one contact reads 2 positions, '{id}' has {n}"), id=control.id,
                              n=len(control.positions)))]
        if self.closed is not None and self.closed not in control.positions:
            return [("closed", Text(N_("{value} is not a position of '{id}' ({positions})"), value=repr(self.closed),
                                    id=control.id, positions=", ".join(control.positions)))]
        return []


@dataclass(frozen=True)
class GpioSource(_Pulled, _OneContact, Source):
    """One contact on a Pi GPIO. For a two-position token, `closed` is the position the
    token stands at while the contact is closed (default: its second position)."""

    pin: int
    pull: str = "up"          # up | down | none
    active: str = "low"       # the level that means "closed"
    closed: str | None = None
    kind = "gpio"
    on_board = False
    entry: ClassVar[Table] = Table(fields={"gpio": PiPin(), "pull": _PULL, "active": Choice(options=("low", "high")),
                                           "closed": _CLOSED})

    @property
    def key(self) -> str:
        return "gpio"

    @property
    def pi_pins(self) -> tuple[int, ...]:
        return (self.pin,)

    @classmethod
    def from_entry(cls, v: dict, raw: dict, key: str, problems: Problems) -> GpioSource | None:
        pull, active = _pull_active(v, raw, key, problems)
        return None if v["gpio"] is None else cls(v["gpio"], pull, active, v["closed"])

    def describe(self) -> str:
        return f"Pi GPIO{self.pin} (pin {BCM_TO_PHYS[self.pin]})"

    def carries(self, pin: int, user: str, control) -> str:
        two = self.positions_of(control) if control is not None else None
        return user + (f" (closed = {two[1]})" if two else "")

    def harness(self, control):
        kind = getattr(control, "token_kind", None)
        return ["SIG", "GND"], [self.pin, None], ["YE", "BK"], "push button" if kind is None else f"{kind} contact"

    def make_device(self, cid, control, *, hub, pin_factory=None, debounce=None, **_):
        from panel.hardware.buttons import ContactInput

        return ContactInput(cid, self.pin, hub=hub, pull_up=self.pull_up, active_high=self.active_high,
                            positions=self.positions_of(control), pin_factory=pin_factory, **(debounce or {}))

    def sim_power_up(self, sim, cid, control, position):
        closed = cid in sim.faults.stuck
        two = self.positions_of(control) if control is not None else None
        if position is not None and two is not None:
            closed = closed or position == two[1]
        sim.level(self.pin, closed, self.active == "low")

    def sim_act(self, sim, cid, step, control, t):
        active_low = self.active == "low"
        if step.kind == "button":
            for _ in range(3 if cid in sim.faults.chattering else 1):
                sim.clock.t = t
                sim.level(self.pin, True, active_low)
                t += 0.02                       # 20 ms down: past the bounce window
                sim.clock.t = t
                if cid not in sim.faults.stuck:
                    sim.level(self.pin, False, active_low)
                t += 0.04                       # 40 ms up, then the contact closes again
            return t
        state = step.target == self.positions_of(control)[1]
        for k in range(3 if cid in sim.faults.chattering else 1):
            sim.clock.t = t
            sim.level(self.pin, state if k % 2 == 0 else not state, active_low)
            t += 0.04
        return t


@dataclass(frozen=True)
class PinPairSource(_Pulled, Source):
    """A three-position round lever: first pin closed, neither (the middle), second closed."""

    pins: tuple[int, int]
    pull: str = "up"
    active: str = "low"
    kind = "pins"
    reads = "three"
    on_board = False
    entry: ClassVar[Table] = Table(fields={"pins": Pair(items=(PiPin(), PiPin())), "pull": _PULL,
                                           "active": Choice(options=("low", "high"))})

    @property
    def key(self) -> str:
        return "pins"

    @property
    def pi_pins(self) -> tuple[int, ...]:
        return self.pins

    @classmethod
    def from_entry(cls, v: dict, raw: dict, key: str, problems: Problems) -> PinPairSource | None:
        pull, active = _pull_active(v, raw, key, problems)
        return None if v["pins"] is None else cls(v["pins"], pull, active)

    @staticmethod
    def closed_position(i: int, control) -> str:
        """The position the lever stands at while its i-th pin's contact is closed."""
        return control.positions[0 if i == 0 else -1]

    def fits(self, control) -> list[tuple[str, Text]]:
        if len(control.positions) != 3:
            return [("", Text(N_("a pin pair reads 3 positions, '{id}' has {n}"), id=control.id,
                              n=len(control.positions)))]
        return []

    def describe(self) -> str:
        a, b = self.pins
        return f"Pi GPIO{a} + GPIO{b} (pins {BCM_TO_PHYS[a]}, {BCM_TO_PHYS[b]})"

    def carries(self, pin: int, user: str, control) -> str:
        i = self.pins.index(pin)
        at = self.closed_position(i, control) if control is not None else ("first" if i == 0 else "second")
        return f"{user} (closed = {at})"

    def harness(self, control):
        return ["A", "COM", "B"], [self.pins[0], None, self.pins[1]], ["YE", "BK", "GN"], "3-position round lever"

    def make_device(self, cid, control, *, hub, pin_factory=None, debounce=None, **_):
        from panel.hardware.round_lever import RoundLeverInput

        return RoundLeverInput(cid, self.pins, hub=hub, positions=tuple(control.positions), pull_up=self.pull_up,
                               active_high=self.active_high, pin_factory=pin_factory, **(debounce or {}))

    def _set(self, sim, i: int) -> None:
        # Break before make: the old contact opens, then the new one closes.
        sim.level(self.pins[0], i == 0, self.active == "low")
        sim.level(self.pins[1], i == 2, self.active == "low")

    def sim_power_up(self, sim, cid, control, position):
        if control is not None:
            self._set(sim, control.positions.index(position))

    def sim_act(self, sim, cid, step, control, t):
        i0, i1 = control.positions.index(sim.positions[cid]), control.positions.index(step.target)
        path = range(i0, i1 + 1) if i1 >= i0 else range(i0, i1 - 1, -1)
        for i in list(path)[1:]:
            sim.clock.t = t
            self._set(sim, i)
            t += 0.2
        return t


@dataclass(frozen=True)
class EncoderSource(_Pulled, _OnEither, Source):
    """The knob's quadrature encoder; `steps_per_position` detents move it one position."""

    pins: tuple[int, int]
    on: str = "pi"            # pi | pico
    steps_per_position: int = 4
    wrap: bool = True
    pull: str = "up"
    active = "low"            # (the encoder's contacts close to ground)
    kind = "encoder"
    reads = "turns"
    calibrated = "home"

    @staticmethod
    def entry_for(key: str) -> Table:
        pins = Pair(items=(PiPin(), PiPin())) if key == "encoder" else Pair(items=(PicoPin(), PicoPin()))
        return Table(fields={key: pins, **({"pull": _PULL} if key == "encoder" else {}),
                             "steps_per_position": Int(default=4, lo=1, hi=100, what=N_("detents per position, 1-100")),
                             "wrap": Bool(default=True)})

    @classmethod
    def from_entry(cls, v: dict, raw: dict, key: str, problems: Problems) -> EncoderSource | None:
        on = "pi" if "encoder" in v else "pico"
        pins = v["encoder" if on == "pi" else "pico_encoder"]
        return None if pins is None else cls(pins, on, v["steps_per_position"], v["wrap"], v.get("pull", "up"))

    @property
    def key(self) -> str:
        return "pico_encoder" if self.on_board else "encoder"

    @property
    def pi_pins(self) -> tuple[int, ...]:
        return () if self.on_board else self.pins

    @property
    def board_encoder(self) -> tuple[int, int] | None:
        return self.pins if self.on_board else None

    @property
    def pull_words(self) -> str:
        return f"pull {self.pull}"

    def board_pins(self) -> tuple[int, ...]:
        return self.pins if self.on_board else ()

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

    def describe(self) -> str:
        a, b = self.pins
        if self.on == "pi":
            return f"Pi GPIO{a} (A) + GPIO{b} (B), encoder"
        return f"Pico GP{a} (A) + GP{b} (B), encoder"

    def carries(self, pin: int, user: str, control) -> str:
        return f"{user} encoder {'AB'[self.pins.index(pin)]}"

    def harness(self, control):
        if self.on_board:
            return None
        return ["A", "C", "B"], [self.pins[0], None, self.pins[1]], ["YE", "BK", "GN"], "rotary encoder"

    def make_device(self, cid, control, *, hub, pin_factory=None, state_file=None, **_):
        if self.on_board:
            from panel.hardware.pico_controls import PicoKnob

            return PicoKnob(cid, self, hub=hub, positions=control.positions, state_file=state_file)
        from panel.hardware.encoder import KnobInput

        return KnobInput(cid, self, hub=hub, positions=tuple(control.positions), state_file=state_file,
                         pin_factory=pin_factory)

    def _detents(self, sim, cid, step, control) -> int:
        return (control.positions.index(step.target) - control.positions.index(sim.positions[cid])) \
            * self.steps_per_position

    def sim_power_up(self, sim, cid, control, position):
        if not self.on_board:
            for n in self.pins:
                sim.pin(n).drive_high()

    def sim_act(self, sim, cid, step, control, t):
        if self.on_board:
            return t
        detents = self._detents(sim, cid, step, control)
        a, b = (sim.pin(self.pins[0]), sim.pin(self.pins[1]))
        first, second = (a, b) if detents > 0 else (b, a)
        for _ in range(abs(detents)):
            for p, fn in ((first, "drive_low"), (second, "drive_low"), (first, "drive_high"), (second, "drive_high")):
                sim.clock.t = t
                getattr(p, fn)()
                t += 0.003
        return t

    async def sim_act_board(self, sim, cid, step, control):
        await asyncio.to_thread(sim.emu.turn, sim.board_index(cid, sim.hmap.board().encoders),
                                self._detents(sim, cid, step, control))


def _calibration(v: Any) -> str | None:
    ok = (isinstance(v, list) and len(v) == 2 and all(number(x) and 0 <= x <= 1 for x in v) and v[0] != v[1])
    return None if ok else N_("must be [low, high]: two different readings between 0.0 and 1.0")


@dataclass(frozen=True)
class AdcSource(_OnEither, Source):
    """An analog control: MCP3008 channel on the Pi's SPI, or a co-processor ADC channel.
    Readings are fractions 0..1 of full scale; `calibration` is (reading at the first
    position's end, reading at the last position's end)."""

    channel: int
    on: str = "mcp3008"       # mcp3008 | pico
    calibration: tuple[float, float] = (0.0, 1.0)
    hysteresis: float = 0.05
    settle_ms: int = 150
    kind = "adc"
    reads = "analog"
    calibrated = "ends"
    pi_pins = ()              # the MCP3008's pins are its bus's (spi0), not the control's

    @staticmethod
    def entry_for(key: str) -> Table:
        hi = 7 if key == "mcp3008" else len(PICO_ADC_GP) - 1
        return Table(fields={
            key: Int(lo=0, hi=hi, what=N_("an ADC channel 0-7") if hi == 7 else N_("an ADC channel 0-2")),
            "calibration": Check(default=(0.0, 1.0), test=_calibration, convert=lambda v: (float(v[0]), float(v[1]))),
            "hysteresis": Number(default=0.05, ok=lambda x: 0 <= x < 0.5,
                                 says=N_("must be a fraction of full scale, 0 to 0.5")),
            "settle_ms": Int(default=150, lo=0, hi=5000, what=N_("milliseconds, 0-5000")),
            "reversed": Bool(default=False)})

    @classmethod
    def from_entry(cls, v: dict, raw: dict, key: str, problems: Problems) -> AdcSource | None:
        on = "mcp3008" if "mcp3008" in v else "pico"
        cal = v["calibration"][::-1] if v["reversed"] else v["calibration"]  # wired backwards: swap the ends
        channel = v[on if on == "mcp3008" else "pico_adc"]
        return None if channel is None else cls(channel, on, cal, v["hysteresis"], v["settle_ms"])

    @property
    def key(self) -> str:
        return "pico_adc" if self.on_board else "mcp3008"

    @property
    def board_adc(self) -> int | None:
        return self.channel if self.on_board else None

    @property
    def spi_channel(self) -> int | None:
        return None if self.on_board else self.channel

    def board_pins(self) -> tuple[int, ...]:
        return (PICO_ADC_GP[self.channel],) if self.on_board else ()

    @property
    def full_scale(self) -> float:
        """What a reading of the whole range is, as the device hands it over."""
        return PICO_ADC_FULL_SCALE if self.on_board else 1.0

    def fraction(self, raw: float) -> float:
        """A reading as a fraction (0..1) of full scale."""
        return raw / self.full_scale

    def with_calibration(self, low: float, high: float) -> AdcSource:
        return replace(self, calibration=(low, high))

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

    def describe(self) -> str:
        if self.on == "pico":
            return f"Pico ADC{self.channel} (GP{PICO_ADC_GP[self.channel]})"
        return f"MCP3008 CH{self.channel}"

    def make_device(self, cid, control, *, hub, pin_factory=None, adc_device=None, select_pin=None, **_):
        if self.on_board:
            from panel.hardware.pico_controls import PicoSlider

            return PicoSlider(cid, self, hub=hub, positions=control.positions)
        from panel.hardware.analog import AnalogInput

        return AnalogInput(cid, self, hub=hub, positions=control.positions, select_pin=select_pin,
                           device=adc_device, pin_factory=pin_factory)

    def sim_reading(self, control, position):
        return None if self.on_board or control is None else self.reading_at(control.positions, position)

    def sim_power_up_board(self, sim, cid, control, position):
        if self.on_board and control is not None:
            v = self.reading_at(control.positions, position)
            sim.emu.set_adc(sim.board_index(cid, sim.hmap.board().adc), int(v * 65535))

    def sim_act(self, sim, cid, step, control, t):
        if not self.on_board:
            sim.adc[cid].value = self.reading_at(control.positions, step.target)
            # (The runner samples the ADC as the clock moves on.)
        return t

    async def sim_act_board(self, sim, cid, step, control):
        v = self.reading_at(control.positions, step.target)
        sim.emu.set_adc(sim.board_index(cid, sim.hmap.board().adc), int(v * 65535))
        # Counted in the board's own scans: its filter has followed, every ADC frame sent.
        await asyncio.to_thread(sim.emu.wait_analog)


@dataclass(frozen=True)
class MatrixSource(_OneContact, Source):
    """A cell of the co-processor's diode matrix."""

    row: int
    col: int
    closed: str | None = None
    kind = "matrix"
    on_board = True
    pi_pins = ()
    entry: ClassVar[Table] = Table(fields={
        "matrix": Pair(items=(Int(lo=0, hi=31, what=N_("a row index 0-31")),
                              Int(lo=0, hi=31, what=N_("a column index 0-31"))),
                       distinct=False, says=N_("must be [row, column]")),
        "closed": _CLOSED})

    @classmethod
    def from_entry(cls, v: dict, raw: dict, key: str, problems: Problems) -> MatrixSource | None:
        return None if v["matrix"] is None else cls(*v["matrix"], v["closed"])

    @property
    def key(self) -> str:
        return "matrix"

    @property
    def cell(self) -> tuple[int, int]:
        return (self.row, self.col)

    def describe(self) -> str:
        return f"matrix row {self.row}, column {self.col}"

    def make_device(self, cid, control, *, hub, **_):
        from panel.hardware.pico_controls import PicoKey

        return PicoKey(cid, hub=hub, positions=self.positions_of(control))

    def sim_power_up_board(self, sim, cid, control, position):
        if cid in sim.faults.stuck:
            sim.emu.press(self.row, self.col)

    async def sim_act_board(self, sim, cid, step, control):
        for _ in range(3 if cid in sim.faults.chattering else 1):
            # Held for a few of the board's own scans, as a finger is (a real-time sleep
            # could end before a busy machine let the emulated board scan at all).
            sim.emu.press(self.row, self.col)
            await asyncio.to_thread(sim.emu.wait_scans, 4)
            if cid not in sim.faults.stuck:
                sim.emu.release(self.row, self.col)
            await asyncio.to_thread(sim.emu.wait_scans, 8)


# Each key of a map entry: the kind it makes and the table that entry is read with.
KINDS: dict[str, tuple[type[Source], Table]] = {
    "gpio": (GpioSource, GpioSource.entry),
    "pins": (PinPairSource, PinPairSource.entry),
    "encoder": (EncoderSource, EncoderSource.entry_for("encoder")),
    "pico_encoder": (EncoderSource, EncoderSource.entry_for("pico_encoder")),
    "mcp3008": (AdcSource, AdcSource.entry_for("mcp3008")),
    "pico_adc": (AdcSource, AdcSource.entry_for("pico_adc")),
    "matrix": (MatrixSource, MatrixSource.entry),
}
SOURCE_KEYS = tuple(KINDS)


def read_source(raw: Any, key: str, problems: Problems) -> Source | None:
    """The source of one [controls] entry (every problem of it in `problems`)."""
    if not isinstance(raw, dict):
        problems.add(key, Text(N_("must be a table, not {type}"), type=type(raw).__name__))
        return None
    given = [k for k in SOURCE_KEYS if k in raw]
    if len(given) != 1:
        problems.add(key, Text(N_("more than one source ({given}): give exactly one of {keys}") if given else
                               N_("no source given: give exactly one of {keys}"), given=", ".join(given),
                               keys=", ".join(SOURCE_KEYS)))
        return None
    kind, table = KINDS[given[0]]
    return kind.from_entry(table.check(raw, key, problems), raw, key, problems)
