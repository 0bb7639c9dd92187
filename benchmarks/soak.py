"""Soak benchmark: an accelerated café day on the real service (not part of the test run).

    .venv/bin/python -m benchmarks.soak                  # 10 hours of match time at 60x
    .venv/bin/python -m benchmarks.soak --hours 2 --rate 60

The service is `penguin-panel play --sim`'s own code (run.serve: owner lock, connection
guard, store, cockpit, pages) in a process of its own, with match time running `rate`
times faster than the clock on the wall, systemd's notify socket and watchdog emulated
(WATCHDOG=1 every 0.5 s from the loop: the largest gap between two is the loop's worst
stall plus 0.5 s). Against it, at once:
- a crew playing walk-up matches back to back: START, then every card the tower's card
  shows, as fast as the service answers (a human's pace, accelerated);
- bursts of 20 presses 20 ms apart (a 50 Hz chatter) now and then;
- slider noise: a slider moved to a random position every ~50 ms, each move a latency
  probe: from sending it to the board's socket showing it (p99 per simulated hour);
- pages joining and leaving (board, simulator, tower sockets), up to a dozen at once;
- from 8.2 to 8.7 simulated hours, a login attack: wrong PINs from rotating addresses
  (after the last restart: the global budget keeps logins closed ten real minutes);
- the co-processor: the real firmware loop on an emulated board (panel.link.emulator)
  behind a real pty, which the service finds by a udev-like name (a symlink in
  /dev/serial/by-id's place) and reads with the real SerialLink (LinkIO) beside the
  simulator. The red slider is on the board's ADC: the crew moves it there, and a probe
  moves it now and then and waits for the board's socket to show it (press -> socket on
  the board's path; each shown move acknowledged). Every `--fault-every` simulated hours,
  in turn: the cable pulled (the pty closed, the name gone) then plugged back under a new
  name; the board hung with its port open (no frame at all) then reset as its watchdog
  would; the board hung while garbage and frames with 330-digit numbers keep arriving,
  then reset. Checked each time, on the board's socket: the link is said lost; a turn in
  progress pauses for it (its clock never runs on while the link is lost); once the board
  is back the link is said connected and the turn resumes by itself. The crew may press
  START while the link is lost: the turn must start paused for it;
- a SIGKILL every `--kill-every` simulated hours, then a restart on the same database,
  checked: everything the service acknowledged is in the log in order, and the restarted
  service shows what a replay of its log gives (each failure is an invariant violation).
Reported: matches completed, inputs handled, RSS and open descriptors over time (per
process, with the spread after warm-up), p99 press -> socket per simulated hour, the
largest watchdog gap, the co-processor's faults (how many of each, the turns paused and
resumed, the time to notice and to be back), invariant violations, and 5xx answers.

The link's own timers (silence, handshake, retries) run on the wall clock, as on a Pi: a
hung board is noticed after 1 s of the wall, a minute of match time at 60x, so a short
turn often ends by its timer before the link is said lost. The board's moves are stamped
in match time before they reach the cockpit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from dataclasses import replace

from benchmarks.service import card_inputs, section_roles
from benchmarks.stats import summary
from benchmarks.watchdog import beats, notify_socket

PIN = "2468"
WATCHDOG_USEC = 1_000_000  # WATCHDOG=1 every 0.5 s
BOARD_SLIDER = "slider.red"  # on the emulated board's ADC (the soak's map below)
FAULTS = ("unplug", "hang", "garbage")
LINK_COUNTERS = ("frames_received", "frames_rejected", "disconnects", "reconnects", "link_errors")
BOARD_WAIT = 30.0  # s on the wall: a fault not noticed (or a board not back) by then is a violation


# ---------------------------------------------------------------- the service, accelerated

def serve_child(db: str, settings: str, port: int, rate: float, board_map: str = "") -> None:
    """In the child: run.serve with match time at `rate`x, with the co-processor's link to
    the board of `board_map` beside the simulator when one is given."""
    from panel.run import Options, resolve, serve
    from panel.server import event_loop

    logging.basicConfig(level=logging.INFO, format="penguin-panel: %(message)s", stream=sys.stderr)
    r = resolve(Options(sim=True, port=port, db=db, settings=settings))
    start = time.monotonic()

    def match_time(t: float) -> float:
        return start + (t - start) * rate

    sources = [board_source(board_map, lambda: match_time(time.monotonic()), match_time)] if board_map else None
    event_loop.run(serve(r, clock=lambda: match_time(time.monotonic()), sources=sources))


def board_source(map_path: str, clock, match_time):
    """The service's source for the co-processor (LinkIO, the real SerialLink). The link's
    timers and its mapping of the board's clock run on the wall clock, as on a Pi; what it
    reports is stamped in match time for the cockpit."""
    from panel.hardware.map import load_map
    from panel.core.layout_file import load_layout
    from panel.link.from_map import link_for_map
    from panel.service.link_io import LinkIO

    def factory(hmap, *, on_event, on_analog, clock, **kw):
        return link_for_map(hmap, on_event=lambda e: on_event(replace(e, t=match_time(e.t))),
                            on_analog=lambda a: on_analog(replace(a, t=match_time(a.t))), clock=time.monotonic, **kw)

    return LinkIO(load_map(map_path), load_layout(expansion=True), link_factory=factory, clock=clock)


BOARD_MAP = """name = "Soak board"
format = 1
expansion = true

