#!/usr/bin/env python3
"""Latency of one press through the path production runs, stage by stage, each beside a
floor measured in the same run.

The real `Cockpit` owns a match, with its SQLite store in a temporary folder (the
service's own settings: WAL, synchronous=FULL, one fsync per input), the hardware map's
devices and effects (the reference build: its Pi side on gpiozero MockPins, its pixels a
FakeStrip, its Pico the real firmware loop on an emulated board behind a pty, read by the
real SerialLink), and a board page connected over a real WebSocket to the real aiohttp
app. Two ways in:

  pi     a MockPin edge, driven from another thread as gpiozero calls back on a Pi
         (one grid button's contact is moved from the matrix to a free GPIO)
  board  a key of the emulated board's matrix: its 1 kHz scan, a DOWN frame on the pty,
         the link's reader thread

Each way in presses one grid button in a turn of its own, on which its first press is a
mistake: the button is then stuck, and every later press is logged and judged in the
running turn (no new mistake, the turn goes on) and the page gets the state.
Stages, per press:

  edge -> queue    the edge (pin driven / key closed) until the input is on the cockpit's queue
  log write        Store.append: the entry written and committed (fsync) before judging
  engine           the engine judging the logged entry (replay.apply -> Match.handle)
  effects frame    the effects taking the result: pixels rendered (written when changed), buzzer
  socket message   the state message from the cockpit's fan-out to the page's WebSocket client
  whole            the edge until the page has the message

Floors, measured in the same run (those of the Pi's path right after each press, so the
machine's load is the same for both): a bare gpiozero input device handing its edge to
the loop (pi) / the same key read raw from a second emulated board by a bare pyserial
reader (board, after the presses); a bare SQLite insert + commit with the same pragmas in
the same folder; a bare aiohttp WebSocket message of the same size on the same machine. The engine and the
effects are pure Python with nothing beneath them: no floor. The whole path's floor is
the sum of the others.

    .venv/bin/python benchmarks/latency.py [--presses 300]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402
import serial  # noqa: E402
from aiohttp import web  # noqa: E402

import panel.service.app as app_module  # noqa: E402
import panel.service.cockpit as cockpit_module  # noqa: E402
from benchmarks.stats import percentile  # noqa: E402
from panel.events import InputEvent  # noqa: E402
from panel.hardware.leds import FakeStrip  # noqa: E402
from panel.hardware.map import MAPS_DIR, load_map  # noqa: E402
from panel.hardware.pins import mock_factory  # noqa: E402
from panel.layout import load_layout  # noqa: E402
from panel.link.emulator import FirmwareEmulator  # noqa: E402
from panel.link.from_map import link_for_map  # noqa: E402
from panel.service.app import build_app  # noqa: E402
from panel.service.cockpit import Cockpit  # noqa: E402
from panel.service.hardware_io import HardwareIO  # noqa: E402
from panel.service.link_io import LinkIO  # noqa: E402
from panel.service.security import Security  # noqa: E402
from panel.service.store import Store  # noqa: E402

STAGES = ("edge -> queue", "log write", "engine", "effects frame", "socket message", "whole")
PI_KEY, PI_PIN = "grid.r1c1", 2    # moved from the matrix to a free GPIO for the benchmark
BOARD_KEY = "grid.r3c4"
FLOOR_PIN = 14                     # another free GPIO, for the bare device of the floor


class Probe:
    """Timestamps of the press in flight, taken by thin wrappers around the production
    calls (the queue's put, Store.append, replay.apply, the effects, the page's send)."""

    def __init__(self):
        self.control: str | None = None
        self.marks: dict[str, float] = {}
        self.sent: list[float] = []      # perf_counter of every message the page was sent
        self.want: int | None = None     # index of the state message of the press in flight
        self.ready = asyncio.Event()     # set once that message is sent

    def start(self, control: str | None) -> None:
        self.control, self.marks, self.want = control, {}, None
        self.ready.clear()

    def sending(self, message: dict) -> None:
        self.sent.append(time.perf_counter())
        if self.want is None and "engine end" in self.marks and message.get("type") == "state":
            self.want = len(self.sent) - 1
            self.ready.set()

    def mine(self, control, value) -> bool:
        return control == self.control and value is True

    def mark(self, name: str) -> None:
        self.marks.setdefault(name, time.perf_counter())


def instrument(cockpit: Cockpit, io: HardwareIO, probe: Probe) -> None:
    put = cockpit.queue.put_nowait

    def queued(item):
        if isinstance(item, InputEvent) and probe.mine(item.control, item.value):
            probe.mark("queued")
        put(item)

    cockpit.queue.put_nowait = queued
    append = cockpit.store.append

    def logged(match_id, t, kind, data):
        mine = kind == "input" and probe.mine(data.get("control"), data.get("value"))
        if mine:
            probe.mark("log start")
        seq = append(match_id, t, kind, data)
        if mine:
            probe.mark("log end")
        return seq

    cockpit.store.append = logged
    apply = cockpit_module.apply

    def judged(match, entry):
        mine = entry.kind == "input" and probe.mine(entry.data.get("control"), entry.data.get("value"))
        events = apply(match, entry)
        if mine:
            probe.mark("engine end")
        return events

    cockpit_module.apply = judged
    on_events = io.on_events

    def effects(events, snapshot, now):
        on_events(events, snapshot, now)
        if "engine end" in probe.marks:
            probe.mark("effects end")

    io.on_events = effects
    send = app_module.Peer.send

    def sent(peer, message):  # the fan-out to the page (before the effects, on the same turn of the loop)
        probe.sending(message)
        send(peer, message)

    app_module.Peer.send = sent


class Page:
    """The board page's WebSocket client: the receive time of every message, in order."""

    def __init__(self, probe: Probe):
        self.probe = probe
        self.received: list[float] = []
        self.sizes: list[int] = []
        self.arrived = asyncio.Event()

    async def read(self, ws) -> None:
        async for msg in ws:
            self.received.append(time.perf_counter())
            self.sizes.append(len(msg.data))
            self.arrived.set()

    async def wait_for(self, index: int) -> float:
        while len(self.received) <= index:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 10)
        return self.received[index]


