#!/usr/bin/env python3
"""What the service costs the processor when nothing happens and while a turn runs, for the
simulator, the small build and the reference build.

The service runs in a process of its own: `penguin-panel play --sim` as the README starts
it, or, for a build, the same `serve()` with its map's Pi side on gpiozero MockPins and its
pixels on a FakeStrip (the reference build's Pico: the real firmware loop on an emulated
board behind a pty, in a third process, so its 1 kHz scan is not counted). Measured from
outside, over a window of --seconds each: the CPU time of all the service's threads
(/proc/PID/task/*/schedstat, nanoseconds) as a per cent of one core, and its wake-ups (the
threads' context switches, /proc/PID/task/*/status) per second.

  idle      no match, no page connected: nothing should wake
  in a turn a turn running (a 600 s turn, so it runs the whole window), three pages
            connected over WebSockets (two boards and the tower), the crew's hands still
  a Kaboom mission  a mission running (10 min a penguin), the same three pages: its clock
            ring redrawn on its 20 frames a second, the pages told four times a second

With each window, the service's resident memory (VmRSS) at its end. With --cpu-budget SHARE
the service runs inside that share of one core (benchmarks/budget.py; the emulated Pico
outside it), and the CPU is also said as a share of the budget.

    .venv/bin/python benchmarks/cpu.py [--seconds 30] [--builds sim,small,reference] [--cpu-budget 0.125]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

from benchmarks.budget import CpuBudget  # noqa: E402
from benchmarks.pico_process import PicoProcess  # noqa: E402

PIN = "2468"
TEAMS = [{"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy", "Di"]}]
MISSION = {"game": "kaboom", "players": ["red", "blue", "white"], "mission": "custom", "seed": 1,
           "custom": {"time_per_player": 600, "alert_seconds": 600, "recharge_seconds": 20,
                      "recharge_above_start": False}}


def cpu_and_wakeups(pid: int) -> tuple[float, int]:
    """(seconds of CPU, context switches) of every thread of the process, so far."""
    ns = switches = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ns += int((task / "schedstat").read_text().split()[0])
            for line in (task / "status").read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    switches += int(line.split()[1])
        except (OSError, ValueError, IndexError):  # a thread that ended meanwhile
            continue
    return ns / 1e9, switches


def resident_mib(pid: int) -> float:
    """The process's resident memory now (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def serve_build(build: str, db: str, settings: str, port: str | None) -> None:
    """The service's own serve() for a build, on MockPins and a FakeStrip (no board here)."""
    os.environ["GPIOZERO_PIN_FACTORY"] = "mock"
    os.environ["GPIOZERO_MOCK_PIN_CLASS"] = "mockpwmpin"  # the buzzer needs PWM
    # the knob's state file and the calibration beside the database, not in the home folder
    os.environ["PENGUIN_PANEL_CALIBRATION"] = str(Path(db).with_name("calibration.toml"))
    import panel.hardware.devices as devices
    from benchmarks.pi_spi import use_hardware_spi

    use_hardware_spi()  # the Pi's SPI's cost, not the mock's bit-banging
    from panel.hardware.leds import FakeStrip
    from panel.hardware.map import MAPS_DIR
    from panel.run import Options, resolve, serve
    from panel.server import event_loop

    devices.open_strip = lambda config, sim=False: FakeStrip(config.count, keep=1)
    hardware = str(MAPS_DIR / f"{build}.toml")
    if port:  # the reference map's Pico on the emulated board's pty
        text = Path(hardware).read_text().replace('port = "/dev/ttyACM0"', f'port = "{port}"')
        hardware = str(Path(db).with_name("map.toml"))
        Path(hardware).write_text(text)
    event_loop.run(serve(resolve(Options(db=db, host="127.0.0.1", port=0, settings=settings, hardware=hardware))))


def pico(folder: Path, budget: CpuBudget) -> PicoProcess:
    """The reference build's Pico in a process of its own, outside the budget."""
    from panel.hardware.map import MAPS_DIR, load_map

    config = load_map(MAPS_DIR / "reference.toml").board().firmware_config
    return PicoProcess(folder, config, preexec_fn=budget.elevate)