[coprocessor]
kind = "pico"
port = "{port}"
rows = [0, 1]
cols = [8, 9]

[controls.slider]
red = {{ pico_adc = 0, calibration = [0.02, 0.98] }}

[controls.grid]
r3c4 = {{ matrix = [0, 0] }}
"""


class Coprocessor:
    """The emulated co-processor (the real firmware loop on a fake machine, over a real
    pty) and its stable name, a symlink to the pty as udev makes in /dev/serial/by-id:
    gone while the cable is out, made again for the new pty when it is back."""

    def __init__(self, tmp: Path):
        from panel.hardware.map import load_map
        from panel.core.layout_file import load_layout
        from panel.link.emulator import FirmwareEmulator

        (tmp / "by-id").mkdir()
        self.name = tmp / "by-id" / "usb-MicroPython_Board_in_FS_mode_e6614103e7452d2f-if00"
        self.map = tmp / "board.toml"
        self.map.write_text(BOARD_MAP.format(port=self.name))
        hmap = load_map(self.map)
        self.channel = next(ch for ch, control in hmap.board().adc.items() if control == BOARD_SLIDER)
        self.positions = load_layout(expansion=True).control(BOARD_SLIDER).positions
        self.u16 = {p: int(hmap.controls[BOARD_SLIDER].reading_at(self.positions, p) * 65535) for p in self.positions}
        self.emu = FirmwareEmulator(hmap.board().firmware_config, watchdog=False).start()
        self.at: str | None = None  # the position the board's slider was last set to
        self.lock = asyncio.Lock()  # one hand on the slider, and none while a fault is made
        self.fault: str | None = None
        self._link()

    def _link(self) -> None:
        tmp = self.name.with_suffix(".new")
        os.symlink(self.emu.port, tmp)
        os.replace(tmp, self.name)

    def move(self, position: str) -> None:
        self.emu.set_adc(self.channel, self.u16[position])
        self.at = position

    def start_fault(self, kind: str) -> None:
        self.fault = kind
        if kind == "unplug":
            self.name.unlink(missing_ok=True)
            self.emu.unplug()
        else:
            self.emu.hang()

    def garbage(self) -> None:
        from panel.firmware import protocol

        self.emu.send_raw(b"\x00\xffnot a frame\n" + protocol.encode(9, "BEAT", ["t=" + "9" * 330, "rate=1000"])
                          + protocol.encode(10, "DOWN", ["0", "0", "t=" + "9" * 400]))

    def end_fault(self) -> None:
        kind, self.fault = self.fault, None
        if kind == "unplug":
            self.emu.replug()
            self._link()
        elif kind is not None:
            self.emu.reset()  # as the board's watchdog would

    def close(self) -> None:
        self.emu.close()


class BoardSocket:
    """The board page's socket: the last state, and a wait for a state that satisfies a
    predicate (every state message is checked, none skipped)."""

    def __init__(self, ws):
        self.ws = ws
        self.state: dict = {}

    async def until(self, predicate, timeout: float = BOARD_WAIT, each=None) -> dict:
        async def wait():
            while True:
                msg = await self.ws.receive()
                if msg.type != aiohttp.WSMsgType.TEXT:
                    raise ConnectionError("board socket closed")
                m = json.loads(msg.data)
                if m["type"] != "state":
                    continue
                self.state = m["state"]
                if each is not None:
                    each(self.state)
                if predicate(self.state):
                    return self.state
        return await asyncio.wait_for(wait(), timeout)


def link_up(state: dict) -> bool:
    return bool(state.get("link", {}).get("connected"))


def paused_for_link(state: dict) -> bool:
    return state.get("phase") == "paused" and "link" in (state.get("paused_for") or [])


class Service:
    def __init__(self, tmp: Path, rate: float, board: Coprocessor | None = None):
        self.tmp, self.rate, self.board = tmp, rate, board
        self.db = tmp / "panel.db"
        self.settings = tmp / "settings.toml"
        self.settings.write_text(f'[service]\npin = "{PIN}"\n')
        self.log = open(tmp / "service.log", "w+")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.notify_path = str(tmp / "notify.sock")
        self.notify = notify_socket(self.notify_path)  # kernel-stamped: the gaps are the service's
        self.proc: subprocess.Popen | None = None
        self.segments: list[dict] = []  # one per process: samples and watchdog gaps

    def start(self, preexec=None) -> None:
        env = {**os.environ, "NOTIFY_SOCKET": self.notify_path, "WATCHDOG_USEC": str(WATCHDOG_USEC)}
        self.proc = subprocess.Popen([sys.executable, "-c", "import sys; from benchmarks.soak import serve_child; "
                                      "serve_child(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])",
                                      str(self.db), str(self.settings), str(self.port), str(self.rate),
                                      str(self.board.map) if self.board else ""],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True, env=env,
                                     preexec_fn=preexec)
        for line in self.proc.stdout:
            if "serving on" in line:
                break
        else:
            raise SystemExit(f"the service did not start (exit {self.proc.wait()}); see {self.log.name}")
        self.segments.append({"pid": self.proc.pid, "samples": [], "last_beat": None, "gap": 0.0})

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc.stdout.close()

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self.proc.stdout.close()

    def beats(self) -> None:
        """Read WATCHDOG=1 datagrams; the gaps go to the current process's segment."""
        seg = self.segments[-1]
        for now in beats(self.notify):
            if seg["last_beat"] is not None:
                seg["gap"] = max(seg["gap"], now - seg["last_beat"])
            seg["last_beat"] = now

    def sample(self, sim_hours: float) -> None:
        pid = self.proc.pid
        try:
            rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                       if line.startswith("VmRSS:"))
            fds = len(os.listdir(f"/proc/{pid}/fd"))
        except (OSError, StopIteration):
            return
        self.segments[-1]["samples"].append((sim_hours, rss, fds))


