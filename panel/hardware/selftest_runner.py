"""Running the self-test on a panel: the real one, or a simulated one on gpiozero mock pins.

`SelfTestRunner` builds the input adapters of panel/hardware/ for every control the
hardware map puts on the Pi, lights each pixel and sounds each buzzer tone, then walks
the plan of panel/hardware/selftest.py: for each step it asks the maker (a person at the panel, or
`SimPanel.act` on mock pins, driven by panel/tools/selftest_sim.py), collects the debounced events that arrive, and finally hands
them to `selftest.verdicts`.

`SimPanel` is the simulated panel: gpiozero MockFactory pins wired as the map says,
unless a test rewires it (two wires swapped, a contact stuck closed, a contact that
chatters), which is how the self-test's diagnoses are themselves tested.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable

from panel.core.events import InputEvent
from panel.core.i18n import N_, NC_
from panel.hardware.map import HardwareMap
from panel.core.layout import Layout
from panel.hardware.selftest import Step, Verdict, plan, verdicts

TONES = ("A4", "C5", "E5", "A5")  # low to high: a maker hears each one is different


class ManualClock:
    """The simulated panel's clock: the scripted maker moves it forward."""

    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


class SimAdc:
    """An ADC channel the simulated maker sets (the MCP3008 itself is tested in the
    hardware tests, over mock SPI): `.value` as gpiozero's MCP3008 gives it, 0..1."""

    def __init__(self, value: float = 0.0):
        self.value = value

    def close(self) -> None:
        pass


# ---------------------------------------------------------------------------- the sim panel

@dataclass
class Faults:
    """Wiring faults of a simulated panel, as a maker's hands might make them."""

    swapped: tuple[tuple[str, str], ...] = ()   # the two controls' wires exchanged
    stuck: tuple[str, ...] = ()                 # contact closed from power-up, never opens
    chattering: tuple[str, ...] = ()            # each press bounces twice more, 40 ms apart
    dead: tuple[str, ...] = ()                  # wire broken: nothing arrives


class SimPanel:
    """Mock pins for every Pi-wired control of the map, and the hands that move them."""

    def __init__(self, hmap: HardwareMap, layout: Layout, *, faults: Faults | None = None,
                 clock: ManualClock | None = None):
        from panel.hardware.pins import mock_factory

        self.hmap = hmap
        self.layout = layout
        self.faults = faults or Faults()
        self.clock = clock or ManualClock()
        self.factory = mock_factory()
        self.adc: dict[str, SimAdc] = {}
        # Physical wiring: which control's contact is really on which map entry's pins.
        self._wired_as: dict[str, str] = {}
        for a, b in self.faults.swapped:
            self._wired_as[a], self._wired_as[b] = b, a
        self.positions = dict(layout.start_positions())
        self.emu = None
        for cid, s in hmap.controls.items():
            reading = s.sim_reading(layout.control(cid) if cid in layout else None, self.positions.get(cid))
            if reading is not None:
                self.adc[cid] = SimAdc(reading)

    def source(self, cid: str):
        """The source the control's contact is physically wired to."""
        return self.hmap.controls[self._wired_as.get(cid, cid)]

    def pin(self, n: int):
        return self.factory.pin(n)

    def level(self, n: int, closed: bool, active_low: bool = True) -> None:
        """Pin n's level for a contact closed or open (active low: closed pulls it down)."""
        p = self.pin(n)
        (p.drive_low if closed == active_low else p.drive_high)()

    def _where(self, cid: str):
        return self.layout.control(cid) if cid in self.layout else None, self.positions.get(cid)

    def power_up(self) -> None:
        """Set every contact to where the tokens stand and the stuck ones closed."""
        for cid in self.hmap.controls:
            if cid not in self.faults.dead:
                self.source(cid).sim_power_up(self, cid, *self._where(cid))

    def on_board(self, cid: str) -> bool:
        return self.source(cid).on_board

    def board_index(self, cid: str, channels: dict[int, str]) -> int:
        """The board's channel the control's wire is really on."""
        wired = self._wired_as.get(cid, cid)
        return next(i for i, c in channels.items() if c == wired)

    def power_up_board(self, emu) -> None:
        """The board's side: stuck keys held down, sliders where they stand (before the
        board starts, so its first snapshot has them all)."""
        self.emu = emu
        for cid in self.hmap.controls:
            self.source(cid).sim_power_up_board(self, cid, *self._where(cid))

    async def act_board(self, step: Step) -> None:
        """The same for a control on the co-processor: real time, the emulated board scans."""
        cid = step.control
        if cid in self.faults.dead:
            return
        await self.source(cid).sim_act_board(self, cid, step, self.layout.control(cid))
        self.positions[cid] = step.target if step.target is not None else self.positions.get(cid)

    def act(self, step: Step) -> None:
        """The simulated maker does what the step asks, moving the clock as a hand would."""
        cid = step.control
        if cid in self.faults.dead:
            self.clock.t += 1.0
            return
        self.clock.t = self.source(cid).sim_act(self, cid, step, self.layout.control(cid), self.clock.t + 0.5)
        self.positions[cid] = step.target if step.target is not None else self.positions.get(cid)


