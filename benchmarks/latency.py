#!/usr/bin/env python3
"""Latency of a press through the path production runs, stage by stage, each beside a
floor measured in the same run, with the store on a real file system and on tmpfs.

The real `Cockpit` owns a match, with its SQLite store (the service's own settings: WAL,
synchronous=FULL, the writer's group commit) in a folder on the file system under test,
the hardware map's devices and effects (gpiozero MockPins, the pixels a FakeStrip) and a
board page connected over a real WebSocket to the real aiohttp app. A crew plays: it
presses START between turns, works the card's buttons and tokens during a turn, slips now
and then (a mistake; two end the turn), as people do, each action after an idle gap (a
real press arrives after the loop has slept). Two builds:

  small      every control the crew works is on a Pi GPIO: MockPin edges driven from
             another thread, as gpiozero calls back on a Pi
  reference  the buttons are keys of the emulated Pico's matrix (the real firmware loop
             behind a pty, its 1 kHz scan, the link's reader thread); START, the switches,
             clicks and lever on Pi GPIOs

Stages, per action (a press, a token moved, START):

  edge -> queue    the edge (pin driven / key closed) until the input is on the cockpit's queue
  log write        Store.append: the entry handed to the store's writer, once the light is out
                   (its commit follows, off the press path, within COMMIT_WITHIN or when someone
                   waits for it)
  engine           the engine judging the input (Match.handle; the one it was logged as)
  edge -> LED      the edge until the LED frame is out: the pixels written (or, when the press
                   changed nothing they show, the effects done deciding so): the panel's answer;
                   its sound starts right after
  socket message   the state message from the cockpit's fan-out to the page's WebSocket client
  whole            the edge until the page has the message

A token moved to the position its contact opens at waits for the 12 ms release debounce
(by design: chatter must not move it back and forth), as does a round lever moved from one
end to the other (its first contact must be open before the second counts); those moves
are shown apart.

The crew's hand is a thread of its own that makes each move and nothing else (gpiozero
calls back on the thread that drives a MockPin, as lgpio's thread does on a Pi), so the
window measured holds none of the benchmark's own hand-overs (no executor's future, no
second wake of the loop). CPU time per action is the process's (every thread's) and the
owner loop's alone; the bare device's floor has its CPU time too. Actions are staged and
plain in turn (Probe): a staged one gives the stages up to the LED and the loop's CPU
split between the engine, the effects and the pages; a plain one, with only the wrappers
its window's ends need and no clock read between them, gives the CPU of the whole press.

Floors, interleaved with the actions (each one after an idle gap of its own, so the machine
and the caches are in the same state as for the action): a bare gpiozero input device
handing its edge to a loop (for edge -> queue and edge -> LED), a bare SQLite insert +
commit with the same pragmas in the same folder (what the press path paid before the
writer), a bare aiohttp WebSocket message of the same size; for the board, the same key
read raw from a second emulated board by a bare pyserial reader (after the actions). The
engine and the effects are pure Python with nothing beneath them: no floor.

    .venv/bin/python benchmarks/latency.py [--presses 300] [--dir PATH] [--tmpfs PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import queue
import random
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402
import serial  # noqa: E402
from aiohttp import web  # noqa: E402

import panel.web.app as app_module  # noqa: E402
import panel.service.cockpit as cockpit_module  # noqa: E402
from benchmarks.budget import CpuBudget  # noqa: E402
from benchmarks.guide_block import cpu_model, write_block  # noqa: E402
from benchmarks.history import fs_type  # noqa: E402
from benchmarks.pi_spi import use_hardware_spi  # noqa: E402
from benchmarks.pico_process import PicoKeys, PicoProcess  # noqa: E402
from benchmarks.stats import percentile  # noqa: E402
from panel.games.airlines.bot import BotCrew  # noqa: E402
from panel.games.airlines.engine import Match, Phase  # noqa: E402
from panel.core.events import InputEvent  # noqa: E402
from panel.hardware.leds import FakeStrip  # noqa: E402
from panel.hardware.map import MAPS_DIR, GpioSource, MatrixSource, PinPairSource, load_map  # noqa: E402
from panel.hardware.pins import mock_factory  # noqa: E402
from panel.core.layout_file import load_layout  # noqa: E402
from panel.link.from_map import link_for_map  # noqa: E402
from panel.web.app import build_app  # noqa: E402
from panel.service.cockpit import Cockpit  # noqa: E402
from panel.service.hardware_io import HardwareIO  # noqa: E402
from panel.service.link_io import LinkIO  # noqa: E402
from panel.server.security import Security  # noqa: E402
from panel.storage.store import Store  # noqa: E402

try:  # (a version of the cockpit from before it froze its start-up: measured without)
    from panel.run import keep_start_out_of_collections  # noqa: E402
except ImportError:
    keep_start_out_of_collections = None
try:  # the loop the cockpit's process runs on (a version from before it chose one: asyncio's own)
    from panel.server.event_loop import kind as loop_kind, run as run_loop  # noqa: E402
except ImportError:
    run_loop, loop_kind = asyncio.run, lambda loop: "asyncio"

STAGES = ("edge -> queue", "log write", "engine", "edge -> LED", "socket message", "whole")
# The marks (Probe.mark) the CPU figures (CPU_STAGES) are taken between: a plain action's whole
# window (the process's and the owner loop's clocks, at its ends alone), a staged action's loop split.
PROCESS_CPU_AT = ("LED", "told")
LOOP_CPU_AT = ("engine start", "engine end", "effects start", "effects end", "told")
CPU_STAGES = ("edge -> LED", "told", "loop: edge -> LED", "loop: told", "loop: engine", "loop: effects", "loop: pages")
WALK_UP = "START that sets a new match up"  # (the match over: the walk-up, walk_up.py)
KINDS = ("START between turns", WALK_UP, "card button", "mistake", "token move")
OPENING = "token move that waits for a contact to open"
FLOOR_PIN = 14                     # a GPIO no map uses, for the bare device of the floor
FELT = 0.010                       # seconds: about where people start to feel a press's light late
GAP = (0.05, 0.25)                 # seconds of idle before each action and each floor sample
SLIP = 0.1                         # chance the crew presses a button the card does not ask for
TEAMS = [{"name": "A", "players": ["a", "b"]}, {"name": "B", "players": ["c", "d"]}]


class Probe:
    """Timestamps of the action in flight, taken by thin wrappers around the production
    calls (the queue's put, Store.append, the engine's call, the effects, the page's send).

    Two kinds of action, one after the other: a *staged* one has every wrapper and reads the
    CPU clocks at each stage (the engine's and the effects' own CPU); a *plain* one has only
    the wrappers its window's ends need (the press taken, the frame out, the pages told) and
    reads the CPU clocks at the ends alone. A CPU clock read is a system call and each
    wrapper a Python call or three: the CPU of a whole press is
    taken from the plain ones, so that none of the probe's own work in the middle is in it."""

    def __init__(self):
        self.control: str | None = None
        self.value = None
        self.staged = True
        self.marks: dict[str, float] = {}
        self.cpu: dict[str, float] = {}  # the process's CPU time (every thread's) at each mark
        self.loop_cpu: dict[str, float] = {}  # the owner loop's thread's CPU time at each mark
        self.loop_clock: int | None = None  # that thread's CPU clock (set on the loop thread)
        self.sent: list[float] = []      # perf_counter of every message the page was sent
        self.want: int | None = None     # index of the state message of the action in flight
        self.ready = asyncio.Event()     # set once that message is sent
        self.publishing = False          # inside the cockpit's publish (the window's last stage)
        self.restage = lambda staged: None  # (instrument's: the wrappers of the kind of action)

    def start(self, control: str | None, value=None, *, staged: bool = True) -> None:
        """The action in flight (None: none; the wrappers stay as they are)."""
        if control is not None and staged != self.staged:
            self.restage(staged)
            self.staged = staged
        self.control, self.value, self.marks, self.cpu, self.loop_cpu, self.want = control, value, {}, {}, {}, None
        self.ready.clear()

    @property
    def judged(self) -> str:
        """The mark that says the action in flight has reached the engine (what comes after is its answer)."""
        return "engine end" if self.staged else "taken"

    def sending(self, message: dict) -> None:
        self.sent.append(time.perf_counter())
        if self.want is None and self.judged in self.marks and message.get("type") == "state":
            self.want = len(self.sent) - 1
            if not self.publishing:  # (else set once the pages are told: an Event's set is a call_soon
                self.ready.set()     # of the probe's own, no part of the press)

    def mine(self, control, value) -> bool:
        return control == self.control and value == self.value and self.control is not None

    def mark(self, name: str) -> None:
        """The wall clock at `name`, and the CPU clocks where a CPU figure ends or starts:
        each CPU clock read is a system call (the wall clock's is not), and those made
        inside the window measured are counted in it (every mark reading all three put ten
        system calls of the benchmark's own between a press and its light)."""
        if name not in self.marks:
            self.marks[name] = time.perf_counter()
            if name in PROCESS_CPU_AT:
                self.cpu[name] = time.process_time()
            if name in (LOOP_CPU_AT if self.staged else PROCESS_CPU_AT):
                self.loop_cpu[name] = time.clock_gettime(self.loop_clock)


def instrument(cockpit: Cockpit, io: HardwareIO, probe: Probe) -> None:
    """The probe's wrappers on the production calls: all of them for a staged action, the
    window's ends' alone for a plain one (`probe.restage`)."""
    probe.loop_clock = time.pthread_getcpuclockid(threading.get_ident())  # (called on the loop thread)
    publish = cockpit._publish

    def told(events):  # the LEDs, then the pages: the cockpit's whole answer to the action
        outer, probe.publishing = probe.publishing, True
        try:
            publish(events)
        finally:
            probe.publishing = outer
        if "effects end" in probe.marks:
            probe.mark("told")
        if probe.want is not None and not outer:
            probe.ready.set()

    cockpit._publish = told
    put = cockpit.queue.put_nowait

    def queued(item):
        if isinstance(item, InputEvent) and probe.mine(item.control, item.value):
            probe.mark("queued")
        put(item)

    append = cockpit.store.append

    def logged(match_id, t, kind, data, **how):
        mine = kind == "input" and probe.mine(data.get("control"), data.get("value"))
        if mine:
            probe.mark("log start")
        seq = append(match_id, t, kind, data, **how)
        if mine:
            probe.mark("log end")
        return seq

    # The engine's call on the press path: the match's own handle(event) (the log's entry and
    # the engine's input are one); a cockpit from before that: replay's apply(match, entry).
    if hasattr(cockpit_module, "apply"):
        owner, name = cockpit_module, "apply"
    else:
        owner, name = Match, "handle"
    engine_call = getattr(owner, name)

    def judged(match, item):
        mine = (probe.mine(getattr(item, "control", None), getattr(item, "value", None)) if name == "handle" else
                item.kind == "input" and probe.mine(item.data.get("control"), item.data.get("value")))
        if mine:
            probe.mark("engine start")
        events = engine_call(match, item)
        if mine:
            probe.mark("engine end")
        return events

    take = cockpit._input

    def taken(event):  # (a plain action's one mark before its light: no clock read)
        if event.value == probe.value and event.control == probe.control:
            probe.marks["taken"] = 0.0
        return take(event)

    on_events = io.on_events

    def effects(events, snapshot, now):
        if probe.staged:
            if "engine end" in probe.marks:
                probe.mark("effects start")
            on_events(events, snapshot, now)
            if "engine end" in probe.marks:
                probe.mark("LED")  # (when no frame was written: the effects found nothing to change)
                probe.mark("effects end")
            return
        on_events(events, snapshot, now)
        if "taken" in probe.marks:
            probe.mark("LED")
            probe.marks["effects end"] = 0.0

    io.on_events = effects
    strip = io.strip
    write = strip.write

    def written(frame):  # the LED frame out: the answer a crew sees
        write(frame)
        if ("effects start" if probe.staged else "taken") in probe.marks:
            probe.mark("LED")

    strip.write = written
    send = app_module.Peer.send

    def sent(peer, message):  # the fan-out to the page (after the effects, on the same turn of the loop)
        probe.sending(message)
        send(peer, message)

    app_module.Peer.send = sent

    def restage(staged: bool) -> None:
        if staged:
            cockpit.queue.put_nowait, cockpit.store.append = queued, logged
            setattr(owner, name, judged)
            cockpit.__dict__.pop("_input", None)
        else:  # the class's own calls again, the module's own engine call
            cockpit.queue.__dict__.pop("put_nowait", None)
            cockpit.store.__dict__.pop("append", None)
            setattr(owner, name, engine_call)
            cockpit._input = taken

    probe.restage = restage
    restage(True)


class Page:
    """The board page's WebSocket client: the receive time of every message, in order."""

    def __init__(self):
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


class Hands:
    """How the crew works a control of the map: a MockPin driven from another thread (as
    gpiozero's callbacks run on a Pi), or a key of the emulated board."""

    def __init__(self, hmap, layout, pins, emu: PicoKeys | None):
        self.hmap, self.layout, self.pins, self.emu = hmap, layout, pins, emu

    def _level(self, src, closed: bool):
        pin = self.pins.pin(src.pin)
        return pin.drive_low if closed != src.active_high else pin.drive_high

    def moves(self, control: str, value) -> list | None:
        """The raw moves that make `control` read `value` (a button: True pressed, False
        released; a token: a position), each (path, callable); None if out of reach."""
        src = self.hmap.controls.get(control)
        token = control in self.layout.tokens
        spec = self.layout.tokens[control] if token else None
        if isinstance(src, GpioSource):
            if not token:
                return [("pi", self._level(src, bool(value)))]
            open_pos, closed_pos = src.positions_of(spec)
            if value not in (open_pos, closed_pos):
                return None
            return [("pi", self._level(src, value == closed_pos))]
        if isinstance(src, MatrixSource) and self.emu is not None and not token:
            row, col = src.row, src.col
            return [("board", (lambda: self.emu.press(row, col)) if value else (lambda: self.emu.release(row, col)))]
        if isinstance(src, PinPairSource) and token:
            positions = spec.positions
            a, b = (self.pins.pin(p) for p in src.pins)
            close = (lambda p: p.drive_low) if not src.active_high else (lambda p: p.drive_high)
            open_ = (lambda p: p.drive_high) if not src.active_high else (lambda p: p.drive_low)
            if value == positions[0]:
                return [("pi", open_(b)), ("pi", close(a))]
            if value == positions[-1]:
                return [("pi", open_(a)), ("pi", close(b))]
            return [("pi", open_(a)), ("pi", open_(b))]
        return None

    def opens(self, control: str, value, was) -> bool:
        """True when the token's move from `was` waits for a contact opening (the release
        debounce): a switch to its open position; a round lever to its middle, or from one
        end to the other (its first contact must be open before the second one counts)."""
        src = self.hmap.controls.get(control)
        if control not in self.layout.tokens or not isinstance(src, (GpioSource, PinPairSource)):
            return False
        if isinstance(src, GpioSource):
            return value == src.positions_of(self.layout.tokens[control])[0]
        ends = (self.layout.tokens[control].positions[0], self.layout.tokens[control].positions[-1])
        return value not in ends or (was in ends and was != value)


class Hand:
    """The crew's hand: a thread of its own that makes one move at a time and does nothing
    else, so that between the move and the cockpit's answer the process runs only what a
    Pi runs (gpiozero's callback on the thread that changed the pin, the loop's work). Once
    a move is made the hand only puts its result in a list (no event set, no lock taken:
    that work of the benchmark's own would fall inside the window measured); the loop looks
    for it once the answer is in."""

    def __init__(self):
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="hand", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            fn, out = job
            out.append(fn())

    def start(self, fn) -> list:
        """`fn` made on the hand's thread from now; its result lands in the list."""
        out: list = []
        self._jobs.put((fn, out))
        return out

    @staticmethod
    async def made(out: list):
        """The result of a move `start`ed, once the hand has made it."""
        while not out:
            await asyncio.sleep(0.0005)
        return out[0]

    async def do(self, fn):
        """`fn` made, and waited for (a move outside the measured window)."""
        return await self.made(self.start(fn))

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join()


class Crew:
    """Plays the match in the cockpit as people would, one action at a time: START between
    turns, the card's buttons and token moves during a turn, a slip now and then."""

    def __init__(self, cockpit: Cockpit, hands: Hands, start: str, seed: int = 1):
        self.cockpit, self.hands, self.start_control = cockpit, hands, start
        self.rng = random.Random(seed)
        self.plan: list[tuple[str, object]] = []
        self.card_key = None

    def next(self) -> tuple[str, str, object]:
        """(kind, control, value) of the next action."""
        c = self.cockpit
        if not c.active or c.match.finished:
            return WALK_UP, self.start_control, True
        if c.match.phase is not Phase.IN_TURN:
            return "START between turns", self.start_control, True
        snap = c.match.snapshot(c.now())
        card = snap["card"]
        key = (snap.get("completed"), snap.get("mistakes"), json.dumps(card, sort_keys=True))
        if key != self.card_key:
            self.card_key = key
            bot = BotCrew(c.match, seed=self.rng.randrange(1 << 30), accuracy=1.0)
            wanted = [(e.control, e.value) for e in bot.inputs_for_card(card, 0.0) if e.value is not False]
            self.plan = wanted if all(self.hands.moves(ctl, v) for ctl, v in wanted) else []
        positions = snap.get("positions") or {}
        while self.plan and positions.get(self.plan[0][0], object()) == self.plan[0][1]:
            self.plan.pop(0)  # a token already where the card wants it: nothing to move
        if self.plan and self.rng.random() > SLIP:
            control, value = self.plan.pop(0)
            return ("token move" if control in c.match.layout.tokens else "card button"), control, value
        # A slip: a button the card does not ask for (outside its section, for a sequence).
        wrong = [b for b in sorted(c.match.layout.buttons) if b not in card.get("press", [])
                 and c.match.layout.control(b).section != card.get("section") and self.hands.moves(b, True)]
        if not wrong:  # (every reachable button is the card's: it is played, no slip)
            control, value = self.plan.pop(0)
            return ("token move" if control in c.match.layout.tokens else "card button"), control, value
        return "mistake", self.rng.choice(wrong), True


async def rig(tmp: Path, map_path: Path, emu: PicoKeys | None):
    hmap = load_map(map_path)
    tmp = tmp / map_path.stem
    tmp.mkdir()
    pins = mock_factory()
    store = Store(tmp / "panel.db")
    io = HardwareIO(hmap, pin_factory=pins, strip=FakeStrip(hmap.neopixel.count, keep=1))
    sources = [io]
    if emu is not None:
        # (the emulated board shares the machine: a busy moment must not pass for a silent board)
        sources.append(LinkIO(hmap, load_layout(expansion=True), link_options={"silence_timeout": 60.0},
                              link_factory=lambda m, **kw: link_for_map(m, finder=lambda: [emu.port], **kw)))
    cockpit = Cockpit(store, sources=sources, effects=[io])
    await cockpit.start()
    probe = Probe()
    instrument(cockpit, io, probe)
    runner = web.AppRunner(build_app(cockpit, Security(store)), access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    session = aiohttp.ClientSession()
    ws = await session.ws_connect(f"http://127.0.0.1:{port}/ws?view=board")
    page = Page()
    reader = asyncio.create_task(page.read(ws))
    if emu is not None:
        await asyncio.wait_for(sources[1].connected.wait(), 10)
    # A short match (a team reaching 4 points ends it at its round's end): the crew walks up
    # again and again, and the START that sets each new match up is measured too.
    await cockpit.create_match({"teams": TEAMS, "seed": 5, "expansion": hmap.expansion, "target_points": 4})
    if keep_start_out_of_collections is not None:  # as `penguin-panel play` does once it serves
        keep_start_out_of_collections()

    async def close():
        reader.cancel()
        await ws.close()
        await session.close()
        await runner.cleanup()
        await cockpit.close()
        store.close()
        pins.reset()

    return hmap, pins, cockpit, probe, page, close


async def act(probe: Probe, page: Page, hand: Hand, moves: list, control: str, value, *,
              staged: bool) -> tuple[dict[str, float], dict[str, float]]:
    """One action: its moves (the last one is the edge measured), its stages (a plain
    action: the light's and the page's alone) and its CPU (a plain action: its whole
    window's; a staged one: the loop's split between the engine, the effects, the pages)."""
    probe.start(control, value, staged=staged)
    for path, move in moves[:-1]:
        await hand.do(move) if path == "pi" else move()
    path, move = moves[-1]
    ready = asyncio.ensure_future(probe.ready.wait())  # waiting before the edge: none of it in the window
    await asyncio.sleep(0)

    def timed():
        l0 = time.clock_gettime(probe.loop_clock)  # (read first: the process's window starts after it)
        c0 = time.process_time()
        t0 = time.perf_counter()
        move()
        return t0, c0, l0

    if path == "pi":  # the pin's callback runs on the hand's thread
        out = hand.start(timed)
        await asyncio.wait_for(ready, 10)
        t0, c0, l0 = await asyncio.wait_for(hand.made(out), 10)
    else:
        t0, c0, l0 = timed()
        await asyncio.wait_for(ready, 10)
    received = await page.wait_for(probe.want)
    m, c, lc, w = probe.marks, probe.cpu, probe.loop_cpu, probe.want
    sample = {"edge -> LED": m["LED"] - t0, "socket message": received - probe.sent[w], "whole": received - t0}
    if staged:
        sample.update({"edge -> queue": m["queued"] - t0, "log write": m["log end"] - m["log start"],
                       "engine": m["engine end"] - m["engine start"]})
        cpu = {"loop: engine": lc["engine end"] - lc["engine start"],
               "loop: effects": lc["effects end"] - lc["effects start"], "loop: pages": lc["told"] - lc["effects end"]}
    else:
        # CPU: the process's (every thread: the hand's, gpiozero's, the link's reader, the loop)
        # and the owner loop's alone, up to the LED frame and up to the pages told (the page's
        # own reading, another device's work, is not counted)
        cpu = {"edge -> LED": c["LED"] - c0, "told": c["told"] - c0,
               "loop: edge -> LED": lc["LED"] - l0, "loop: told": lc["told"] - l0}
    probe.start(None)
    return sample, cpu


async def measure(tmp: Path, map_path: Path, actions: int, emu: PicoKeys | None) -> dict:
    hmap, pins, cockpit, probe, page, close = await rig(tmp, map_path, emu)
    hand = Hand()
    floors = Floors(tmp, hand)
    rng = random.Random(11)
    hands = Hands(hmap, cockpit.any_layout(), pins, emu)
    crew = Crew(cockpit, hands, "cockpit.start")
    samples = {k: {s: [] for s in STAGES} for k in (*KINDS, OPENING)}
    cpu = {k: {s: [] for s in CPU_STAGES} for k in (*KINDS, OPENING)}
    paths: dict[str, list[float]] = {"pi": [], "board": []}  # edge -> LED by the way the edge came in
    staged = False
    try:
        await floors.start(max(page.sizes))
        while sum(len(v["whole"]) for v in samples.values()) < actions:
            kind, control, value = crew.next()
            moves = hands.moves(control, value)
            was = (cockpit.match.positions if cockpit.active else cockpit.positions).get(control)
            await asyncio.sleep(rng.uniform(*GAP))  # the panel idle, as before a real press
            staged = not staged  # (one of two: staged, plain, staged...)
            sample, used = await act(probe, page, hand, moves, control, value, staged=staged)
            key = OPENING if hands.opens(control, value, was) else kind
            for s, x in sample.items():
                samples[key][s].append(x)
            for s, x in used.items():
                cpu[key][s].append(x)
            if key != OPENING:
                paths[moves[-1][0]].append(sample["edge -> LED"])
            if value is True:  # let go of the button: its release goes the same way, not measured
                n = len(probe.sent)
                for path, move in hands.moves(control, False):
                    await hand.do(move) if path == "pi" else move()
                await page.wait_for(n)
            await asyncio.sleep(rng.uniform(*GAP))
            await floors.once()
            if emu is not None:
                emu.drain()  # the board's answers to the commands, outside the measured windows
        return {"samples": samples, "cpu": cpu, "paths": paths, "floors": floors.samples, "floor cpu": floors.cpu,
                "message bytes": max(page.sizes[-10:]), "matches": cockpit.record.id,
                "loop": loop_kind(asyncio.get_running_loop())}
    finally:
        await floors.close()
        await close()
        hand.close()


# ---------------------------------------------------------------------------- floors

def floor_board_edge(n: int, keys: PicoKeys, row_col: tuple[int, int]) -> list[float]:
    """A key on a second emulated board, read raw by a bare pyserial reader, each after an
    idle gap as the actions are."""
    out = []
    rng = random.Random(13)
    port = serial.Serial(keys.port, timeout=1)
    try:
        for _ in range(n):
            time.sleep(rng.uniform(*GAP))
            port.reset_input_buffer()
            t0 = time.perf_counter()
            keys.press(*row_col)
            _read_until(port, b" DOWN ")
            out.append(time.perf_counter() - t0)
            keys.release(*row_col)
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
    """The floors of the Pi's path, each sampled once after each action (after an idle gap
    of its own, so the machine's load and state are those of the action): a bare gpiozero
    input device handing its edge to the loop, a bare SQLite insert + commit with the
    store's pragmas in the same folder, a bare aiohttp WebSocket message of the page's
    message size."""

    def __init__(self, tmp: Path, hand: Hand):
        self.samples: dict[str, list[float]] = {"edge -> queue": [], "log write": [], "socket message": []}
        self.cpu: dict[str, list[float]] = {"process": [], "loop": []}  # the bare edge's, to the loop's hand-over
        self.tmp = tmp
        self.hand = hand

    async def start(self, size: int) -> None:
        from gpiozero import DigitalInputDevice

        loop = asyncio.get_running_loop()
        self.factory = mock_factory()
        self.device = DigitalInputDevice(FLOOR_PIN, pull_up=True, bounce_time=None, pin_factory=self.factory)
        self.pin = self.factory.pin(FLOOR_PIN)
        self.edges: asyncio.Queue = asyncio.Queue()
        self.loop_clock = clock = time.pthread_getcpuclockid(threading.get_ident())  # (on the loop's thread)
        # stamped when the loop runs the hand-over, as the action's "queued" mark is
        self.device.when_activated = lambda: loop.call_soon_threadsafe(
            lambda: self.edges.put_nowait((time.perf_counter(), time.process_time(), time.clock_gettime(clock))))
        self.db = sqlite3.connect(str(self.tmp / f"floor-{id(self)}.db"), isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, json TEXT)")
        self.row = json.dumps({"control": "grid.r1c1", "value": True})
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
        edge = asyncio.ensure_future(self.edges.get())  # waiting before the edge, as an action's page is
        await asyncio.sleep(0)

        def press():
            l0 = time.clock_gettime(self.loop_clock)  # (in the order an action's are read)
            c0 = time.process_time()
            t0 = time.perf_counter()
            self.pin.drive_low()
            return t0, c0, l0

        out = self.hand.start(press)
        t1, c1, l1 = await edge
        t0, c0, l0 = await asyncio.wait_for(self.hand.made(out), 10)
        self.samples["edge -> queue"].append(t1 - t0)
        self.cpu["process"].append(c1 - c0)
        self.cpu["loop"].append(l1 - l0)
        await self.hand.do(self.pin.drive_high)
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

def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def ms(x: float) -> str:
    return f"{x * 1e3:8.3f} ms"


def p50_p99(xs: list[float] | None) -> str:
    return f"{ms(percentile(xs, 50))} {ms(percentile(xs, 99))}" if xs else f"{'-':>11} {'-':>11}"


def report(build: str, got: dict, board_floor: list[float] | None) -> list[str]:
    fl = got["floors"]
    floors = {"edge -> queue": fl["edge -> queue"], "log write": fl["log write"], "edge -> LED": fl["edge -> queue"],
              "socket message": fl["socket message"],
              "whole": [a + b for a, b in zip(fl["edge -> queue"], fl["socket message"])]}
    out = [f"  {build} build ({got['matches']} matches played; the page's state message {got['message bytes']} bytes; "
           f"{got['loop']}'s event loop)"]
    for kind, stages in got["samples"].items():
        if not stages["whole"]:
            continue
        out.append(f"    {kind} ({len(stages['whole'])})")
        for s in STAGES:
            out.append(f"      {s:<16} {p50_p99(stages[s])}   floor {p50_p99(floors.get(s))}")
        used = got["cpu"][kind]
        out.append("      CPU per action, mean: " + ", ".join(f"{s} {ms(mean(used[s])).strip()}" for s in CPU_STAGES))
    judged = {s: got["cpu"]["card button"][s] + got["cpu"]["mistake"][s] for s in CPU_STAGES}
    if judged["told"]:
        out.append(f"    CPU per judged press (card buttons and mistakes, the {len(judged['told'])} plain ones), mean: the process "
                   f"(every thread) {ms(mean(judged['edge -> LED'])).strip()} to the LED frame, "
                   f"{ms(mean(judged['told'])).strip()} to the pages told; the owner loop alone "
                   f"{ms(mean(judged['loop: edge -> LED'])).strip()} and {ms(mean(judged['loop: told'])).strip()}; "
                   f"floor (the bare device's edge to the loop) {ms(mean(got['floor cpu']['process'])).strip()}, "
                   f"its loop {ms(mean(got['floor cpu']['loop'])).strip()}")
    for path, xs in got["paths"].items():
        if xs:
            floor = fl["edge -> queue"] if path == "pi" else board_floor
            ratio = percentile(xs, 99) / percentile(floor, 99) if floor else float("nan")
            out.append(f"    edge -> LED, every action that came in by the {path} path ({len(xs)}): "
                       f"{p50_p99(xs)}   floor {p50_p99(floor)}   p99 {ratio:.1f}x the floor's")
    return out


def run_build(spec: dict) -> dict:
    """One build's actions in this process (the one under the CPU budget), the Pico's keys
    driven over the pipes of its own process; JSON-ready."""
    use_hardware_spi()
    picos = [PicoKeys(p) for p in spec["picos"]]
    map_path = MAPS_DIR / f"{spec['build']}.toml"
    got = run_loop(measure(Path(spec["dir"]), map_path, spec["actions"], picos[0] if picos else None))
    if picos:
        cell = next(iter(load_map(map_path).matrix_cells()))
        got["board floor"] = floor_board_edge(min(spec["actions"], 100), picos[1], cell)
    for keys in picos:
        keys.drain()
    return got


def in_budget(budget: CpuBudget, build: str, tmp: Path, actions: int) -> dict:
    """Run `build` in a process of its own inside the budget; the reference build's two
    emulated boards (the cockpit's and the floor's) in processes of their own outside it."""
    picos = []
    try:
        if build == "reference":
            config = load_map(MAPS_DIR / "reference.toml").board().firmware_config
            picos = [PicoProcess(tmp, config, name, preexec_fn=budget.elevate) for name in ("board", "floor-board")]
        spec = {"build": build, "dir": str(tmp), "actions": actions, "picos": [p.spec for p in picos]}
        fds = [fd for p in picos for fd in p.fds]
        child = subprocess.run(budget.command([sys.executable, __file__, "--run", json.dumps(spec)]),
                               preexec_fn=budget.enter, pass_fds=fds, stdout=subprocess.PIPE, text=True)
        if child.returncode != 0:
            raise SystemExit(f"the {build} build's run stopped (exit {child.returncode})")
        return json.loads(child.stdout)
    finally:
        for p in picos:
            p.close()


GUIDE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"
BEGIN = "<!-- generated by .venv/bin/python benchmarks/latency.py --cpu-budget 0.125 --guide: begin -->"
END = "<!-- generated: end -->"


def guide_line(runs: dict[str, dict], budget: CpuBudget, where: str) -> str:
    """The figures a Pi Zero 2 W's owner asks for, in one paragraph: the light's answer by
    each way a press comes in, beside its floor, the START that sets a new match up (the
    heaviest press), whether each lit within FELT at p99, and the CPU a press costs."""
    def p(xs: list[float], q: int) -> str:
        return f"{percentile(xs, q) * 1e3:.1f} ms"

    ways = []  # (what, its edge -> LED samples, its floor)
    small, ref = runs.get("small"), runs.get("reference")
    if small:
        ways.append(("the small build's Pi pins", small["paths"]["pi"], small["floors"]["edge -> queue"]))
    if ref:
        ways.append(("the reference build's Pi pins", ref["paths"]["pi"], ref["floors"]["edge -> queue"]))
        ways.append(("its Pico's buttons", ref["paths"]["board"], ref["board floor"]))
    parts = [f"{what} p50 {p(xs, 50)}, p99 {p(xs, 99)} (floor p99 {p(floor, 99)})" for what, xs, floor in ways]
    walk_ups = [x for got in runs.values() for x in got["samples"][WALK_UP]["edge -> LED"]]
    if walk_ups:
        parts.append(f"the START that sets a new match up at most {max(walk_ups) * 1e3:.1f} ms "
                     f"({len(walk_ups)} in the run)")
    late = [what for what, xs, _ in ways if percentile(xs, 99) > FELT]
    verdict = (f"Every way a press comes in lit within {FELT * 1e3:.0f} ms at p99" if not late else
               f"Over {FELT * 1e3:.0f} ms at p99: " + ", ".join(late))
    cpu = []
    for build, got in runs.items():
        told = got["cpu"]["card button"]["told"] + got["cpu"]["mistake"]["told"]
        led = got["cpu"]["card button"]["edge -> LED"] + got["cpu"]["mistake"]["edge -> LED"]
        cpu.append(f"{mean(led) * 1e3:.2f} ms to the light and {mean(told) * 1e3:.2f} ms in all on the {build} build")
    return (f"Edge -> LED under {budget.describe()} (the stand-in for a Pi Zero 2 W: a share of this machine's "
            f"core, not a Pi), the store on {where}: " + "; ".join(parts) + f". {verdict}. "
            "CPU per judged press at that share: " + ", ".join(cpu)
            + f" (measured {datetime.date.today().isoformat()} on {cpu_model()}; the emulated Pico in a process of "
              "its own outside the budget, as a real Pico is its own chip).\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=300, help="actions per build and file system (default 300)")
    ap.add_argument("--dir", default="/var/tmp", help="a folder on the disk under test (the Pi's SD card; "
                                                      "default /var/tmp)")
    ap.add_argument("--tmpfs", default="/dev/shm", help="a folder on tmpfs, for the side-by-side figure "
                                                        "('' to leave it out)")
    ap.add_argument("--cpu-budget", type=float, default=None, metavar="SHARE",
                    help="run the cockpit (and the floors) on this share of one core, e.g. 0.125 for a Pi Zero 2 W's "
                         "stand-in (a cgroup CPU quota); the emulated Pico stays outside it, as a real Pico is")
    ap.add_argument("--builds", default="small,reference", help="the builds to measure (default small,reference)")
    ap.add_argument("--guide", action="store_true",
                    help="write the figures of the first file system into docs/performance.md's marked block "
                         "(with --cpu-budget: what a Pi Zero 2 W can expect)")
    ap.add_argument("--run", help=argparse.SUPPRESS)  # one build, in the process under the budget
    args = ap.parse_args(argv)
    if args.run:
        print(json.dumps(run_build(json.loads(args.run))))
        return 0
    n = args.presses
    lines = []
    if args.guide and not args.cpu_budget:
        raise SystemExit("--guide writes what a Pi Zero 2 W can expect: give it --cpu-budget 0.125")
    with CpuBudget(args.cpu_budget) as budget:
        for i, where in enumerate([args.dir] + ([args.tmpfs] if args.tmpfs else [])):
            with tempfile.TemporaryDirectory(dir=where) as d:
                tmp = Path(d)
                lines.append(f"\nthe store in {where} ({fs_type(tmp)})")
                runs = {}
                for build in args.builds.split(","):
                    got = runs[build] = in_budget(budget, build, tmp, n)
                    lines += report(build, got, got.get("board floor"))
                    if budget.held:
                        lines.append(f"    (budget so far: {budget.throttled()})")
                if args.guide and i == 0:
                    if not budget.held:
                        raise SystemExit(f"--guide: {budget.why_not}")
                    write_block(GUIDE, BEGIN, END, "\n" + guide_line(runs, budget, f"{where} ({fs_type(tmp)})"))
        said = budget.describe()
    print(f"actions through the real Cockpit, {n} per build and file system (SQLite WAL, synchronous=FULL, "
          "group commit), each after an idle gap")
    print(f"{said}; each build in a process of its own, the emulated Pico in another, outside any budget")
    print("\n".join(lines))
    print("\nfloors, interleaved: edge = a bare gpiozero input handing its edge to a loop (the board path's: the "
          "key read raw from a second emulated board); log = a bare SQLite insert+commit, same pragmas and "
          "folder (what the press path paid before the writer); socket = a bare aiohttp WebSocket message of "
          "the same size; whole = edge + socket. Engine: pure Python, no floor.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
