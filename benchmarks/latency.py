#!/usr/bin/env python3
"""Latency of a press through the hardware layer, beside a floor measured in the same process.

From a MockPin edge to the engine's decision and the LED frame written:

  edge (drive_low) -> gpiozero Button callback -> clock read -> InputHub.call ->
  [loop] debounce -> InputEvent on the queue -> Match.handle -> snapshot ->
  patterns.render -> FakeStrip.write

measured two ways:
  * threaded: the pin is driven from another thread, as gpiozero calls back on its own
    threads on a Pi; the loop wakes through call_soon_threadsafe. The driver waits for
    the frame to be written.
  * in-loop: the pin is driven from a coroutine on the loop, so the hand-over is a plain
    call: the pure cost of our code on top of gpiozero's.
The floor: a bare gpiozero Button on the same kind of mock pin with an empty when_pressed
callback, drive_low to callback returned. Also the cost of one timer-ring frame (30 and
60 pixels): the ring alone, and the whole chain's frame written to a FakeStrip.

    python benchmarks/latency.py [--presses 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpiozero import Button  # noqa: E402
from gpiozero.pins.mock import MockFactory, MockPWMPin  # noqa: E402

from panel.cards import Card  # noqa: E402
from panel.engine import Match, MatchSettings, Team  # noqa: E402
from panel.events import Action  # noqa: E402
from panel.hardware.buttons import ContactInput  # noqa: E402
from panel.hardware.effects import Effects  # noqa: E402
from panel.hardware.inputs import InputHub  # noqa: E402
from panel.hardware.leds import FakeStrip  # noqa: E402
from panel.hardware.map import NeoPixelConfig  # noqa: E402
from panel.hardware.patterns import render, timer_ring  # noqa: E402
from panel.hardware.runner import PanelRunner  # noqa: E402
from panel.layout import load_layout  # noqa: E402

STEP = 0.02  # logical seconds between presses: more than the debounce window


class LogicalClock:
    """The game's clock: advanced by the driver, so 10,000 presses fit in one turn."""

    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def config(ring: int = 24) -> NeoPixelConfig:
    n = ring + 4 + 2 + 5
    return NeoPixelConfig(10, "spi", n + 8, segments={"timer": (0, ring), "counters": (ring, 4),
                                                      "mistakes": (ring + 4, 2), "progress": (ring + 6, 5)},
                          buttons={f"cross.{b}": n + i for i, b in enumerate(("up", "down", "left", "right",
                                                                             "red", "ok"))})


def rig(loop):
    layout = load_layout()
    clock = LogicalClock()
    queue: asyncio.Queue = asyncio.Queue()
    hub = InputHub(loop, queue, clock=clock)
    factory = MockFactory(pin_class=MockPWMPin)
    button = ContactInput("cross.up", 17, hub=hub, pin_factory=factory)
    cfg = config()
    strip = FakeStrip(cfg.count, keep=1)
    effects = Effects(strip, cfg, None, always_write=True)
    # A card that never completes (its switch is never set), so every press is judged the
    # same way, all within one long turn.
    settings = MatchSettings(teams=(Team("A", ("a", "b")),), turn_seconds=600, seed=1)
    match = Match(settings, layout, [Card("simple", press=("cross.up",), set=(("switch.left", "up"),))])
    runner = PanelRunner(match, hub, effects)
    runner.handle(Action("start_turn", 0.0))
    return clock, queue, factory, button, strip, runner


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def floor(n: int) -> list[float]:
    factory = MockFactory(pin_class=MockPWMPin)
    b = Button(18, pin_factory=factory, bounce_time=None)
    b.when_pressed = lambda: None
    pin = factory.pin(18)
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        pin.drive_low()
        out.append(time.perf_counter() - t0)
        pin.drive_high()
    b.close()
    return out


