"""Venue benchmark (run on demand: .venv/bin/python -m benchmarks.venue).

A real Mosquitto (Debian's, with the ACL `penguin-panel broker-config` writes), a real
`penguin-panel venue` process, and simulated cockpits in this process: each a real
`Cockpit` (sim, its own SQLite file) with its real `Bridge`.

1. Cockpit event -> venue leaderboard: the game master's "end" on a cockpit until the
   venue board's socket receives the leaderboard that counts that match (the bridge
   rebuilds the result from the log, publishes it; the venue checks it, stores it,
   recomputes the day/week/all-time boards and pushes them). With 1, 20 and 100 cockpits
   on one broker, all of them ending a match at the same moment; measured from the moment
   each cockpit fans out its game_ended event. The simulated cockpits share this process
   and its loop, so their SQLite files are on /dev/shm when there is one: a real cockpit
   syncs its own SD card, not its neighbours'. Floor: one bare MQTT round trip (QoS 1
   publish -> a subscriber of another connection) in the same run.
2. Press -> engine on a cockpit with the bridge off, on, and on with the broker down (an
   outage: the bridge retrying in the background, its outbox filling): `Cockpit.input`
   until the press is logged (SQLite, full sync: on a disk by default, --press-dir
   /dev/shm to see the bridge's share without the sync) and judged. The presses are
   mistakes in running turns, so every one makes game events and a new state for the
   bridge. The three modes take turns in blocks of 60 presses, so a busy moment of the
   machine does not land on one of them only.
3. TVs on a year of results: a venue database filled with a year of five cockpits'
   results (164,000, as issue 24 found them; --year-results) and one with a day's, a real
   `penguin-panel venue` process on each with systemd's watchdog emulated (WATCHDOG=1
   from its loop every 50 ms, stamped by the kernel as it arrives), and 20 TVs (each its
   own connection) asking `/api/venue` at once, over and over. Floor: the same 20 TVs
   asking for a page the venue does not have (a 404 through the same server and guard).
   Printed: p50/p99 beside the floor, and the loop's largest gap between two beats.
   `--year-code PATH` runs the venue from another checkout (its PYTHONPATH: main's, for
   the figures before the fix), the database filled by that checkout's store.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import aiomqtt

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mosquitto import Mosquitto  # noqa: E402  (the tests' broker: the same generated config)
from play_helpers import mistake, new_match  # noqa: E402

from benchmarks.stats import summary  # noqa: E402
from benchmarks.watchdog import beats, notify_socket  # noqa: E402
from panel.mqtt.bridge import Bridge  # noqa: E402
from panel.service.cockpit import Cockpit  # noqa: E402
from panel.storage.store import Store  # noqa: E402


async def bare_round_trips(broker: Mosquitto, n: int) -> list[float]:
    out = []
    async with aiomqtt.Client("127.0.0.1", broker.port, username="venue", password=broker.passwords["venue"],
                              identifier="bench-sub") as sub, \
            aiomqtt.Client("127.0.0.1", broker.port, username="c001", password=broker.passwords["c001"],
                           identifier="bench-pub") as pub:
        topic = "penguin-panel/v1/c001/event"
        await sub.subscribe(topic, qos=1)
        messages = sub.messages
        for i in range(n):
            t0 = time.perf_counter()
            await pub.publish(topic, str(i).encode(), qos=1)
            async for m in messages:
                if bytes(m.payload) == str(i).encode():
                    break
            out.append(time.perf_counter() - t0)
    return out


@contextlib.asynccontextmanager
async def fleet(broker: Mosquitto, tmp: Path, n: int):
    stack = contextlib.AsyncExitStack()
    out = []
    async with stack:
        for i in range(1, n + 1):
            cid = f"c{i:03d}"
            store = stack.enter_context(Store(tmp / f"{cid}-{time.monotonic_ns()}.db"))
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            stack.push_async_callback(cockpit.close)
            bridge = Bridge(cockpit, broker.bridge(cid))
            await bridge.start()
            stack.push_async_callback(bridge.close)
            out.append((cockpit, bridge))
        for _, b in out:
            await b.connected.wait()
        yield out


class EndSeen:
    """A page-like subscriber of a cockpit noting when it fans out game_ended: the moment
    its bridge is handed the event too (the fan-out is one synchronous loop)."""

    view = "bench"

    def __init__(self, key_of, waiting: dict):
        self.key_of, self.waiting = key_of, waiting

    def send(self, message):
        if message["type"] == "event" and message["event"]["type"] == "game_ended":
            self.waiting[self.key_of()] = time.perf_counter()

    def revoke(self):
        pass

    def close(self, code=None):
        pass


async def leaderboard_latency(broker: Mosquitto, venue_base: str, tmp: Path, n: int, rounds: int) -> list[float]:
    samples: list[float] = []
    async with fleet(broker, tmp, n) as cockpits, aiohttp.ClientSession() as http:
        ws = await http.ws_connect(venue_base.replace("http", "ws") + "/ws")
        waiting: dict[tuple[str, int], float] = {}
        arrived: dict[tuple[str, int], float] = {}
        all_in = asyncio.Event()

        async def listen():
            async for msg in ws:
                m = json.loads(msg.data)
                if m["type"] == "leaderboard":
                    now = time.perf_counter()
                    for new in m["new"]:
                        key = (new["cockpit"], new["match_id"])
                        if key in waiting and key not in arrived:
                            arrived[key] = now
                    if len(arrived) == len(waiting):
                        all_in.set()

        listener = asyncio.create_task(listen())
        for cockpit, bridge in cockpits:
            cockpit.subscribe(EndSeen(lambda c=cockpit, b=bridge: (b.settings.cockpit_id, c.record.id), waiting))
        for _ in range(rounds):
            for cockpit, _ in cockpits:
                await new_match(cockpit)
                await cockpit.action("start_turn", {})
            waiting.clear()
            arrived.clear()
            all_in.clear()

            await asyncio.gather(*(c.action("end", {}) for c, _ in cockpits))
            await asyncio.wait_for(all_in.wait(), 120)
            samples += [arrived[k] - t0 for k, t0 in waiting.items()]
        listener.cancel()
        await ws.close()
    return samples


async def press_latency(broker: Mosquitto, tmp: Path, presses: int) -> dict[str, list[float]]:
    """Blocks of presses in turn: bridge off, on, on with the broker down, interleaved."""
    out: dict[str, list[float]] = {"off": [], "on": [], "outage": []}
    with Store(tmp / f"press-{time.monotonic_ns()}.db") as store:
        cockpit = Cockpit(store, sim=True)
        await cockpit.start()
        await new_match(cockpit, target_points=600)
        bridge = None
        try:
            for block in range(max(1, presses // 60)):
                for mode in ("off", "on", "outage"):
                    if mode == "off" and bridge is not None:
                        await bridge.close()
                        bridge = None
                    if mode == "on":
                        bridge = Bridge(cockpit, broker.bridge("c001"), backoff=(0.5, 2.0))
                        await bridge.start()
                        await bridge.connected.wait()
                    if mode == "outage":
                        broker.stop()
                        while bridge.connected.is_set():
                            await asyncio.sleep(0.01)
                    for _ in range(30):  # 30 turns, 2 mistakes each: 60 presses
                        if cockpit.match.finished:
                            await new_match(cockpit, target_points=600)
                        await cockpit.action("start_turn", {})
                        for _ in range(2):
                            t0 = time.perf_counter()
                            await mistake(cockpit)  # press (timed with its release: logged and judged)
                            out[mode].append(time.perf_counter() - t0)
                    if mode == "outage":
                        broker.start()
        finally:
            if bridge is not None:
                await bridge.close()
            await cockpit.close()
    return out


def start_venue(broker: Mosquitto, tmp: Path) -> tuple[subprocess.Popen, str]:
    settings = tmp / "venue.toml"
    settings.write_text(f'[venue]\npin = "1357"\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
                        f'username = "venue"\npassword = "{broker.passwords["venue"]}"\n')
    proc = subprocess.Popen([sys.executable, "-m", "panel", "venue", "--host", "127.0.0.1", "--port", "0",
                             "--db", str(tmp / "venue.db"), "--settings", str(settings)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    for line in proc.stdout:
        m = re.search(r"venue board on (http://\S+?)/ ", line)
        if m:
            return proc, m.group(1)
    raise SystemExit("the venue did not start")


# ---------------------------------------------------------------------------- 3. TVs on a year

WATCHDOG_USEC = 100_000  # a beat every 50 ms from the venue's loop


def fill(db: Path, n: int, code: str | None) -> float:
    """The venue database filled with `n` results by the store of `code` (this checkout by
    default); the seconds it took."""
    script = ("import sys, time, importlib.util\n"
              f"spec = importlib.util.spec_from_file_location('venue_year', {str(Path(__file__).with_name('venue_year.py'))!r})\n"
              "year = importlib.util.module_from_spec(spec); spec.loader.exec_module(year)\n"
              "year_results = year.year_results\n"
              "from panel.venue.store import VenueStore\n"
              "n, now = int(sys.argv[2]), time.time()\n"
              "with VenueStore(sys.argv[1]) as s:\n"
              "    rows = year_results(n, now, days=365.0 if n > 1000 else 0.5)\n"
              "    if hasattr(s, 'add_results'):\n"
              "        batch = []\n"
              "        for r in rows:\n"
              "            batch.append(r)\n"
              "            if len(batch) == 5000:\n"
              "                s.add_results(batch); batch = []\n"
              "        s.add_results(batch)\n"
              "    else:\n"
              "        s._db.execute('PRAGMA synchronous=OFF')\n"
              "        for r, at in rows:\n"
              "            s.add_result(r, at)\n")
    t0 = time.perf_counter()
    here = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [code, here]))}
    # Run from the database's folder: the checkout's own folder first on sys.path would win.
    subprocess.run([sys.executable, "-c", script, str(db), str(n)], check=True, env=env, cwd=db.parent)
    return time.perf_counter() - t0


class Beats:
    """The venue's watchdog beats (benchmarks/watchdog.py) and the largest gap between two."""

    def __init__(self, path: Path):
        self.path = str(path)
        self.sock = notify_socket(self.path)
        self.last: float | None = None
        self.gap = 0.0

    def read(self) -> None:
        for now in beats(self.sock):
            if self.last is not None:
                self.gap = max(self.gap, now - self.last)
            self.last = now

    def reset(self) -> None:
        self.read()
        self.gap = 0.0