# ---------------------------------------------------------------------------- the runner

# What became of each output (the JSON report's ids; words in the table, in this context).
OUTPUT_RESULTS = (NC_("an output's result", "driven"), NC_("an output's result", "confirmed"),
                  NC_("an output's result", "not seen"), NC_("an output's result", "not driven"))


@dataclass
class OutputResult:
    output: str
    result: str   # one of OUTPUT_RESULTS
    detail: str = ""  # marked N_() when it is a sentence (said in the maker's language)

    def as_dict(self) -> dict:
        return {"output": self.output, "result": self.result, "detail": self.detail}


@dataclass
class Report:
    build: str
    layout: str
    verdicts: list[Verdict]
    outputs: list[OutputResult] = field(default_factory=list)
    coprocessor: dict | None = None
    calibration: str | None = None   # the start-up warning about calibration, if any

    @property
    def ok(self) -> bool:
        from panel.hardware.selftest import BAD

        return not any(v.verdict in BAD for v in self.verdicts) and \
            not any(o.result == "not seen" for o in self.outputs)

    def as_dict(self) -> dict:
        from panel.hardware.selftest import summary

        return {"build": self.build, "layout": self.layout, "ok": self.ok,
                "summary": summary(self.verdicts),
                "controls": [v.as_dict() for v in self.verdicts],
                "outputs": [o.as_dict() for o in self.outputs],
                "coprocessor": self.coprocessor,
                "calibration": self.calibration or "ok"}


