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
- a SIGKILL every `--kill-every` simulated hours, then a restart on the same database,
  checked: everything the service acknowledged is in the log in order, and the restarted
  service shows what a replay of its log gives (each failure is an invariant violation).
Reported: matches completed, inputs handled, RSS and open descriptors over time (per
process, with the spread after warm-up), p99 press -> socket per simulated hour, the
largest watchdog gap, invariant violations, and 5xx answers.

Not covered here: the co-processor's unplugs and hangs (the simulator has no board; the
serial link's own tests and benchmarks/serial_link.py drive the emulated board).
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
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from benchmarks.service import card_inputs, section_roles
from benchmarks.stats import summary

PIN = "2468"
WATCHDOG_USEC = 1_000_000  # WATCHDOG=1 every 0.5 s
SO_TIMESTAMPNS = 35  # also the SCM_ type of its ancillary data
VOLATILE = ("link", "match_id", "status", "store_error")


# ---------------------------------------------------------------- the service, accelerated

def serve_child(db: str, settings: str, port: int, rate: float) -> None:
    """In the child: run.serve with match time at `rate`x."""
    from panel.service.run import Options, resolve, serve

    logging.basicConfig(level=logging.INFO, format="penguin-panel: %(message)s", stream=sys.stderr)
    r = resolve(Options(sim=True, port=port, db=db, settings=settings))
    start = time.monotonic()
    asyncio.run(serve(r, clock=lambda: start + (time.monotonic() - start) * rate))


class Service:
    def __init__(self, tmp: Path, rate: float):
        self.tmp, self.rate = tmp, rate
        self.db = tmp / "panel.db"
        self.settings = tmp / "settings.toml"
        self.settings.write_text(f'[service]\npin = "{PIN}"\n')
        self.log = open(tmp / "service.log", "w+")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.notify_path = str(tmp / "notify.sock")
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(self.notify_path)
        self.notify.setblocking(False)
        # The kernel stamps each datagram as it arrives (SO_TIMESTAMPNS, 35 in Linux's generic
        # socket options, which x86-64 and arm64 use): the gaps are the service's, not ours,
        # however busy this process is when it reads them.
        self.notify.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.proc: subprocess.Popen | None = None
        self.segments: list[dict] = []  # one per process: samples and watchdog gaps

    def start(self, preexec=None) -> None:
        env = {**os.environ, "NOTIFY_SOCKET": self.notify_path, "WATCHDOG_USEC": str(WATCHDOG_USEC)}
        self.proc = subprocess.Popen([sys.executable, "-c", "import sys; from benchmarks.soak import serve_child; "
                                      "serve_child(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))",
                                      str(self.db), str(self.settings), str(self.port), str(self.rate)],
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
        while True:
            try:
                msg, anc, _, _ = self.notify.recvmsg(4096, 64)
            except BlockingIOError:
                return
            if b"WATCHDOG=1" in msg:
                now = next((sec + nsec / 1e9 for level, kind, data in anc
                            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS
                            for sec, nsec in [struct.unpack("qq", data[:16])]), time.time())
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
    def __init__(self, svc: Service, hours: float, kill_every: float, seed: int):
        self.svc, self.hours, self.kill_every = svc, hours, kill_every
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
                if control:
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
                control = self.rng.choice(["slider.blue", "slider.red"])
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

    # -- the lights going out
    async def killer(self) -> None:
        next_kill = self.kill_every
        while self.sim_hours() < self.hours:
            await asyncio.sleep(0.25)
            self.svc.beats()
            if self.sim_hours() >= next_kill:
                next_kill += self.kill_every
                self.up.clear()
                self.svc.kill()
                self.check_log()
                self.svc.start()
                self.gm_headers = None
                await self.check_restart()
                self.up.set()
        self.up.clear()

    def check_log(self) -> None:
        from panel.service.store import Store

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
        from panel.service.replay import replay
        from panel.service.store import Store

        async with aiohttp.ClientSession() as s:
            state = (await self.get(s, "/api/state"))[1]
        with Store(self.svc.db) as store:
            record = store.latest_match()
            if record is None or record.id != state["match_id"]:
                if record is not None:
                    self.violations.append("the restarted service shows another match than the log's latest")
                return
            match, last = replay(record, store.entries(record.id))
            expected = match.snapshot(last)
        expected.pop("card", None)
        got = {k: v for k, v in state.items() if k not in VOLATILE}
        if got != {k: v for k, v in expected.items() if k in got}:
            self.violations.append(f"match {record.id}: the restarted service and a replay of its log differ")

    async def sampler(self) -> None:
        while self.sim_hours() < self.hours:
            if self.up.is_set():
                self.svc.sample(self.sim_hours())
            await asyncio.sleep(0.25 * 3600 / self.svc.rate / 15)  # every simulated minute


async def run_day(svc: Service, hours: float, kill_every: float, seed: int) -> Day:
    day = Day(svc, hours, kill_every, seed)
    day.up.set()
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        status, _ = await day.post(s, "/api/admin/login", {"pin": PIN})
    clients = [day.guarded(f) for f in (day.crew, day.bursts, day.sliders, day.pages, day.attack)]
    await asyncio.gather(day.killer(), day.sampler(), *clients)
    return day


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hours", type=float, default=10.0, help="simulated hours of café play")
    ap.add_argument("--rate", type=float, default=60.0, help="match time per second on the wall")
    ap.add_argument("--kill-every", type=float, default=2.5, help="simulated hours between SIGKILLs")
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="pp-soak-"))
    svc = Service(tmp, args.rate)
    svc.start()
    started = time.monotonic()
    try:
        day = asyncio.run(run_day(svc, args.hours, args.kill_every, args.seed))
    finally:
        svc.stop()
    wall = time.monotonic() - started

    from panel.service.store import Store

    with Store(svc.db) as store:
        statuses = [m.status for m in store.matches()]
    print(f"soak: {args.hours:g} simulated hours at {args.rate:g}x in {wall / 60:.1f} min, "
          f"{len(svc.segments) - 1} SIGKILLs and restarts")
    print(f"matches: {statuses.count('finished')} completed, {len(statuses)} set up; inputs handled: {day.inputs}")
    for hour in sorted(day.latency):
        print(summary(f"hour {hour}: press -> board socket", day.latency[hour], day.floor.get(hour), unit="ms"))
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