async def pages_in_play(base: str, seconds: float, pid: int, *, match: dict, start: str) -> tuple[float, int] | None:
    """CPU and wake-ups over the window while `match` is played (started with `start`),
    three pages connected; None when this build cannot play it."""
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        async with s.post(base + "/api/admin/login", json={"pin": PIN}) as r:
            h = {"X-CSRF-Token": (await r.json())["csrf"]}
        async with s.post(base + "/api/admin/action", headers=h, json={"action": "abandon"}):
            pass  # the window before's match, if any
        async with s.post(base + "/api/admin/match", headers=h, json=match) as r:
            if r.status != 200:
                return None
            code = (await r.json())["code"]
        async with s.post(base + "/api/admin/action", headers=h, json={"action": start}) as r:
            assert r.status == 200, await r.text()
        ws_base = base.replace("http", "ws")
        pages = [await s.ws_connect(f"{ws_base}/ws?view={v}") for v in ("board", "board", f"tower&code={code}")]
        received = [0]

        async def drain(ws):
            async for _ in ws:
                received[0] += 1

        tasks = [asyncio.create_task(drain(ws)) for ws in pages]
        await asyncio.sleep(2.0)  # settled: the pages have their first messages
        cpu0, sw0 = cpu_and_wakeups(pid)
        await asyncio.sleep(seconds)
        cpu1, sw1 = cpu_and_wakeups(pid)
        for t in tasks:
            t.cancel()
        for ws in pages:
            await ws.close()
        return cpu1 - cpu0, sw1 - sw0


def measure(build: str, folder: Path, seconds: float, budget: CpuBudget) -> dict[str, tuple[float, int, float]]:
    """{window: (CPU seconds, wake-ups, resident MiB at its end)}."""
    settings = folder / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')
    db = folder / f"{build}.db"
    emu = pico(folder, budget) if build == "reference" else None
    if build == "sim":
        cmd = [sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--db", str(db), "--settings", str(settings)]
    else:
        cmd = [sys.executable, __file__, "--serve", build, str(db), str(settings), emu.port if emu else ""]
    p = subprocess.Popen(budget.command(cmd), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         preexec_fn=budget.enter)
    try:
        for line in p.stdout:
            m = re.search(r"serving on (http://\S+?)/ ", line)
            if m:
                base = m.group(1)
                break
        else:
            raise SystemExit(f"the {build} service did not start")
        time.sleep(3.0)  # past the start-up's own work (the first publish, the board's handshake)
        cpu0, sw0 = cpu_and_wakeups(p.pid)
        time.sleep(seconds)
        cpu1, sw1 = cpu_and_wakeups(p.pid)
        idle = (cpu1 - cpu0, sw1 - sw0, resident_mib(p.pid))
        out = {"idle, no match, no page": idle}
        for window, match, start in (("in a turn, 3 pages", {"teams": TEAMS, "turn_seconds": 600, "seed": 1},
                                      "start_turn"),
                                     ("a Kaboom mission, 3 pages", MISSION, "start")):
            got = asyncio.run(pages_in_play(base, seconds, p.pid, match=match, start=start))
            out[window] = None if got is None else (*got, resident_mib(p.pid))
        return out
    finally:
        p.terminate()
        p.wait(30)
        if emu is not None:
            emu.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="each window (default 30 s)")
    ap.add_argument("--builds", default="sim,small,reference")
    ap.add_argument("--cpu-budget", type=float, default=None, metavar="SHARE",
                    help="run the service on this share of one core (e.g. 0.125, a Pi Zero 2 W's stand-in)")
    ap.add_argument("--serve", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        build, db, settings, port = args.serve
        serve_build(build, db, settings, port or None)
        return 0
    with CpuBudget(args.cpu_budget) as budget, tempfile.TemporaryDirectory() as d:
        print(f"the service's CPU (all its threads, % of one core), wake-ups and resident memory, over "
              f"{args.seconds:g} s windows; {budget.describe()}")
        for build in args.builds.split(","):
            for window, got in measure(build, Path(d), args.seconds, budget).items():
                if got is None:
                    print(f"  {build:<10} {window:<26} (this build cannot play it)")
                    continue
                cpu, switches, rss = got
                share = (f"  {cpu / args.seconds / budget.share * 100:5.1f} % of the budget"
                         if budget.held else "")
                print(f"  {build:<10} {window:<26} CPU {cpu / args.seconds * 100:6.3f} %{share}   "
                      f"wake-ups {switches / args.seconds:7.1f}/s   resident {rss:5.1f} MiB")
            if budget.held:
                print(f"  (budget so far: {budget.throttled()})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
