"""Serial link benchmark: how fast the Pi side parses frames, and how long a key press on
the emulated board takes to become an engine event over a real pty.

    .venv/bin/python -m benchmarks.serial_link [--frames N] [--presses N]

Floors, measured in the same process:
- parsing: splitting the same bytes into lines (bytes.split), the least any framing
  must do;
- latency: one frame written to a bare pty and read back by pyserial, the transport
  alone; the press latency adds the board's scan (1 kHz: up to 1 ms of waiting for the
  next scan), its frame building, the link's parse and the hand-over to asyncio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import threading
import time
import tty

import serial

from panel.games.airlines.cards import Card
from panel.games.airlines.engine import Match, MatchSettings, Team
from panel.firmware import protocol
from panel.core.layout_file import load_layout
from panel.link import SerialLink
from panel.link.emulator import FirmwareEmulator

from .stats import summary


def frame_stream(n: int, seed: int = 1) -> bytes:
    rng = random.Random(seed)
    out = bytearray()
    t = 0
    for seq in range(n):
        t += rng.randrange(1, 30)
        r = rng.random()
        if r < 0.7:
            kind, values = rng.choice(["DOWN", "UP"]), (rng.randrange(8), rng.randrange(12), t)
        elif r < 0.9:
            kind, values = "ADC", (rng.randrange(3), rng.randrange(4096), t)
        else:
            kind, values = "BEAT", (t, 1000, 0, 0)
        out += protocol.encode(seq, kind, protocol.pack(protocol.BOARD_TO_PI, kind, values))
    return bytes(out)


def bench_parse(n: int) -> None:
    data = frame_stream(n)
    chunks = [data[i:i + 512] for i in range(0, len(data), 512)]  # what one read() returns under load
    rounds = 5
    best_parse = best_link = best_floor = float("inf")
    per_chunk: list[float] = []
    floor_chunk: list[float] = []
    link = SerialLink({(r, c): f"k{r}.{c}" for r in range(8) for c in range(12)},
                      adc_map={i: f"a{i}" for i in range(3)}, finder=lambda: [])
    link._synced, link.board = True, {"uid": "bench"}
    for _ in range(rounds):
        p = protocol.Parser()
        t0 = time.perf_counter()
        got = 0
        for c in chunks:
            s = time.perf_counter_ns()
            got += len(p.feed(c))
            per_chunk.append((time.perf_counter_ns() - s) / 1e9)
        best_parse = min(best_parse, time.perf_counter() - t0)
        assert got == n and p.rejected == 0
        # the full Pi side: parse, sequence check, clock mapping, map to control, emit
        link.parser = protocol.Parser()
        link._expect = None
        t0 = time.perf_counter()
        now = time.monotonic()
        for c in chunks:
            for f in link.parser.feed(c):
                link._frame(f, now)
        best_link = min(best_link, time.perf_counter() - t0)
        t0 = time.perf_counter()
        lines = 0
        for c in chunks:
            s = time.perf_counter_ns()
            lines += c.count(b"\n")
            c.split(b"\n")
            floor_chunk.append((time.perf_counter_ns() - s) / 1e9)
        best_floor = min(best_floor, time.perf_counter() - t0)
    print(f"parse: {n} frames, {len(data)} bytes, best of {rounds}")
    print(f"  Parser.feed (framing + CRC-16)      {n / best_parse:12,.0f} frames/s")
    print(f"  whole Pi side (parse + dispatch)    {n / best_link:12,.0f} frames/s")
    print(f"  floor: bytes.split into lines       {n / best_floor:12,.0f} lines/s "
          f"(parser is {best_parse / best_floor:.0f}x the floor)")
    print("  " + summary("per 512-byte read, Parser.feed", per_chunk, floor_chunk))


def bench_pty_floor(n: int) -> list[float]:
    master, slave = os.openpty()
    tty.setraw(slave)
    path = os.ttyname(slave)
    out: list[float] = []
    frame = protocol.encode(1, "DOWN", protocol.pack(protocol.BOARD_TO_PI, "DOWN", (3, 5, 1)))
    with serial.Serial(path, 115200, timeout=1) as ser:
        for _ in range(n):
            t0 = time.perf_counter()
            os.write(master, frame)
            ser.read_until(b"\n")
            out.append(time.perf_counter() - t0)
            time.sleep(0.001)
    os.close(master)
    os.close(slave)
    return out


async def _latency(emu: FirmwareEmulator, n: int) -> tuple[list[float], list[float]]:
    loop = asyncio.get_running_loop()
    layout = load_layout()
    settings = MatchSettings(mode="competitive", teams=[Team("A", ["a", "b"]), Team("B", ["c", "d"])],
                             turn_seconds=10**6, seed=1)
    match = Match(settings, layout, cards=[Card("simple", press=("grid.r1c1",))] * 3, shuffle=False)
    match.handle(__import__("panel.core.events", fromlist=["Action"]).Action("start_turn", time.monotonic()))
    pressed_at: dict[str, float] = {}
    to_link: list[float] = []
    to_engine: list[float] = []
    got = asyncio.Event()
    connected = threading.Event()

    def on_event(ev):  # reader thread
        if ev.value is True:
            to_link.append(time.perf_counter() - pressed_at["t"])
        loop.call_soon_threadsafe(handle, ev)

    def handle(ev):  # the asyncio loop, as in the service
        match.handle(ev)
        if ev.value is True:
            to_engine.append(time.perf_counter() - pressed_at["t"])
            got.set()

    link = SerialLink({(0, 0): "grid.r1c1"}, finder=lambda: [emu.port], on_event=on_event,
                      on_status=lambda s: s["state"] == "connected" and connected.set())
    with link:
        await asyncio.to_thread(connected.wait, 10)
        rng = random.Random(3)
        for _ in range(n):
            got.clear()
            await asyncio.sleep(rng.uniform(0.002, 0.006))  # presses land anywhere in the scan period
            pressed_at["t"] = time.perf_counter()
            emu.press(0, 0)
            await asyncio.wait_for(got.wait(), 5)
            emu.release(0, 0)
            await asyncio.to_thread(emu.wait_scans, 8)
    return to_link, to_engine


def bench_latency(n: int) -> None:
    floor = bench_pty_floor(n)
    with FirmwareEmulator({"rows": [2], "cols": [10]}) as emu:
        to_link, to_engine = asyncio.run(_latency(emu, n))
    print(f"latency: {n} presses on the emulated board (1 kHz scan)")
    print("  " + summary("press -> SerialLink on_event", to_link, floor, unit="ms"))
    print("  " + summary("press -> engine handled (asyncio)", to_engine, floor, unit="ms"))
    print("  " + summary("floor: one frame through a bare pty", floor, unit="ms"))


def bench_reconnect(n: int) -> None:
    """Unplug -> noticed, and replug (new pty name) -> resynchronised, with the defaults."""
    noticed: list[float] = []
    back: list[float] = []
    silent: list[float] = []
    with FirmwareEmulator({"rows": [2], "cols": [10]}) as emu:
        states: list[tuple[float, str, str]] = []
        cond = threading.Condition()

        def on_status(s):
            with cond:
                states.append((time.perf_counter(), s["state"], s["reason"]))
                cond.notify_all()

        def wait(state, reason=None):
            with cond:
                while True:
                    for t, st, r in states:
                        if st == state and (reason is None or r == reason):
                            states.clear()
                            return t
                    if not cond.wait(10):
                        raise SystemExit(f"benchmark: no {state} status within 10 s")

        with SerialLink({(0, 0): "k"}, finder=lambda: [emu.port] if emu.port else [], on_status=on_status):
            wait("connected")
            for i in range(n):
                t0 = time.perf_counter()
                emu.unplug()
                noticed.append(wait("disconnected", "unplugged") - t0)
                t0 = time.perf_counter()
                emu.replug()
                back.append(wait("connected") - t0)
            for i in range(max(1, n // 4)):
                time.sleep(0.3)
                t0 = time.perf_counter()
                emu.hang()   # last frame was at most one heartbeat (250 ms) before this
                silent.append(wait("disconnected", "silent") - t0)
                emu.reset()
                wait("connected")
    print(f"reconnect: {n} unplug/replug cycles, {len(silent)} hangs (defaults: 1 s silence, 0.25 s retry)")
    print("  " + summary("unplug -> disconnected", noticed, unit="ms"))
    print("  " + summary("replug (new name) -> connected, resynced", back, unit="ms"))
    print("  " + summary("hang -> disconnected (silent)", silent, unit="ms"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--presses", type=int, default=300)
    ap.add_argument("--replugs", type=int, default=20)
    args = ap.parse_args()
    bench_parse(args.frames)
    bench_latency(args.presses)
    bench_reconnect(args.replugs)


if __name__ == "__main__":
    main()