def threaded(n: int) -> tuple[list[float], int]:
    loop = asyncio.new_event_loop()
    clock, queue, factory, button, strip, runner = rig(loop)
    pin = factory.pin(17)
    done = threading.Event()
    out: list[float] = []
    frames_written = [0]
    write = strip.write

    def counting_write(frame):
        frames_written[0] += 1
        write(frame)

    strip.write = counting_write
    log_before = len(runner.log)

    async def consume():
        while True:
            ev = await queue.get()
            if ev is None:
                return
            runner.handle(ev)
            if ev.value is True:
                done.set()

    def drive():
        for _ in range(n):
            clock.t += STEP
            t0 = time.perf_counter()
            pin.drive_low()
            done.wait()
            out.append(time.perf_counter() - t0)
            done.clear()
            clock.t += STEP / 4
            pin.drive_high()
        loop.call_soon_threadsafe(queue.put_nowait, None)

    th = threading.Thread(target=drive)
    th.start()
    loop.run_until_complete(consume())
    th.join()
    # every press was judged inside one turn, none of them a mistake
    assert not any(e.type == "mistake" for e in runner.log[log_before:])
    assert runner.match.snapshot(clock.t)["phase"] == "in_turn"
    assert len(strip.frames) == 1 and frames_written[0] >= n
    button.close()
    loop.close()
    return out, len(out)


def in_loop(n: int) -> list[float]:
    loop = asyncio.new_event_loop()
    clock, queue, factory, button, strip, runner = rig(loop)
    pin = factory.pin(17)
    out: list[float] = []

    async def drive():
        for _ in range(n):
            clock.t += STEP
            t0 = time.perf_counter()
            pin.drive_low()                      # callback -> hub.call (direct) -> debounce -> queue
            while not queue.empty():
                runner.handle(queue.get_nowait())  # engine decision, frame rendered and written
            out.append(time.perf_counter() - t0)
            clock.t += STEP / 4
            pin.drive_high()

    loop.run_until_complete(drive())
    button.close()
    loop.close()
    return out


def ring_cost(pixels: int, n: int = 2000) -> tuple[float, float]:
    cfg = config(pixels)
    strip = FakeStrip(cfg.count, keep=1)
    snap = {"phase": "in_turn", "team": "A", "teams": [{"name": "A"}], "time_left": 17.3, "turn_seconds": 30,
            "counters_held": 2, "mistakes": 1, "completed": 3, "stuck": "cross.left"}
    ring_only, whole = [], []
    for i in range(n):
        now = i * 0.05
        snap["time_left"] = 30 - (i % 600) * 0.05
        t0 = time.perf_counter()
        timer_ring(snap, now, pixels, [])
        t1 = time.perf_counter()
        strip.write(render(snap, now, cfg, []))
        t2 = time.perf_counter()
        ring_only.append(t1 - t0)
        whole.append(t2 - t1)
    return statistics.median(ring_only), statistics.median(whole)


def us(x: float) -> str:
    return f"{x * 1e6:8.1f} us"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=10_000)
    args = ap.parse_args(argv)
    n = args.presses

    fl = floor(n)
    th, count = threaded(n)
    il = in_loop(n)
    f50, f99 = pct(fl, 50), pct(fl, 99)
    print(f"press latency over {n} presses (MockPin edge -> engine decision -> LED frame written)")
    print(f"  floor: bare gpiozero Button, empty when_pressed  p50 {us(f50)}  p99 {us(f99)}")
    for name, xs in (("threaded (gpiozero thread -> loop)", th), ("in-loop (no thread hand-over)", il)):
        p50, p99 = pct(xs, 50), pct(xs, 99)
        print(f"  {name:<36} p50 {us(p50)}  p99 {us(p99)}   ratio to floor: p50 x{p50 / f50:.1f}, "
              f"p99 x{p99 / f99:.1f}")
    for px in (30, 60):
        ring, whole = ring_cost(px)
        print(f"  timer-ring frame, {px} px ring: ring alone {us(ring)}; whole chain rendered + written {us(whole)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