def start_watched_venue(broker: Mosquitto, tmp: Path, db: Path, code: str | None,
                        beats: Beats) -> tuple[subprocess.Popen, str]:
    settings = tmp / f"venue-{db.stem}.toml"
    settings.write_text(f'[venue]\npin = "1357"\n[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\n'
                        f'username = "venue"\npassword = "{broker.passwords["venue"]}"\n')
    here = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "NOTIFY_SOCKET": beats.path, "WATCHDOG_USEC": str(WATCHDOG_USEC),
           "PYTHONPATH": os.pathsep.join(filter(None, [code, here]))}
    proc = subprocess.Popen([sys.executable, "-m", "panel", "venue", "--host", "127.0.0.1", "--port", "0",
                             "--db", str(db), "--settings", str(settings)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=tmp)
    for line in proc.stdout:
        m = re.search(r"venue board on (http://\S+?)/ ", line)
        if m:
            return proc, m.group(1)
    raise SystemExit("the venue did not start")


async def tvs(base: str, path: str, n_tvs: int, each: int, beats: Beats) -> list[float]:
    """`n_tvs` TVs, each on its own connection, asking `path` `each` times as fast as it is answered."""
    samples: list[float] = []

    async def tv() -> None:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) as s:
            for _ in range(each):
                t0 = time.perf_counter()
                async with s.get(base + path) as r:
                    await r.read()
                samples.append(time.perf_counter() - t0)
                beats.read()

    await asyncio.gather(*(tv() for _ in range(n_tvs)))
    beats.read()
    return samples