class SelfTestRunner:
    """One run of the self-test. A context manager: close() frees every pin, twice is fine."""

    def __init__(self, hmap: HardwareMap, layout: Layout, *, pin_factory, clock: Callable[[], float],
                 adc_devices: dict[str, object] | None = None, strip=None, buzzer_pin: int | None = None):
        self.hmap = hmap
        self.layout = layout
        self.factory = pin_factory
        self.clock = clock
        self.adc_devices = adc_devices or {}
        self.strip = strip
        self.inputs: dict[str, object] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.queue: asyncio.Queue | None = None
        self.hub = None
        self._buzzer = None

    async def start(self) -> None:
        from panel.hardware.devices import make_inputs
        from panel.hardware.inputs import InputHub

        self.loop = asyncio.get_running_loop()
        self.queue = asyncio.Queue()
        self.hub = InputHub(self.loop, self.queue, clock=self.clock)
        # The same devices as the service's; the knob's count is the test's own, homed at
        # its start position (the maker is asked to leave it there before the test).
        self.inputs = make_inputs(self.hmap, self.layout, hub=self.hub, on_board=False, pin_factory=self.factory,
                                  adc_devices=self.adc_devices)
        for cid, inp in self.inputs.items():
            if self.hmap.controls[cid].calibrated == "home":
                inp.home(self.layout.control(cid).start)

    def stuck(self) -> list[str]:
        """Buttons pressed at start: a person is not pressing anything yet."""
        from panel.hardware.buttons import ContactInput

        return [cid for cid, inp in self.inputs.items()
                if isinstance(inp, ContactInput) and inp.positions is None and inp.closed]

    def positions(self) -> dict[str, str]:
        out = {}
        for cid, inp in self.inputs.items():
            v = getattr(inp, "value", None)
            if isinstance(v, str):
                out[cid] = v
        return out

    # -- outputs ---------------------------------------------------------------------------

    def light_pixels(self, pause: Callable[[float], None] = lambda s: None) -> list[OutputResult]:
        np = self.hmap.neopixel
        if np is None:
            return []
        if self.strip is None:
            return [OutputResult(f"pixels 0-{np.count - 1}", "not driven",
                                 N_("no NeoPixel driver here (install the 'pi' extra on the Pi)"))]
        roles = {i: role for role in np.segments for i in np.pixels(role)}
        roles.update({i: cid for cid, i in np.buttons.items()})
        out = []
        dark = [(0, 0, 0)] * np.count
        for i in range(np.count):
            frame = list(dark)
            frame[i] = (255, 255, 255)
            self.strip.write(frame)
            pause(0.15)
            out.append(OutputResult(f"pixel {i}", "driven", roles.get(i, "")))
        self.strip.write(dark)
        return out

    def sound_tones(self, pause: Callable[[float], None] = lambda s: None) -> list[OutputResult]:
        if self.hmap.buzzer is None:
            return []
        from panel.hardware.devices import make_buzzer

        if self._buzzer is None:
            self._buzzer = make_buzzer(self.hmap, pin_factory=self.factory)
        out = []
        for tone in TONES:
            self._buzzer.note(tone)
            pause(0.4)
            self._buzzer.note(None)
            out.append(OutputResult(f"buzzer {tone}", "driven", f"GPIO{self.hmap.buzzer.pin}"))
        return out

    # -- inputs ----------------------------------------------------------------------------

    def drain(self) -> list[InputEvent]:
        out = []
        while not self.queue.empty():
            e = self.queue.get_nowait()
            if isinstance(e, InputEvent) and "#" not in e.control:
                out.append(e)
        return out

    def flush(self, since: float, until: float) -> None:
        """Simulated time: let the adapters' pending decisions (releases, settles, ADC
        samples) between `since` and `until` happen, each at its own time."""
        for _ in range(10000):
            d = self.hub.deadline
            if d is None or d > until:
                break
            self.hub.poll(max(d, since))

    async def collect(self, step: Step, *, timeout: float, settle: float,
                      skip: asyncio.Event | None = None) -> list[InputEvent]:
        """Real time: wait for the asked control (or the timeout, or a skip), then `settle`
        more seconds to catch chatter and crossed wires."""
        events: list[InputEvent] = []
        end = self.clock() + timeout
        seen_at = None
        while True:
            now = self.clock()
            limit = end if seen_at is None else min(end, seen_at + settle)
            if now >= limit or (skip is not None and skip.is_set()):
                break
            d = self.hub.deadline
            wait = max(0.0, min(limit, d if d is not None else limit) - now)
            try:
                e = await asyncio.wait_for(self.queue.get(), timeout=min(wait, 0.05))
                if isinstance(e, InputEvent) and "#" not in e.control:
                    events.append(e)
                    if seen_at is None and e.value is not False:
                        seen_at = self.clock()
            except asyncio.TimeoutError:
                pass
            self.hub.poll(self.clock())
        return events

    def close(self) -> None:
        for inp in self.inputs.values():
            inp.close()
        self.inputs = {}
        if self._buzzer is not None:
            self._buzzer.close()
            self._buzzer = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def coprocessor_report(status: dict) -> dict:
    """The co-processor's part of the report, from the link's status."""
    board = status.get("board") or {}
    return {"status": status["state"], "port": status.get("port"), "firmware": board.get("fw"),
            "protocol": board.get("proto"), "board": board.get("uid"),
            "frame_errors": status.get("frames_rejected", 0), "frames": status.get("frames_received", 0),
            "reconnects": status.get("reconnects", 0), "detail": status.get("message") or ""}


def coprocessor_status(hmap: HardwareMap, layout: Layout) -> tuple[dict | None, list[str]]:
    """(the co-processor's part of the report, the controls it carries)."""
    theirs = [c.id for c in layout.controls() if c.id in hmap.controls and hmap.controls[c.id].on_board]
    if hmap.coprocessor is None and not theirs:
        return None, []
    return ({"status": "not connected", "port": hmap.coprocessor.port if hmap.coprocessor else None,
             "firmware": None, "frame_errors": None,
             "detail": N_("the serial link is not part of this self-test yet: its controls are not tested")},
            theirs)


def unwired(hmap: HardwareMap, layout: Layout) -> list[str]:
    return [c.id for c in layout.controls() if c.id not in hmap.controls]


def _held(events: list[InputEvent]) -> list[str]:
    """Buttons whose last event before the first step was a press: held from the start."""
    last: dict[str, object] = {}
    for e in events:
        last[e.control] = e.value
    return [cid for cid, v in last.items() if v is True]
