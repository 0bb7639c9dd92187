"""The self-test on a simulated panel (`penguin-panel check --sim`): the Pi's controls on
gpiozero mock pins on a simulated clock, the co-processor's the real firmware loop on an
emulated board behind a pseudo-terminal, read by the cockpit's own link adapter. It puts
the hardware, the serial link and the service's link adapter together, so it is a tool
above all three (panel/hardware/selftest_runner.py runs the steps)."""

from __future__ import annotations

import asyncio
from contextlib import ExitStack
from typing import Callable

from panel.core.i18n import N_
from panel.core.layout import Layout
from panel.hardware.leds import FakeStrip
from panel.hardware.map import HardwareMap
from panel.hardware.selftest import Observed, Step, plan, verdicts
from panel.hardware.selftest_runner import (Faults, OutputResult, Report, SelfTestRunner, SimPanel, _held,
                                            coprocessor_report, coprocessor_status, unwired)
from panel.link.emulator import FirmwareEmulator
from panel.service.link_io import LinkIO


async def run_sim(hmap: HardwareMap, layout: Layout, *, faults: Faults | None = None,
                  progress: Callable[[int, int, Step], None] | None = None, tr=None) -> Report:
    """The scripted run on a simulated panel: every control asked for, in order. The Pi's
    controls are gpiozero mock pins on a simulated clock; the co-processor's are the real
    firmware loop on an emulated board behind a pseudo-terminal, read by the real link."""
    panel = SimPanel(hmap, layout, faults=faults)
    strip = FakeStrip(hmap.neopixel.count, keep=None) if hmap.neopixel else None
    with ExitStack() as stack:
        run = stack.enter_context(SelfTestRunner(hmap, layout, pin_factory=panel.factory, clock=panel.clock,
                                                 adc_devices=panel.adc, strip=strip))
        await run.start()
        t0 = panel.clock.t
        panel.power_up()  # after the adapters took their pins: MockPin's pull would undo it
        cop, untested = coprocessor_status(hmap, layout)
        board = None
        if untested:
            emu = FirmwareEmulator(hmap.board().firmware_config)
            panel.power_up_board(emu)
            stack.enter_context(emu)
            # The emulated board shares the machine with everything else: a busy machine
            # must not pass for a silent board (the link's 1 s) and drop the link mid-test.
            board = LinkIO(hmap, layout, port=emu.port,
                           link_options={"silence_timeout": 60.0, "handshake_timeout": 30.0})
            stack.callback(board.close)
            await board.start(run.queue)
            if await board.wait_connected(60.0):
                untested = []
                await board.sync()
                await board.settled()
        panel.clock.t += 0.5
        run.flush(t0, panel.clock.t)
        stuck = run.stuck() + _held(run.drain())
        outputs = run.light_pixels() + run.sound_tones()
        if strip is not None:
            lit = [[i for i, p in enumerate(f) if p != (0, 0, 0)] for f in strip.frames]
            if lit != [[i] for i in range(strip.count)] + [[]]:
                outputs.append(OutputResult("pixel chain", "not seen", N_("the frames did not light one pixel each")))
        steps = plan(layout, [c for c in hmap.controls if c not in untested], run.positions(), tr)
        observed = []
        for k, step in enumerate(steps):
            if progress:
                progress(k, len(steps), step)
            if board is not None and (panel.on_board(step.control) or step.control in hmap.coprocessor_adc().values()):
                await panel.act_board(step)
                await board.sync()  # not "quiet for a while": everything the board said is in
                await board.settled()  # and a slider's reading has settled into its position
                observed.append(Observed(step, run.drain()))
                continue
            t0 = panel.clock.t
            panel.act(step)
            panel.clock.t += 1.0
            run.flush(t0, panel.clock.t)
            await asyncio.sleep(0)
            observed.append(Observed(step, run.drain()))
        if board is not None:
            cop = coprocessor_report(board.status())
        return Report(hmap.name, f"{layout.name} ({layout.side})",
                      verdicts(observed, stuck=stuck, untested=untested, unwired=unwired(hmap, layout)),
                      outputs, cop)