def year_of_tvs(broker: Mosquitto, tmp: Path, *, results: int, each: int, code: str | None) -> None:
    for label, n in (("a day", 450), ("a year", results)):
        db = tmp / f"tv-{n}.db"
        took = fill(db, n, code)
        print(f"venue database: {n:,} results ({label}) filled in {took:.1f} s")
        beats = Beats(tmp / f"notify-{n}.sock")
        proc, base = start_watched_venue(broker, tmp, db, code, beats)
        try:
            asyncio.run(tvs(base, "/api/venue", 1, 3, beats))  # warm: the first board is made at start
            beats.reset()
            floor = asyncio.run(tvs(base, "/nothing", 20, each, beats))
            floor_gap, _ = beats.gap, beats.reset()
            samples = asyncio.run(tvs(base, "/api/venue", 20, each, beats))
            print(summary(f"/api/venue, 20 TVs at once, {label}", samples, floor, unit="ms"))
            print(f"  the venue loop's largest gap between watchdog beats (every {WATCHDOG_USEC / 2e6:g} s): "
                  f"{beats.gap:.3f} s asked for the board, {floor_gap:.3f} s asked for the floor")
        finally:
            proc.terminate()
            proc.wait()
            proc.stdout.close()
            beats.sock.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--round-trips", type=int, default=500)
    ap.add_argument("--samples", type=int, default=200, help="leaderboard updates measured per fleet size (about)")
    ap.add_argument("--presses", type=int, default=600, help="presses per mode (bridge off, on, outage)")
    ap.add_argument("--fleets", default="1,20,100")
    ap.add_argument("--press-dir", default=None, help="where the pressed cockpit's SQLite file goes (default: "
                                                       "the system's temporary folder, a disk like a cockpit's)")
    ap.add_argument("--year-results", type=int, default=164_000, help="results in the year's database")
    ap.add_argument("--tv-requests", type=int, default=50, help="requests per TV (20 TVs)")
    ap.add_argument("--year-code", default=None, help="run the year's venue from this checkout (its PYTHONPATH)")
    ap.add_argument("--only", choices=("year",), default=None, help="run only the TVs on a year of results")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="pp-venue-bench-", dir="/dev/shm" if Path("/dev/shm").is_dir() else None))
    sizes = [int(x) for x in args.fleets.split(",")]
    with Mosquitto(tmp / "broker", cockpits=[f"c{i:03d}" for i in range(1, max(sizes) + 1)]) as broker:
        if args.only == "year":
            year_of_tvs(broker, tmp, results=args.year_results, each=args.tv_requests, code=args.year_code)
            return 0
        floor = asyncio.run(bare_round_trips(broker, args.round_trips))
        print(summary("bare MQTT round trip (QoS 1, 2 connections)", floor, unit="ms"))
        venue, base = start_venue(broker, tmp)
        try:
            for n in sizes:
                rounds = max(1, args.samples // n)
                samples = asyncio.run(leaderboard_latency(broker, base, tmp, n, rounds))
                print(summary(f"end -> venue leaderboard, {n} cockpit{'s' if n > 1 else ''} at once", samples, floor,
                              unit="ms"))
        finally:
            venue.terminate()
            venue.wait()
        press_dir = Path(tempfile.mkdtemp(prefix="pp-press-", dir=args.press_dir))
        presses = asyncio.run(press_latency(broker, press_dir, args.presses))
        year_of_tvs(broker, tmp, results=args.year_results, each=args.tv_requests, code=args.year_code)
    print(summary("press -> engine, bridge off", presses["off"], unit="ms"))
    print(summary("press -> engine, bridge on", presses["on"], presses["off"], unit="ms"))
    print(summary("press -> engine, bridge on, broker down", presses["outage"], presses["off"], unit="ms"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
