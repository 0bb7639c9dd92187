"""`penguin-panel check`: the self-test of a built panel.

    penguin-panel check reference            # at the panel: guided, step by step
    penguin-panel check my-build.toml --sim  # a simulated maker on mock pins
    penguin-panel check --sim --report       # the shipped reference map, as JSON for scripts

It lights each pixel in turn and sounds each buzzer tone, then asks for every control of
the layout the map wires, one at a time, and ends with a table: each control seen, never
seen, swapped with another (both named), arriving as another, stuck, or chattering.
Exit status 0 when every control is fine, 1 when any is not.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

from panel.hardware.map import DEFAULT_MAP, checked_map
from panel.core.i18n import NC_, N_, _, system, text_of

# The co-processor link's states (panel.link's, and the self-test's own "not connected"),
# in words: what the summary line says.
LINK_STATE = "a co-processor link's state"
LINK_STATES = {"connected": NC_("a co-processor link's state", "connected"),
               "disconnected": NC_("a co-processor link's state", "disconnected"),
               "version_mismatch": NC_("a co-processor link's state", "speaking another protocol version"),
               "not connected": NC_("a co-processor link's state", "not connected")}


def register(sub) -> None:
    p = sub.add_parser("check", help=_("self-test the built panel: every light, tone and control"))
    p.add_argument("map", metavar="HARDWARE_MAP", nargs="?",
                   help=_("hardware map TOML, or a shipped map's name (default: {map})").format(map=DEFAULT_MAP))
    p.add_argument("--layout", metavar=_("FILE"), help=_("layout TOML (default: the Penguin Airlines panel)"))
    p.add_argument("--sim", action="store_true",
                   help=_("simulated pins; a scripted maker presses and moves every control in order"))
    p.add_argument("--report", action="store_true", help=_("print the result as JSON (prompts go to stderr)"))
    p.add_argument("--step-timeout", type=float, default=20.0, metavar="S",
                   help=_("seconds to wait for each control before calling it never seen (default 20)"))
    p.set_defaults(func=check_command)


def check_command(args) -> int:
    from panel.core.errors import ConfigError
    from panel.hardware.selftest import table

    tr = system()
    hmap, layout, _warnings = checked_map(args.map or DEFAULT_MAP, args.layout)
    talk = sys.stderr if args.report else sys.stdout
    from panel.hardware.calibration import status_at_start

    try:
        _status, warning = status_at_start(hmap, map_arg=args.map or DEFAULT_MAP)
    except ConfigError as e:
        warning = "; ".join(p.text(tr) for p in e.problems)
    if warning:
        print(_("warning: {warning}").format(warning=warning), file=talk)
    progress = _Progress(talk)
    if args.sim:
        from panel.tools.selftest_sim import run_sim

        report = asyncio.run(run_sim(hmap, layout, progress=progress, tr=tr))
    else:
        try:
            report = asyncio.run(_run_live(hmap, layout, progress, talk, args.step_timeout, tr))
        except RuntimeError as e:  # not a Pi, no GPIO access: say so in one line
            print(_("error: {error}").format(error=text_of(e.args[0] if e.args else e, tr)), file=sys.stderr)
            return 2
    progress.done()
    report.calibration = warning
    if args.report:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print(_outputs_text(report, tr), file=talk)
        print(table(report.verdicts, layout, tr), file=talk)
        if report.coprocessor is not None:
            cp = report.coprocessor
            print("\n" + _("co-processor: {status}; firmware {firmware}; frame errors {errors}").format(
                status=tr.pgettext(LINK_STATE, LINK_STATES.get(cp["status"], cp["status"])),
                firmware=cp.get("firmware") or "?",
                errors=cp.get("frame_errors") if cp.get("frame_errors") is not None else "?")
                + (f" ({_link_detail(cp)})" if cp.get("detail") else ""), file=talk)
        print("\n" + (_("all good") if report.ok else _("some controls need a look (see above)")), file=talk)
    return 0 if report.ok else 1


def _link_detail(cp: dict) -> str:
    """What the link said, in the maker's language where it is one of the self-test's own
    sentences or a board answering (the link's other reasons are its own words, English)."""
    if cp["status"] == "connected" and cp.get("board") and cp.get("port"):
        return _("board {board} on {port}").format(board=cp["board"], port=cp["port"])
    return _(cp["detail"])


class _Progress:
    """One line per step with a bar, so a maker sees how far along the test is."""

    def __init__(self, out):
        self.out = out
        self.tty = hasattr(out, "isatty") and out.isatty()

    def __call__(self, k: int, n: int, step) -> None:
        width = 20
        filled = round(width * k / max(n, 1))
        line = f"[{'#' * filled}{'.' * (width - filled)}] {k + 1:>3}/{n}  {step.prompt}"
        if self.tty:
            self.out.write("\r\033[K" + line)
            self.out.flush()
        else:
            print(line, file=self.out)

    def done(self) -> None:
        if self.tty:
            self.out.write("\n")


def _outputs_text(report, tr) -> str:
    if not report.outputs:
        return tr.gettext("outputs: none in this map") + "\n"
    by: dict[str, int] = {}
    for o in report.outputs:
        by[o.result] = by.get(o.result, 0) + 1

    def word(result: str) -> str:
        return tr.pgettext("an output's result", result)

    bad = [o for o in report.outputs if o.result in ("not seen", "not driven")]
    lines = [tr.gettext("outputs: {results}").format(results=", ".join(f"{n} {word(k)}" for k, n in by.items()))]
    lines += [f"  {o.output}: {word(o.result)} {tr.gettext(o.detail) if o.detail else ''}".rstrip() for o in bad]
    return "\n".join(lines) + "\n"


async def _run_live(hmap, layout, progress, talk, timeout: float, tr):
    """At the real panel: the person does what each prompt says."""
    from contextlib import ExitStack

    from panel.hardware.pins import pin_factory
    from panel.hardware.selftest import Observed, plan, verdicts
    from panel.hardware.selftest_runner import (OutputResult, Report, SelfTestRunner, _held, coprocessor_report,
                                   coprocessor_status, unwired)

    factory = pin_factory(sim=False)  # off a Pi: a RuntimeError, told as one line
    strip = _real_strip(hmap)
    print(_("Leave every token at its start position and the knob at its start, then press Enter."), file=talk)
    _ask("")
    with ExitStack() as stack:
        if strip is not None:
            stack.callback(strip.close)
        run = stack.enter_context(SelfTestRunner(hmap, layout, pin_factory=factory, clock=time.monotonic,
                                                 strip=strip))
        await run.start()
        cop, untested = coprocessor_status(hmap, layout)
        board = None
        if untested:
            from panel.service.link_io import LinkIO

            # The map's port first, then any Pico found by its USB id, as the service does.
            board = LinkIO(hmap, layout)
            stack.callback(board.close)
            await board.start(run.queue)
            print(_("waiting for the co-processor ..."), file=talk)
            if await board.wait_connected(5.0):
                untested = []
            else:
                cop = coprocessor_report(board.status())
                hint = _("(is the Pico plugged in and flashed? see hardware/BUILD.md)")
                cop["detail"] = f"{cop.get('detail') or ''} {hint}".strip()
        await asyncio.sleep(0.3)
        run.hub.poll(time.monotonic())
        stuck = run.stuck() + _held(run.drain())
        outputs = run.light_pixels(time.sleep)
        if outputs and outputs[0].result == "driven":
            if not _ask(_("Did the pixels light one at a time, in order? [Y/n] "), yes=True):
                outputs.append(OutputResult("pixel chain", "not seen", N_("the maker saw them out of order or dark")))
        tones = run.sound_tones(time.sleep)
        if tones and not _ask(_("Did you hear four rising tones? [Y/n] "), yes=True):
            tones.append(OutputResult("buzzer", "not seen", N_("the maker heard nothing or a wrong tone")))
        outputs += tones
        steps = plan(layout, [c for c in hmap.controls if c not in untested], run.positions(), tr)
        observed = []
        for k, step in enumerate(steps):
            progress(k, len(steps), step)
            events = await run.collect(step, timeout=timeout, settle=0.8)
            observed.append(Observed(step, events))
        if board is not None and not untested:
            cop = coprocessor_report(board.status())
        return Report(hmap.name, f"{layout.name} ({layout.side})",
                      verdicts(observed, stuck=stuck, untested=untested, unwired=unwired(hmap, layout)),
                      outputs, cop)


def _ask(prompt: str, *, yes: bool = False) -> bool:
    if not sys.stdin.isatty():
        return True
    try:
        answer = input(prompt).strip().lower()
    except EOFError:
        return True
    # Translators: the answers that mean yes to a [Y/n] question, separated by spaces.
    return answer in ("", "y", "yes", *_("y yes").split()) if yes else True


def _real_strip(hmap):
    """The NeoPixel chain through the hardware layer's driver."""
    from panel.hardware.devices import make_strip

    try:
        return make_strip(hmap)
    except (ImportError, RuntimeError, OSError, ValueError) as e:
        print(_("warning: the NeoPixels cannot be driven here ({error}): the pixel step is skipped").format(error=e),
              file=sys.stderr)
        return None