async def rig(tmp: Path, probe: Probe, emu: FirmwareEmulator):
    hmap = load_map(_map(tmp))
    pins = mock_factory()
    store = Store(tmp / "panel.db")
    io = HardwareIO(hmap, pin_factory=pins, strip=FakeStrip(hmap.neopixel.count, keep=1))
    # (the emulated board shares the machine: a busy moment must not pass for a silent board)
    link = LinkIO(hmap, load_layout(expansion=True), link_options={"silence_timeout": 60.0},
                  link_factory=lambda m, **kw: link_for_map(m, finder=lambda: [emu.port], **kw))
    cockpit = Cockpit(store, sources=[io, link], effects=[io])
    await cockpit.start()
    instrument(cockpit, io, probe)
    runner = web.AppRunner(build_app(cockpit, Security(store)), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    session = aiohttp.ClientSession()
    ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws?view=board")
    page = Page(probe)
    reader = asyncio.create_task(page.read(ws))
    await asyncio.wait_for(link.connected.wait(), 10)

    async def close():
        reader.cancel()
        await ws.close()
        await session.close()
        await runner.cleanup()
        await cockpit.close()
        store.close()
        pins.reset()

    return hmap, pins, cockpit, page, close


def _map(tmp: Path) -> Path:
    """The reference map with one grid button's contact on a free Pi GPIO."""
    m = tmp / "bench.toml"
    m.write_text((MAPS_DIR / "reference.toml").read_text().replace("r1c1 = { matrix = [0, 0] }",
                                                                    f"r1c1 = {{ gpio = {PI_PIN} }}"))
    return m


async def press(probe: Probe, page: Page, control: str, down, up, t0_from_thread: bool) -> dict[str, float]:
    """One press and release of `control`: the stages of the press."""
    probe.start(control)
    t0 = await asyncio.to_thread(down) if t0_from_thread else down()
    await asyncio.wait_for(probe.ready.wait(), 10)
    received = await page.wait_for(probe.want)
    m = probe.marks
    sample = {"edge -> queue": m["queued"] - t0, "log write": m["log end"] - m["log start"],
              "engine": m["engine end"] - m["log end"], "effects frame": m["effects end"] - m["engine end"],
              "socket message": received - probe.sent[probe.want], "whole": received - t0}
    n = len(probe.sent)
    probe.start(None)
    await asyncio.to_thread(up) if t0_from_thread else up()
    # the release goes through the same path: wait for its message before the next press
    await page.wait_for(n)
    await asyncio.sleep(0.03)
    return sample


async def measure(tmp: Path, presses: int, emu: FirmwareEmulator) -> dict[str, dict[str, list[float]]]:
    probe = Probe()
    hmap, pins, cockpit, page, close = await rig(tmp, probe, emu)
    floors = Floors(tmp)
    try:
        await floors.start(max(page.sizes))
        cells = {c: rc for rc, c in hmap.matrix_cells().items()}
        pin = pins.pin(PI_PIN)

        def pi_down():
            t0 = time.perf_counter()
            pin.drive_low()
            return t0

        def board_down():
            t0 = time.perf_counter()
            emu.press(*cells[BOARD_KEY])
            return t0

        out = {}
        for name, control, down, up, threaded in (
                ("pi", PI_KEY, pi_down, pin.drive_high, True),
                ("board", BOARD_KEY, board_down, lambda: emu.release(*cells[BOARD_KEY]), False)):
            await turn_off_card(cockpit, control)
            samples = {s: [] for s in STAGES}
            for i in range(presses + 1):
                sample = await press(probe, page, control, down, up, threaded)
                if i == 0:  # the first press is the mistake that makes it stuck
                    assert cockpit.match.snapshot(cockpit.now())["stuck"] == control, "not stuck"
                    continue
                for s in STAGES:
                    samples[s].append(sample[s])
                await floors.once()
            snap = cockpit.match.snapshot(cockpit.now())
            assert snap["phase"] == "in_turn" and snap["mistakes"] == 1, (snap["phase"], snap["mistakes"])
            out[name] = samples
        out["message bytes"] = max(page.sizes[-10:])
        out["floors"] = floors.samples
        return out
    finally:
        await floors.close()
        await close()


async def turn_off_card(cockpit: Cockpit, control: str) -> None:
    """A new match whose first card leaves `control` (and its section) out, its turn started."""
    section = cockpit.any_layout().control(control).section
    for seed in range(1, 100):
        if cockpit.active:
            await cockpit.action("abandon", {})
        await cockpit.create_match({"teams": [{"name": "A", "players": ["a", "b"]},
                                              {"name": "B", "players": ["c", "d"]}],
                                    "turn_seconds": 600, "seed": seed, "expansion": True})
        await cockpit.action("start_turn", {})
        card = cockpit.match.snapshot(cockpit.now())["card"]
        if control not in card.get("press", []) and card.get("section") != section:
            return
    raise SystemExit(f"no deck of the first 100 seeds leaves {control} off its first card")


# ---------------------------------------------------------------------------- floors

def floor_board_edge(n: int, config: dict, row_col: tuple[int, int]) -> list[float]:
    """The same key on a second emulated board, read raw by a bare pyserial reader."""
    out = []
    with FirmwareEmulator(config) as emu:
        port = serial.Serial(emu.port, timeout=1)
        try:
            for _ in range(n):
                emu.wait_scans(5)
                port.reset_input_buffer()
                t0 = time.perf_counter()
                emu.press(*row_col)
                _read_until(port, b" DOWN ")
                out.append(time.perf_counter() - t0)
                emu.release(*row_col)
                _read_until(port, b" UP ")
        finally:
            port.close()
    return out


def _read_until(port, kind: bytes) -> None:
    """Read whatever has arrived (at least a byte) until a whole frame of `kind` is in."""
    buf = b""
    while kind not in buf or not buf.endswith(b"\n"):
        buf += port.read(port.in_waiting or 1)


class Floors:
    """The floors of the Pi's path, each measured once right after each press (so the
    machine's load is the same for the stage and its floor): a bare gpiozero input device
    handing its edge to the loop, a bare SQLite insert + commit with the store's pragmas
    in the same folder, a bare aiohttp WebSocket message of the page's message size."""

    def __init__(self, tmp: Path):
        self.samples: dict[str, list[float]] = {"edge -> queue": [], "log write": [], "socket message": []}
        self.tmp = tmp

    async def start(self, size: int) -> None:
        from gpiozero import DigitalInputDevice

        loop = asyncio.get_running_loop()
        self.factory = mock_factory()
        self.device = DigitalInputDevice(FLOOR_PIN, pull_up=True, bounce_time=None, pin_factory=self.factory)
        self.pin = self.factory.pin(FLOOR_PIN)
        self.edges: asyncio.Queue = asyncio.Queue()
        # stamped when the loop runs the hand-over, as the press's "queued" mark is
        self.device.when_activated = lambda: loop.call_soon_threadsafe(
            lambda: self.edges.put_nowait(time.perf_counter()))
        self.db = sqlite3.connect(str(self.tmp / "floor.db"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, json TEXT)")
        self.row = json.dumps({"control": PI_KEY, "value": True})
        self.outbox: asyncio.Queue = asyncio.Queue()

        async def handler(request):
            ws = web.WebSocketResponse()
            await ws.prepare(request)
            while True:
                await ws.send_str(await self.outbox.get())

        app = web.Application()
        app.router.add_get("/ws", handler)
        self.runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        self.session = aiohttp.ClientSession()
        self.ws = await self.session.ws_connect(f"http://127.0.0.1:{port}/ws")
        self.text = json.dumps({"type": "state", "pad": "x" * max(0, size - 30)})

    async def once(self) -> None:
        t0 = await asyncio.to_thread(lambda: (time.perf_counter(), self.pin.drive_low())[0])
        self.samples["edge -> queue"].append(await self.edges.get() - t0)
        self.pin.drive_high()
        t0 = time.perf_counter()
        self.db.execute("INSERT INTO t(json) VALUES (?)", (self.row,))
        self.samples["log write"].append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        self.outbox.put_nowait(self.text)
        await self.ws.receive()
        self.samples["socket message"].append(time.perf_counter() - t0)

    async def close(self) -> None:
        await self.ws.close()
        await self.session.close()
        await self.runner.cleanup()
        self.db.close()
        self.device.close()


# ---------------------------------------------------------------------------- report

def ms(x: float) -> str:
    return f"{x * 1e3:8.3f} ms"


def report(name: str, samples: dict[str, list[float]], floors: dict[str, list[float] | None]) -> None:
    print(f"\n{name}")
    print(f"  {'stage':<16} {'p50':>11} {'p99':>11}   {'floor p50':>11} {'floor p99':>11}")
    for s in STAGES:
        xs = samples[s]
        fl = floors.get(s)
        line = f"  {s:<16} {ms(percentile(xs, 50))} {ms(percentile(xs, 99))}"
        line += f"   {ms(percentile(fl, 50))} {ms(percentile(fl, 99))}" if fl else f"   {'-':>11} {'-':>11}"
        print(line)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=300, help="presses per way in (default 300)")
    ap.add_argument("--dir", help="make the temporary folder (the database) here: the SD card's "
                                  "fsync is what the Pi pays (default: the system's temporary folder)")
    args = ap.parse_args(argv)
    n = args.presses
    with tempfile.TemporaryDirectory(dir=args.dir) as d:
        tmp = Path(d)
        hmap = load_map(_map(tmp))
        config = hmap.board().firmware_config
        with FirmwareEmulator(config) as emu:
            got = asyncio.run(measure(tmp, n, emu))
        size = got.pop("message bytes")
        floors = got.pop("floors")
        key_cell = {c: rc for rc, c in hmap.matrix_cells().items()}[BOARD_KEY]
        fl_board = floor_board_edge(n, config, key_cell)
    print(f"press latency through the real Cockpit, {n} presses each way (SQLite WAL, synchronous=FULL, "
          f"in {Path(d).parent}; the board page's state message {size} bytes)")
    fl_sql, fl_sock = floors["log write"], floors["socket message"]
    for name, edge_floor, what in (("pi", floors["edge -> queue"], "MockPin edge from another thread (gpiozero's callback)"),
                                   ("board", fl_board, "emulated board key (1 kHz scan, pty, SerialLink)")):
        whole = [a + b + c for a, b, c in zip(edge_floor, fl_sql, fl_sock)]
        report(f"{name}: {what}", got[name], {"edge -> queue": edge_floor, "log write": fl_sql,
                                              "socket message": fl_sock, "whole": whole})
    print("\nfloors: edge = bare gpiozero input handing its edge to a loop (pi), the key read raw from a second "
          "emulated board (board); log = bare SQLite insert+commit, same pragmas and folder; socket = bare "
          "aiohttp WebSocket message of the same size; whole = their sum. Engine and effects: pure Python, no floor.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