# ---------------------------------------------------------------- the day

class Day:
    def __init__(self, svc: Service, hours: float, kill_every: float, seed: int, fault_every: float = 0.2):
        self.svc, self.hours, self.kill_every, self.fault_every = svc, hours, kill_every, fault_every
        self.rng = random.Random(seed)
        self.t0 = time.monotonic()
        self.acked: dict[str, list] = {}  # per client, in the order it was answered
        self.latency: dict[int, list[float]] = {}
        self.floor: dict[int, list[float]] = {}
        self.inputs = 0
        self.errors_5xx = 0
        self.violations: list[str] = []
        self.up = asyncio.Event()
        self.gm_headers: dict | None = None
        self.board_latency: dict[int, list[float]] = {}  # a move on the board -> the board's socket
        self.faults: list[dict] = []  # one per co-processor fault: its kind and what was seen
        self.next_fault = fault_every
        self.link: dict[str, int] = {}  # the link's counters, added up over the processes

    def sim_hours(self) -> float:
        return (time.monotonic() - self.t0) * self.svc.rate / 3600

    async def post(self, s, path, body, headers=None):
        async with s.post(self.svc.base + path, json=body, headers=headers) as r:
            data = await r.json(content_type=None)
            if r.status >= 500 and r.status != 503:
                self.errors_5xx += 1
            return r.status, data

    async def get(self, s, path):
        async with s.get(self.svc.base + path) as r:
            return r.status, await r.json(content_type=None)

    async def login(self, s) -> dict | None:
        status, body = await self.post(s, "/api/admin/login", {"pin": PIN})
        return {"X-CSRF-Token": body["csrf"]} if status == 200 else None

    async def press(self, s, control, value, who: str) -> None:
        status, body = await self.post(s, "/api/sim/input", {"control": control, "value": value})
        if status == 200:
            self.inputs += 1
            if body.get("logged"):
                self.acked.setdefault(who, []).append((control, value))

    async def guarded(self, coro_fn) -> None:
        """Run a client loop; while the service is down (killed), wait for it to come back."""
        while time.monotonic() - self.t0 < self.hours * 3600 / self.svc.rate:
            await self.up.wait()
            try:
                async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
                    await coro_fn(s)
            except (aiohttp.ClientError, ConnectionError, asyncio.TimeoutError, KeyError, TypeError,
                    json.JSONDecodeError):
                await asyncio.sleep(0.05)

    # -- the crew and the game master

    async def crew(self, s) -> None:
        roles, keypad = section_roles((await self.get(s, "/api/layout"))[1])
        while self.up.is_set():
            if self.gm_headers is None:
                self.gm_headers = await self.login(s)
                if self.gm_headers is None:
                    await asyncio.sleep(0.5)  # the login attack spent the budget: later
                    continue
            st = (await self.get(s, "/api/state"))[1]
            if paused_for_link(st):
                await asyncio.sleep(0.05)  # the turn waits for the panel: so does the crew
                continue
            if st["match_id"] is None or st["status"] != "active" or st["finished"] or st["phase"] == "between_turns":
                await self.press(s, "cockpit.start", True, "crew")
                await self.press(s, "cockpit.start", False, "crew")
                continue
            if st["phase"] == "paused":
                status, _ = await self.post(s, "/api/admin/action",
                                            {"action": "rule", "upheld": False} if st.get("challenge") else
                                            {"action": "resume"}, self.gm_headers)
                if status == 403:
                    self.gm_headers = None
                await asyncio.sleep(0.01)
                continue
            status, join = await self.get(s, "/api/join")
            if status == 403:
                self.gm_headers = None
                continue
            status, tower = await self.get(s, f"/api/tower?code={join['code']}")
            card = tower.get("card") if status == 200 else None
            if not card:
                await asyncio.sleep(0.01)
                continue
            todo = card_inputs(card, roles, keypad)
            if self.rng.random() < 0.1:
                todo.insert(0, ("grid.r1c1", True))  # a slip
            for control, value in todo:
                if control == BOARD_SLIDER and self.svc.board is not None:
                    async with self.svc.board.lock:  # on the panel, where that slider is
                        self.svc.board.move(value)
                elif control:
                    await self.press(s, control, value, "crew")
                await asyncio.sleep(0.6 / self.svc.rate)

    async def bursts(self, s) -> None:
        while self.up.is_set():
            await asyncio.sleep(self.rng.uniform(2, 6))
            for _ in range(20):  # 50 Hz chatter on one button
                await self.press(s, "grid.r2c2", True, "bursts")
                await self.press(s, "grid.r2c2", False, "bursts")
                await asyncio.sleep(0.02)

    async def sliders(self, s) -> None:
        """Slider noise, each move a probe of press -> board socket."""
        async with s.ws_connect(self.svc.base.replace("http", "ws") + "/ws?view=board") as ws:
            while self.up.is_set():
                control = self.rng.choice(["slider.blue"] if self.svc.board else ["slider.blue", "slider.red"])
                value = self.rng.choice(["0", "1", "2", "3"])
                t0 = time.perf_counter()
                post = asyncio.create_task(self.post(s, "/api/sim/input", {"control": control, "value": value}))
                try:
                    while True:
                        msg = await asyncio.wait_for(ws.receive(), 30)
                        if msg.type != aiohttp.WSMsgType.TEXT:
                            raise ConnectionError("board socket closed")
                        m = json.loads(msg.data)
                        if m["type"] == "state" and m["state"]["positions"].get(control) == value:
                            break
                except BaseException:  # the service was killed under us: the press's answer with it
                    post.cancel()
                    await asyncio.gather(post, return_exceptions=True)
                    raise
                hour = int(self.sim_hours())
                self.latency.setdefault(hour, []).append(time.perf_counter() - t0)
                t0 = time.perf_counter()  # the floor: a bare GET /api/state round trip, now
                await self.get(s, "/api/state")
                self.floor.setdefault(hour, []).append(time.perf_counter() - t0)
                status, body = await post
                if status == 200:
                    self.inputs += 1
                    if body.get("logged"):
                        self.acked.setdefault("sliders", []).append((control, value))
                await asyncio.sleep(self.rng.uniform(0.03, 0.07))

    async def pages(self, s) -> None:
        open_ = []
        while self.up.is_set():
            await asyncio.sleep(self.rng.uniform(0.1, 0.5))
            if open_ and (len(open_) >= 12 or self.rng.random() < 0.45):
                ws, task = open_.pop(self.rng.randrange(len(open_)))
                await ws.close()
                task.cancel()
                continue
            view = self.rng.choice(["board", "sim", "tower"])
            query = f"view={view}"
            if view == "tower":
                status, join = await self.get(s, "/api/join")
                query += f"&code={join.get('code', 'NONE')}"
            ws = await s.ws_connect(self.svc.base.replace("http", "ws") + "/ws?" + query)

            async def drain(ws=ws):
                async for _ in ws:
                    pass
            open_.append((ws, asyncio.create_task(drain())))

    async def attack(self, s) -> None:
        while self.up.is_set():
            h = self.sim_hours()
            if not 8.2 <= h < 8.7:
                await asyncio.sleep(0.2)
                continue
            address = f"127.{self.rng.randrange(2, 250)}.{self.rng.randrange(1, 250)}.1"
            try:
                async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0))) as a:
                    async with a.post(self.svc.base + "/api/admin/login", json={"pin": "0000"}) as r:
                        await r.read()
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.05)

    # -- the co-processor

    async def board_side(self, s) -> None:
        """Moves on the board's slider (each a probe, acknowledged when the board's socket
        shows it) and, every fault_every simulated hours, a fault."""
        async with s.ws_connect(self.svc.base.replace("http", "ws") + "/ws?view=board") as ws:
            sock = BoardSocket(ws)
            while self.up.is_set():
                await sock.until(link_up, timeout=BOARD_WAIT * 4)  # after a restart: the board found again
                if self.sim_hours() >= self.next_fault:
                    self.next_fault += self.fault_every
                    await self.fault(sock, FAULTS[len(self.faults) % len(FAULTS)])
                else:
                    await self.board_move(sock)
                    await asyncio.sleep(self.rng.uniform(0.2, 0.6))

    async def board_move(self, sock: BoardSocket) -> None:
        board = self.svc.board
        async with board.lock:
            before = sock.state
            shown = before["positions"].get(BOARD_SLIDER)
            to = self.rng.choice([p for p in board.positions if p not in (shown, board.at)])
            t0 = time.perf_counter()
            board.move(to)
            try:
                st = await sock.until(lambda st: st["positions"].get(BOARD_SLIDER) == to)
            except asyncio.TimeoutError:
                if self.up.is_set():
                    self.violations.append(f"a move of the board's slider to {to} never reached the board's socket")
                return
        self.board_latency.setdefault(int(self.sim_hours()), []).append(time.perf_counter() - t0)
        self.inputs += 1
        if before.get("status") == st.get("status") == "active" and before.get("match_id") == st.get("match_id"):
            self.acked.setdefault("board", []).append((BOARD_SLIDER, to))  # moved and shown in one match: logged

    async def fault(self, sock: BoardSocket, kind: str) -> None:
        """One fault of the co-processor, checked on the board's socket (module docstring)."""
        board = self.svc.board
        rec = {"kind": kind, "hour": self.sim_hours(), "noticed": None, "back": None, "turn": False,
               "paused": False, "resumed": False, "ran_on": False}
        self.faults.append(rec)
        spray = None
        stopped: list[tuple] = []  # (the turn, its time left) in every state paused for the lost link

        def lost(st: dict) -> bool:
            if link_up(st):
                return False
            if paused_for_link(st):
                rec["paused"] = True
                stopped.append((st.get("match_id"), st.get("round"), st.get("team"), st.get("time_left")))
            if st.get("phase") != "in_turn":
                rec["settled"] = True  # the turn the loss caught is paused or over
            elif rec.get("settled"):
                rec["ran_on"] = True  # a turn runs (resumed or started) while the link is still lost
            return True

        async with board.lock:
            rec["turn"] = sock.state.get("phase") == "in_turn"
            t0 = time.perf_counter()
            board.start_fault(kind)
            try:
                if kind == "garbage":
                    spray = asyncio.create_task(self.spray(board))
                await sock.until(lambda st: not link_up(st))
                rec["noticed"] = time.perf_counter() - t0
                lost(sock.state)
                if rec["turn"]:  # the turn in progress: paused for the link, or over by its timer first
                    await sock.until(lambda st: paused_for_link(st) or st.get("phase") not in ("in_turn", "paused"),
                                     each=lost)
                if spray is not None:
                    spray.cancel()
                t1 = time.perf_counter()
                board.end_fault()
                await sock.until(link_up, each=lost)
                rec["back"] = time.perf_counter() - t1
                if rec["paused"]:
                    await sock.until(lambda st: not paused_for_link(st))
                    rec["resumed"] = True
                rec["cut"] = False
            except asyncio.TimeoutError:
                if self.up.is_set():
                    rec["cut"] = False
                    self.violations.append(f"{kind} at {rec['hour']:.2f} h: "
                                           + ("the link was never said lost" if rec["noticed"] is None else
                                              "the board never came back" if rec["back"] is None else
                                              "the turn paused for the link never resumed" if rec["paused"] else
                                              "the turn in progress never paused"))
            finally:
                if spray is not None:
                    spray.cancel()
                rec.setdefault("cut", True)  # by a SIGKILL (its socket closed) or the end of the day
                if board.fault is not None:  # the board back for the next
                    board.end_fault()
        left: dict[tuple, set] = {}
        for *turn, time_left in stopped:
            left.setdefault(tuple(turn), set()).add(time_left)
        if rec["ran_on"] or any(len(v) > 1 for v in left.values()):
            self.violations.append(f"{kind} at {rec['hour']:.2f} h: the turn's clock ran with the link lost")

    @staticmethod
    async def spray(board: Coprocessor) -> None:
        while True:  # bytes keep coming from a hung board, never a valid frame
            board.garbage()
            await asyncio.sleep(0.05)

    # -- the lights going out
    async def killer(self) -> None:
        next_kill = self.kill_every
        while self.sim_hours() < self.hours:
            await asyncio.sleep(0.25)
            self.svc.beats()
            if self.sim_hours() >= next_kill:
                next_kill += self.kill_every
                self.up.clear()
                await self.count_link()
                self.svc.kill()
                self.check_log()
                self.svc.start()
                self.gm_headers = None
                await self.check_restart()
                self.up.set()
        self.up.clear()

    async def count_link(self) -> None:
        """The co-processor link's counters of the process about to end, added up."""
        if self.svc.board is None:
            return
        try:
            async with aiohttp.ClientSession() as s:
                link = (await self.get(s, "/api/state"))[1]["link"]
        except (aiohttp.ClientError, KeyError):
            return
        for k in LINK_COUNTERS:
            self.link[k] = self.link.get(k, 0) + (link.get(k) or 0)

    def check_log(self) -> None:
        from panel.storage.store import Store

        # Each client's requests go one at a time, so what it was told is logged comes in the
        # log (every match's, in order) in the order it was told.
        with Store(self.svc.db) as store:
            logged = [(e.data["control"], e.data["value"]) for m in store.matches()
                      for e in store.entries(m.id) if e.kind == "input"]
        for who, items in self.acked.items():
            it = iter(logged)
            if not all(any(x == y for y in it) for x in items):
                self.violations.append(f"{who}: an input it was told is logged is not in the log")

    async def check_restart(self) -> None:
        from panel.service.cockpit import SERVICE_FIELDS  # the service's additions, not the match's state
        from panel.storage.store import COMMIT_WITHIN

        # The clients wait while this runs, but the co-processor's link acts on its own (the
        # board found again: the pause for it lifted, its snapshot's moves), and what the
        # panel did (a pause for the link) reaches the file within the writer's commit
        # window: the state and the committed log are compared until they agree, for a
        # little longer than that window; a difference that outlasts it is a violation.
        deadline = time.monotonic() + COMMIT_WITHIN * 2 + 2.0
        async with aiohttp.ClientSession() as s:
            while True:
                state = (await self.get(s, "/api/state"))[1]
                record, diff = self._against_log(state, SERVICE_FIELDS)
                settled = state == (await self.get(s, "/api/state"))[1]
                if settled and diff is None:
                    return
                if time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.1)
        if not settled:
            self.violations.append("the restarted service's state never settled")
        else:
            self.violations.append(diff)

    def _against_log(self, state: dict, service_fields: tuple) -> tuple:
        """(record, None) when the service's state is what a replay of the committed log
        gives, else (record, the difference in words)."""
        from panel.games.registry import game_of
        from panel.service.replay import replay
        from panel.storage.store import Store

        with Store(self.svc.db) as store:
            record = store.latest_match()
            entries = store.entries(record.id) if record is not None else []
        if record is None or record.id != state["match_id"]:
            return record, ("the restarted service shows another match than the log's latest"
                            if record is not None else None)
        match, last = replay(record, entries)
        expected = match.snapshot(last)
        expected.pop("card", None)
        expected = game_of(record.settings).present(expected, match, None)  # as the service shows it
        got = {k: v for k, v in state.items() if k not in service_fields}
        if got.get("phase") == "in_turn":
            # A turn paused only for the link when the service was killed comes back paused
            # for it, and runs again once the board is found: its clock has moved on since
            # the last entry of the log.
            got.pop("time_left", None)
        expected = {k: v for k, v in expected.items() if k in got}
        if got == expected:
            return record, None
        diff = sorted(k for k in got if got[k] != expected.get(k))
        return record, (f"match {record.id}: the restarted service and a replay of its log differ in "
                        + ", ".join(f"{k} ({got[k]!r:.80} != {expected.get(k)!r:.80})" for k in diff))

    async def sampler(self) -> None:
        while self.sim_hours() < self.hours:
            if self.up.is_set():
                self.svc.sample(self.sim_hours())
            await asyncio.sleep(0.25 * 3600 / self.svc.rate / 15)  # every simulated minute


