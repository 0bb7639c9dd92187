"""`penguin-panel calibrate`: each slider's two ends, a check of every position, the knob's home.

    penguin-panel calibrate reference                         # at the panel, guided
    penguin-panel calibrate my-build.toml --sim               # a simulated maker
    penguin-panel calibrate --only slider.red                 # redo one control

The result goes to the calibration file (see panel/hardware/calibration.py) that the service reads
at start. Running it again is safe: the file is replaced whole, and controls not redone
keep their values.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from panel.core.i18n import N_, Text, _, ngettext, system, text_of

SAMPLES = 15          # readings per end or position
TRUE_ENDS = (0.035, 0.955)   # the simulated sliders' real ends: not the map's defaults


def register(sub) -> None:
    p = sub.add_parser("calibrate", help=_("calibrate the sliders' ends and the knob's home"))
    p.add_argument("map", metavar="HARDWARE_MAP", nargs="?",
                   help=_("hardware map TOML, or a shipped map's name (default: reference)"))
    p.add_argument("--layout", metavar=_("FILE"), help=_("layout TOML (default: the Penguin Airlines panel)"))
    p.add_argument("--file", metavar=_("FILE"), help=_("calibration file (default: $PENGUIN_PANEL_CALIBRATION, "
                                                  "else ~/.local/state/penguin-panel/calibration.toml)"))
    p.add_argument("--only", metavar=_("CONTROL"), action="append", help=_("calibrate only this control (repeatable)"))
    p.add_argument("--sim", action="store_true", help=_("simulated panel and a scripted maker"))
    p.set_defaults(func=calibrate_command)


def calibrate_command(args) -> int:
    from panel.hardware import calibration as calmod
    from panel.core.errors import ConfigError, Problem
    from panel.hardware.map import DEFAULT_MAP, checked_map

    hmap, layout, _warnings = checked_map(args.map or DEFAULT_MAP, args.layout)
    path = Path(args.file) if args.file else calmod.default_path()
    targets = [cid for cid, s in hmap.controls.items() if s.calibrated is not None]
    if args.only:
        unknown = [c for c in args.only if c not in targets]
        if unknown:
            raise ConfigError(Problem(None, "--only", Text(N_("{ids}: not a slider or knob of {map} ({controls})"),
                                                           ids=", ".join(unknown), map=hmap.source,
                                                           controls=", ".join(targets))))
        targets = [c for c in targets if c in args.only]
    if not targets:
        print(_("{map}: no sliders or knob to calibrate").format(map=hmap.source))
        return 0
    old = calmod.load(path) if path.is_file() else None
    try:
        new, problems = asyncio.run(_calibrate(hmap, layout, targets, path, sim=args.sim))
    except RuntimeError as e:
        print(_("error: {error}").format(error=text_of(e.args[0] if e.args else e, system())), file=sys.stderr)
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

    from panel.hardware import calibration as calmod
    from panel.hardware.pins import pin_factory

    cal = calmod.Calibration(map=hmap.name)
    problems: list[str] = []
    with ExitStack() as stack:
        factory = pin_factory(sim=sim)
        panel = None
        if sim:
            from panel.hardware.selftest_runner import SimPanel

            panel = SimPanel(hmap, layout)
        maker = _Maker(panel)
        readers = _Readers(hmap, layout, stack, factory, panel)
        await readers.start([c for c in targets if hmap.controls[c].calibrated == "ends"])
        for cid in targets:
            s = hmap.controls[cid]
            c = layout.control(cid)
            if s.calibrated == "ends":  # a slider: its two ends, then each position checked
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
            elif s.calibrated == "home":  # the knob: homed at its start position
                home = c.start
                if s.on_board:
                    problems.append(_("{control}: homing a knob on the co-processor is not supported yet")
                                    .format(control=cid))
                    continue
                knob = readers.knob(cid, path.parent)
                maker.ask(_("turn {control} to {position} (its start position)").format(control=cid, position=home))
                knob.home(home)
                cal.knobs[cid] = home
    return cal, problems


class _Readers:
    """Raw slider readings (0..1 of full scale) through the map's own devices: MCP3008
    channels on the Pi, the co-processor's ADC through the link; in --sim, the simulated
    panel's. And the knob, as the service makes it."""

    def __init__(self, hmap, layout, stack, factory, panel):
        self.hmap, self.layout, self.stack, self.factory, self.panel = hmap, layout, stack, factory, panel
        self.hub = None
        self.inputs: dict = {}
        self.board = None
        self.emu = None

    async def start(self, sliders) -> None:
        from panel.hardware.devices import make_input
        from panel.hardware.inputs import InputHub
        from panel.service.link_io import LinkIO

        queue: asyncio.Queue = asyncio.Queue()  # positions are not wanted here: the raw readings are
        self.hub = InputHub(asyncio.get_running_loop(), queue)
        for cid in sliders:
            if not self.hmap.controls[cid].on_board:
                inp = make_input(self.hmap, cid, self.layout.control(cid), hub=self.hub, pin_factory=self.factory,
                                 adc_device=self.panel.adc[cid] if self.panel is not None else None)
                self.stack.callback(inp.close)
                self.inputs[cid] = inp
        if any(self.hmap.controls[c].on_board for c in sliders):
            port = None  # the map's port first, then any Pico by its USB id
            patience = {}
            if self.panel is not None:
                from panel.link.emulator import FirmwareEmulator

                self.emu = self.stack.enter_context(FirmwareEmulator(self.hmap.board().firmware_config))
                port = self.emu.port
                # The emulated board shares the machine: a busy machine is not a silent board.
                patience = {"silence_timeout": 60.0, "handshake_timeout": 30.0}
            self.board = LinkIO(self.hmap, self.layout, port=port, link_options=patience)
            self.stack.callback(self.board.close)
            await self.board.start(queue)
            if not await self.board.wait_connected(60.0 if self.emu is not None else 5.0):
                raise RuntimeError(_("the co-processor did not answer on {port}: {why}").format(
                    port=port or _("any port"), why=self.board.status().get("message") or _("is it plugged in?")))

    def setter(self, cid: str, frac: float):
        """--sim: the scripted maker's hand, moving the slider to `frac` of its travel."""
        if self.panel is None:
            return None
        lo, hi = TRUE_ENDS
        value = lo + (hi - lo) * frac

        def act():
            if cid in self.inputs:
                self.panel.adc[cid].value = value
            else:
                channel = next(i for i, c in self.hmap.board().adc.items() if c == cid)
                self.emu.set_adc(channel, int(value * 65535))
        return act

    async def samples(self, cid: str) -> list[float]:
        out = []
        if cid in self.inputs:
            for _sample in range(SAMPLES):
                out.append(self.inputs[cid].raw)
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
        await self.board.sync(30.0 if self.emu is not None else 2.0)
        raw = self.board.devices[cid].raw
        return [raw] if raw is not None else []

    def knob(self, cid: str, state_dir: Path):
        from panel.hardware.devices import make_input

        knob = make_input(self.hmap, cid, self.layout.control(cid), hub=self.hub, pin_factory=self.factory,
                          state_dir=state_dir)
        self.stack.callback(knob.close)
        return knob
