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

    .venv/bin/python benchmarks/cpu.py [--seconds 30] [--builds sim,small,reference]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import aiohttp  # noqa: E402

PIN = "2468"
TEAMS = [{"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy", "Di"]}]


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


def serve_build(build: str, db: str, settings: str, port: str | None) -> None:
    """The service's own serve() for a build, on MockPins and a FakeStrip (no board here)."""
    os.environ["GPIOZERO_PIN_FACTORY"] = "mock"
    os.environ["GPIOZERO_MOCK_PIN_CLASS"] = "mockpwmpin"  # the buzzer needs PWM
    # the knob's state file and the calibration beside the database, not in the home folder
    os.environ["PENGUIN_PANEL_CALIBRATION"] = str(Path(db).with_name("calibration.toml"))
    import panel.hardware.devices as devices
    from panel.hardware.leds import FakeStrip
    from panel.hardware.map import MAPS_DIR
    from panel.run import Options, resolve, serve

    devices.open_strip = lambda config, sim=False: FakeStrip(config.count, keep=1)
    hardware = str(MAPS_DIR / f"{build}.toml")
    if port:  # the reference map's Pico on the emulated board's pty
        text = Path(hardware).read_text().replace('port = "/dev/ttyACM0"', f'port = "{port}"')
        hardware = str(Path(db).with_name("map.toml"))
        Path(hardware).write_text(text)
    asyncio.run(serve(resolve(Options(db=db, host="127.0.0.1", port=0, settings=settings, hardware=hardware))))


class Emulator:
    """The reference build's Pico: `penguin-panel firmware emulator` in a process of its own."""

    def __init__(self, folder: Path):
        from panel.hardware.map import MAPS_DIR, load_map

        config = folder / "board.json"
        config.write_text(json.dumps(load_map(MAPS_DIR / "reference.toml").board().firmware_config))
        self.p = subprocess.Popen([sys.executable, "-m", "panel", "firmware", "emulator", "--config", str(config)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        m = re.search(r"emulated board on (\S+)", line)
        if not m:
            raise SystemExit(f"the emulated board did not start: {line!r}")
        self.port = m.group(1)

    def close(self) -> None:
        self.p.stdin.write("quit\n")
        self.p.stdin.flush()
        self.p.wait(30)


async def pages_in_a_turn(base: str, seconds: float, pid: int) -> tuple[float, int]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        async with s.post(base + "/api/admin/login", json={"pin": PIN}) as r:
            h = {"X-CSRF-Token": (await r.json())["csrf"]}
        async with s.post(base + "/api/admin/match", headers=h,
                          json={"teams": TEAMS, "turn_seconds": 600, "seed": 1}) as r:
            code = (await r.json())["code"]
        async with s.post(base + "/api/admin/action", headers=h, json={"action": "start_turn"}) as r:
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


def measure(build: str, folder: Path, seconds: float) -> dict[str, tuple[float, int]]:
    settings = folder / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')
    db = folder / f"{build}.db"
    emu = Emulator(folder) if build == "reference" else None
    if build == "sim":
        cmd = [sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--db", str(db), "--settings", str(settings)]
    else:
        cmd = [sys.executable, __file__, "--serve", build, str(db), str(settings), emu.port if emu else ""]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
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
        idle = (cpu1 - cpu0, sw1 - sw0)
        turn = asyncio.run(pages_in_a_turn(base, seconds, p.pid))
        return {"idle, no match, no page": idle, "in a turn, 3 pages": turn}
    finally:
        p.terminate()
        p.wait(30)
        if emu is not None:
            emu.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="each window (default 30 s)")
    ap.add_argument("--builds", default="sim,small,reference")
    ap.add_argument("--serve", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.serve:
        build, db, settings, port = args.serve
        serve_build(build, db, settings, port or None)
        return 0
    print(f"the service's CPU (all its threads, % of one core) and wake-ups, over {args.seconds:g} s windows")
    with tempfile.TemporaryDirectory() as d:
        for build in args.builds.split(","):
            for window, (cpu, switches) in measure(build, Path(d), args.seconds).items():
                print(f"  {build:<10} {window:<26} CPU {cpu / args.seconds * 100:6.3f} %   "
                      f"wake-ups {switches / args.seconds:7.1f}/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