async def run_day(svc: Service, hours: float, kill_every: float, seed: int, fault_every: float) -> Day:
    day = Day(svc, hours, kill_every, seed, fault_every)
    day.up.set()
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        status, _ = await day.post(s, "/api/admin/login", {"pin": PIN})
    clients = [day.guarded(f) for f in (day.crew, day.bursts, day.sliders, day.pages, day.attack)
               + ((day.board_side,) if svc.board else ())]
    await asyncio.gather(day.killer(), day.sampler(), *clients)
    await day.count_link()  # the last process's
    return day


def report_board(day: Day) -> None:
    acked = len(day.acked.get("board", []))
    moves = sum(len(v) for v in day.board_latency.values())
    print(f"co-processor: {len(day.faults)} faults; {moves} moves of its slider shown on the board's socket, "
          f"{acked} of them in a match (logged); the link, over every process: "
          + ", ".join(f"{k} {day.link.get(k, 0)}" for k in LINK_COUNTERS))
    for hour in sorted(day.board_latency):
        print(summary(f"hour {hour}: board slider -> board socket", day.board_latency[hour], day.floor.get(hour),
                      unit="ms"))
    for kind in FAULTS:
        recs = [r for r in day.faults if r["kind"] == kind]
        if not recs:
            continue
        noticed = [r["noticed"] for r in recs if r["noticed"] is not None]
        back = [r["back"] for r in recs if r["back"] is not None]
        turns = [r for r in recs if r["turn"]]
        print(f"  {kind}: {len(recs)} times ({sum(r['cut'] for r in recs)} cut short by a SIGKILL or "
              f"the end), said lost {len(noticed)}, back {len(back)}; a turn in progress {len(turns)} times: "
              f"paused {sum(r['paused'] for r in turns)}, over by its timer before the loss was noticed "
              f"{sum(not r['paused'] and not r['cut'] for r in turns)}; turns paused for the link "
              f"{sum(r['paused'] for r in recs)}, resumed by themselves {sum(r['resumed'] for r in recs)}")
        if noticed:
            print(summary(f"  {kind}: fault -> link said lost", noticed, unit="ms"))
        if back:
            print(summary(f"  {kind}: board back -> link said connected", back, unit="ms"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=10.0, help="simulated hours of café play")
    ap.add_argument("--rate", type=float, default=60.0, help="match time per second on the wall")
    ap.add_argument("--kill-every", type=float, default=2.5, help="simulated hours between SIGKILLs")
    ap.add_argument("--fault-every", type=float, default=0.2,
                    help="simulated hours between co-processor faults (unplug, hang, garbage in turn)")
    ap.add_argument("--no-board", action="store_true", help="the simulator only, no co-processor")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="pp-soak-"))
    board = None if args.no_board else Coprocessor(tmp)
    svc = Service(tmp, args.rate, board)
    svc.start()
    started = time.monotonic()
    try:
        day = asyncio.run(run_day(svc, args.hours, args.kill_every, args.seed, args.fault_every))
    finally:
        svc.stop()
        if board is not None:
            board.close()
    wall = time.monotonic() - started
    day.check_log()  # the last process's log too, now that it has stopped

    from panel.storage.store import Store

    with Store(svc.db) as store:
        statuses = [m.status for m in store.matches()]
    print(f"soak: {args.hours:g} simulated hours at {args.rate:g}x in {wall / 60:.1f} min, "
          f"{len(svc.segments) - 1} SIGKILLs and restarts")
    print(f"matches: {statuses.count('finished')} completed, {len(statuses)} set up; inputs handled: {day.inputs}")
    for hour in sorted(day.latency):
        print(summary(f"hour {hour}: press -> board socket", day.latency[hour], day.floor.get(hour), unit="ms"))
    if board is not None:
        report_board(day)
    for i, seg in enumerate(svc.segments):
        samples = seg["samples"]
        if len(samples) < 4:
            continue
        warm = samples[len(samples) // 4:]  # after the first quarter of the process's life
        rss = [r for _, r, _ in warm]
        fds = [f for _, _, f in warm]
        print(f"process {i + 1} (pid {seg['pid']}, simulated hours {samples[0][0]:.1f}-{samples[-1][0]:.1f}): "
              f"RSS {samples[0][1] / 1024:.1f} -> {samples[-1][1] / 1024:.1f} MiB, after warm-up "
              f"{min(rss) / 1024:.1f}-{max(rss) / 1024:.1f} MiB ({(max(rss) - min(rss)) / max(rss) * 100:.1f} %); "
              f"descriptors after warm-up {min(fds)}-{max(fds)}; largest watchdog gap {seg['gap']:.2f} s "
              f"(a beat every {WATCHDOG_USEC / 2e6:g} s)")
    svc.log.seek(0)
    text = svc.log.read()
    print(f"invariant violations: {len(day.violations)}" + "".join(f"\n  {v}" for v in day.violations))
    print(f"5xx answers (other than 503 'cannot save'): {day.errors_5xx}; tracebacks in the service log: "
          f"{text.count('Traceback')}; log lines: {len(text.splitlines())}")
    return 0 if not day.violations else 1


if __name__ == "__main__":
    sys.exit(main())
