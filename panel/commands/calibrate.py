"""`penguin-panel calibrate`: each slider's two ends, a check of every position, the knob's home.

    penguin-panel calibrate hardware/reference.toml           # at the panel, guided
    penguin-panel calibrate hardware/reference.toml --sim     # a simulated maker
    penguin-panel calibrate --only slider.red                 # redo one control

The result goes to the calibration file (see panel/calibration.py) that the service reads
at start. Running it again is safe: the file is replaced whole, and controls not redone
keep their values.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from ..i18n import _, ngettext

SAMPLES = 15          # readings per end or position
TRUE_ENDS = (0.035, 0.955)   # the simulated sliders' real ends: not the map's defaults


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="calibrate the sliders' ends and the knob's home")
    p.add_argument("map", metavar="HARDWARE_MAP", nargs="?", help="hardware map TOML (default: hardware/reference.toml)")
    p.add_argument("--layout", metavar="FILE", help="layout TOML (default: the Penguin Airlines panel)")
    p.add_argument("--file", metavar="FILE", help="calibration file (default: $PENGUIN_PANEL_CALIBRATION, "
                                                  "else ~/.local/state/penguin-panel/calibration.toml)")
    p.add_argument("--only", metavar="CONTROL", action="append", help="calibrate only this control (repeatable)")
    p.add_argument("--sim", action="store_true", help="simulated panel and a scripted maker")
    p.set_defaults(func=calibrate_command)


def calibrate_command(args) -> int:
    from .. import calibration as calmod
    from ..errors import ConfigError, Problem
    from ..hardware.map import AdcSource, EncoderSource
    from .check import checked_map

    hmap, layout = checked_map(args.map, args.layout)
    path = Path(args.file) if args.file else calmod.default_path()
    targets = [cid for cid, s in hmap.controls.items() if isinstance(s, (AdcSource, EncoderSource))]
    if args.only:
        unknown = [c for c in args.only if c not in targets]
        if unknown:
            raise ConfigError(Problem(None, "--only", f"{', '.join(unknown)}: not a slider or knob of "
                                                      f"{hmap.source} ({', '.join(targets)})"))
        targets = [c for c in targets if c in args.only]
    if not targets:
        print(_("{map}: no sliders or knob to calibrate").format(map=hmap.source))
        return 0
    old = calmod.load(path) if path.is_file() else None
    try:
        new, problems = asyncio.run(_calibrate(hmap, layout, targets, path, sim=args.sim))
    except RuntimeError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    cal = calmod.merged(old, new)
    calmod.save(cal, path)
    for line in calmod.describe(cal, targets):
        print("  " + line)
    for line in problems:
        print(_("problem: {problem}").format(problem=line))
    print((_("{file}: saved (with problems: see above, then run it again)") if problems else
           _("{file}: saved")).format(file=path))
    return 1 if problems else 0


class _Maker:
    """Says what to do; at the panel waits for Enter, in --sim does it."""

    def __init__(self, sim_panel=None):
        self.sim = sim_panel
        self.n = 0

    def ask(self, text: str, action=None) -> None:
        self.n += 1
        if self.sim is not None:
            print(f"  {self.n:>2}. {text}")
            if action is not None:
                action()
            return
        try:
            input(f"  {self.n:>2}. " + _("{instruction}, then press Enter").format(instruction=text) + " ")
        except EOFError:
            raise RuntimeError(_("calibration needs a person at the panel (no input): use --sim to try it")) from None


async def _calibrate(hmap, layout, targets, path, *, sim: bool):
    from contextlib import ExitStack

    from .. import calibration as calmod
    from ..hardware.map import AdcSource, EncoderSource
    from ..hardware.pins import pin_factory

    cal = calmod.Calibration(map=hmap.name)
    problems: list[str] = []
    with ExitStack() as stack:
        factory = pin_factory(sim=sim)
        panel = None
        if sim:
            from ..selftest_runner import SimPanel

            panel = SimPanel(hmap, layout)
        maker = _Maker(panel)
        readers = _Readers(hmap, layout, stack, factory, panel)
        await readers.start([c for c in targets if isinstance(hmap.controls[c], AdcSource)])
        for cid in targets:
            s = hmap.controls[cid]
            c = layout.control(cid)
            if isinstance(s, AdcSource):
                n = len(c.positions)
                print(ngettext("{control}: {n} position, {positions}", "{control}: {n} positions, {positions}", n)
                      .format(control=cid, n=n, positions=", ".join(c.positions)))
                slide = _("slide {control} all the way to its {position} end")
                maker.ask(slide.format(control=cid, position=c.positions[0]), readers.setter(cid, 0.0))
                lo = await readers.samples(cid)
                maker.ask(slide.format(control=cid, position=c.positions[-1]), readers.setter(cid, 1.0))
                hi = await readers.samples(cid)
                try:
                    sc = calmod.fit(lo, hi)
                except ValueError as e:
                    problems.append(f"{cid}: {e}")
                    continue
                readings = {}
                for i, p in enumerate(c.positions):
                    maker.ask(_("set {control} to {position}").format(control=cid, position=p),
                              readers.setter(cid, (i + 0.5) / len(c.positions)))
                    readings[p] = await readers.samples(cid)
                bad = calmod.check_positions(sc, c.positions, readings)
                sc.checked = tuple(p for p in c.positions if p not in bad)
                problems += [_("{control}: set to {position}, it reads as {read}").format(control=cid, position=p,
                                                                                        read=got)
                             for p, got in bad.items()]
                cal.sliders[cid] = sc
            elif isinstance(s, EncoderSource):
                home = c.start
                if s.on != "pi":
                    problems.append(_("{control}: homing a knob on the co-processor is not supported yet")
                                    .format(control=cid))
                    continue
                knob = readers.knob(cid, path.parent)
                maker.ask(_("turn {control} to {position} (its start position)").format(control=cid, position=home))
                knob.home(home)
                cal.knobs[cid] = home
    return cal, problems


class _Readers:
    """Raw slider readings (0..1 of full scale): MCP3008 channels on the Pi, the
    co-processor's ADC through the serial link; in --sim, the simulated panel's."""

    def __init__(self, hmap, layout, stack, factory, panel):
        self.hmap, self.layout, self.stack, self.factory, self.panel = hmap, layout, stack, factory, panel
        self.devices = {}
        self.latest: dict[str, float] = {}
        self.emu = None
        self.link = None

    async def start(self, sliders) -> None:
        from ..hardware.map import AdcSource

        pico = [c for c in sliders if self.hmap.controls[c].on == "pico"]
        for cid in sliders:
            s: AdcSource = self.hmap.controls[cid]
            if s.on == "mcp3008":
                if self.panel is not None:
                    self.devices[cid] = self.panel.adc[cid]
                else:
                    from gpiozero import MCP3008

                    sel = self.hmap.mcp3008.select_pin if self.hmap.mcp3008 else 8
                    dev = MCP3008(s.channel, clock_pin=11, mosi_pin=10, miso_pin=9, select_pin=sel,
                                  pin_factory=self.factory)
                    self.stack.callback(dev.close)
                    self.devices[cid] = dev
        if pico:
            from ..link.from_map import link_for_map
            from ..selftest_runner import board_config

            config, adc_index, _unused = board_config(self.hmap)
            self.adc_index = adc_index
            port = None  # the map's port first, then any Pico by its USB id
            patience = {}
            if self.panel is not None:
                from ..link.emulator import FirmwareEmulator

                self.emu = self.stack.enter_context(FirmwareEmulator(config))
                port = self.emu.port
                # The emulated board shares the machine: a busy machine is not a silent board.
                patience = {"silence_timeout": 60.0, "handshake_timeout": 30.0}
            self.link = self.stack.enter_context(link_for_map(
                self.hmap, port=port, on_analog=lambda r: self.latest.__setitem__(r.control, r.raw / 4095),
                **patience))
            end = time.monotonic() + (60 if self.emu is not None else 5)
            while not self.link.connected and time.monotonic() < end:
                await asyncio.sleep(0.02)
            if not self.link.connected:
                raise RuntimeError(_("the co-processor did not answer on {port}: {why}").format(
                    port=port or _("any port"), why=self.link.status().get("message") or _("is it plugged in?")))

    def setter(self, cid: str, frac: float):
        """--sim: the scripted maker's hand, moving the slider to `frac` of its travel."""
        if self.panel is None:
            return None
        lo, hi = TRUE_ENDS
        value = lo + (hi - lo) * frac
        s = self.hmap.controls[cid]

        def act():
            if s.on == "mcp3008":
                self.devices[cid].value = value
            else:
                self.emu.set_adc(self.adc_index[cid], int(value * 65535))
        return act

    async def samples(self, cid: str) -> list[float]:
        s = self.hmap.controls[cid]
        out = []
        if s.on == "mcp3008":
            for _sample in range(SAMPLES):
                out.append(float(self.devices[cid].value))
                if self.panel is None:
                    await asyncio.sleep(0.02)
            return out
        # The board reports a channel when it changes by more than its deadband: wait for
        # its filter to follow the slider, then for the link to have read what it sent
        # (the PING/PONG barrier), then take the latest value.
        if self.emu is not None:
            await asyncio.to_thread(self.emu.wait_analog)  # counted in the emulated board's scans
        else:
            await asyncio.sleep(0.15)  # a real board's filter: FOLLOW_SAMPLES scans per channel
        await asyncio.to_thread(self.link.sync, 30.0 if self.emu is not None else 2.0)
        v = self.latest.get(cid)
        return [v] if v is not None else []

    def knob(self, cid: str, state_dir: Path):
        from ..hardware.encoder import KnobInput
        from ..hardware.inputs import InputHub

        s = self.hmap.controls[cid]
        hub = InputHub(asyncio.get_running_loop(), asyncio.Queue())
        knob = KnobInput(cid, s.pins, hub=hub, positions=tuple(self.layout.control(cid).positions),
                         steps_per_position=s.steps_per_position, wrap=s.wrap,
                         state_file=Path(state_dir) / f"{cid}.json", pin_factory=self.factory)
        self.stack.callback(knob.close)
        return knob
