"""Benchmark of the cockpit service (run on demand: python -m benchmarks.service).

1. Start-up: from launching `penguin-panel play --sim` to the "serving on" line, and to
   the first answered GET /api/state (p50/p99 of several starts, each on a new database).
2. Press to scoreboard: a simulated press (POST /api/sim/input) until the board's
   WebSocket receives the state that shows it (logged to SQLite with a full sync first);
   the floor is a bare GET /api/state round trip to the same server.
3. Memory: resident set of the service after a 30-minute match played at 30x speed (the
   service's own code with an accelerated clock, a crew playing every card over HTTP and
   a board, a sim and a tower page connected), against its resident set when ready.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from benchmarks.stats import summary

PIN = "2468"
TEAMS = [{"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy", "Di"]}]


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def start_cli(db: Path, settings: Path) -> tuple[subprocess.Popen, str, float, float]:
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--db", str(db),
                          "--settings", str(settings)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout:
        m = re.search(r"serving on (http://\S+?)/ ", line)
        if m:
            ready = time.perf_counter() - t0
            base = m.group(1)
            import urllib.request
            urllib.request.urlopen(base + "/api/state").read()
            return p, base, ready, time.perf_counter() - t0
    raise SystemExit("the service did not start")


async def login(session: aiohttp.ClientSession, base: str) -> dict:
    async with session.post(base + "/api/admin/login", json={"pin": PIN}) as r:
        return {"X-CSRF-Token": (await r.json())["csrf"]}


async def press_to_board(base: str, presses: int) -> tuple[list[float], list[float]]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        h = await login(s, base)
        async with s.post(base + "/api/admin/match", headers=h, json={"teams": TEAMS, "seed": 1}) as r:
            assert r.status == 200, await r.text()
        ws = await s.ws_connect(base.replace("http", "ws") + "/ws?view=board")
        samples, floor = [], []
        values = ["0", "1"]
        for i in range(presses):
            value = values[(i + 1) % 2]
            t0 = time.perf_counter()
            post = asyncio.create_task(s.post(base + "/api/sim/input", json={"control": "slider.blue", "value": value}))
            while True:
                msg = json.loads((await ws.receive()).data)
                if msg["type"] == "state" and msg["state"]["positions"].get("slider.blue") == value:
                    break
            samples.append(time.perf_counter() - t0)
            (await post).release()
            t0 = time.perf_counter()
            async with s.get(base + "/api/state") as r:
                await r.read()
            floor.append(time.perf_counter() - t0)
        await ws.close()
        return samples, floor


# ---------------------------------------------------------------- the 30-minute match

def section_roles(layout: dict) -> tuple[dict, str | None]:
    """From GET /api/layout: each section's {role: control id}, and the keypad section's id."""
    roles = {sec["id"]: {c["role"]: c["id"] for c in layout["controls"] if c["id"] in sec["controls"] and c.get("role")}
             for sec in layout["sections"]}
    return roles, next((sec["id"] for sec in layout["sections"] if sec["kind"] == "keypad"), None)


def card_inputs(card: dict, roles: dict, keypad: str | None) -> list[tuple[str, bool | str]]:
    """What the crew does for a card the tower sees: (control, value) in order."""
    if card["kind"] == "simple":
        return [(b, True) for b in card.get("press", [])] + list(card.get("set", {}).items())
    sec = card.get("section") or keypad
    steps = card.get("steps") or list(card.get("word", ""))
    return [(roles[sec].get(x), True) for x in steps] + [(roles[sec].get("ok"), True)]


def accelerated_service(db: str, port_queue, rate: float) -> None:
    """The service's own code, in its own process, with match time running `rate`x fast."""
    from panel.web.app import build_app
    from panel.service.cockpit import Cockpit
    from panel.server import event_loop
    from panel.server.guard import ConnectionGuard, bind, start_serving
    from panel.server.security import Security
    from panel.storage.store import Store

    start = time.monotonic()

    def clock() -> float:
        return start + (time.monotonic() - start) * rate

    async def main() -> None:
        with Store(db) as store:
            security = Security(store)
            security.set_pin(PIN)
            cockpit = Cockpit(store, sim=True, clock=clock, tick=0.25)
            await cockpit.start()
            sock = bind("127.0.0.1", 0)
            await start_serving(build_app(cockpit, security, sim=True), sock, ConnectionGuard())
            port_queue.put(sock.getsockname()[1])
            await asyncio.Event().wait()

    event_loop.run(main())  # (the loop the service runs on)


async def play_for(base: str, match_seconds: float, rate: float) -> dict:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as s:
        h = await login(s, base)
        pages = [await s.ws_connect(base.replace("http", "ws") + f"/ws?view={v}") for v in ("board", "sim")]

        async def drain(ws):
            async for _ in ws:
                pass

        drains = [asyncio.create_task(drain(ws)) for ws in pages]
        async with s.get(base + "/api/layout") as r:
            roles, keypad = section_roles(await r.json())
        t_end = time.monotonic() + match_seconds / rate
        matches = inputs = 0
        code = None
        while time.monotonic() < t_end:
            async with s.get(base + "/api/state") as r:
                st = await r.json()
            if st["match_id"] is None or st["status"] != "active" or st["phase"] == "finished":
                async with s.post(base + "/api/admin/match", headers=h,
                                  json={"teams": TEAMS, "seed": matches, "target_points": 40}) as r:
                    code = (await r.json())["code"]
                matches += 1
                drains.append(asyncio.create_task(drain(
                    await s.ws_connect(base.replace("http", "ws") + f"/ws?view=tower&code={code}"))))
                continue
            if st["phase"] == "between_turns":
                async with s.post(base + "/api/admin/action", headers=h, json={"action": "start_turn"}) as r:
                    await r.read()
                continue
            if st["phase"] == "paused":
                async with s.post(base + "/api/admin/action", headers=h, json={"action": "resume"}) as r:
                    await r.read()
                continue
            async with s.get(base + f"/api/tower?code={code}") as r:
                card = (await r.json()).get("card")
            if not card:
                await asyncio.sleep(0.02)
                continue
            for control, value in card_inputs(card, roles, keypad):
                async with s.post(base + "/api/sim/input", json={"control": control, "value": value}) as r:
                    await r.read()
                inputs += 1
                await asyncio.sleep(0.6 / rate)  # a human-ish gap, accelerated
        for ws in pages:
            await ws.close()
        for d in drains:
            d.cancel()
        return {"matches": matches, "inputs": inputs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=5)
    ap.add_argument("--presses", type=int, default=300)
    ap.add_argument("--match-minutes", type=float, default=30.0)
    ap.add_argument("--rate", type=float, default=30.0)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="pp-bench-"))
    settings = tmp / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')

    ready, answered = [], []
    for i in range(args.starts):
        p, base, r1, r2 = start_cli(tmp / f"start{i}.db", settings)
        ready.append(r1)
        answered.append(r2)
        p.terminate()
        p.wait()
    print(summary("start-up to 'serving on' line", ready, unit="ms"))
    print(summary("start-up to first answered GET /api/state", answered, unit="ms"))

    p, base, _, _ = start_cli(tmp / "latency.db", settings)
    try:
        samples, floor = asyncio.run(press_to_board(base, args.presses))
    finally:
        p.terminate()
        p.wait()
    print(summary("press -> board socket update (logged first)", samples, floor, unit="ms"))

    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    child = ctx.Process(target=accelerated_service, args=(str(tmp / "soak.db"), q, args.rate), daemon=True)
    child.start()
    port = q.get(timeout=60)
    before = rss_kib(child.pid)
    played = asyncio.run(play_for(f"http://127.0.0.1:{port}", args.match_minutes * 60, args.rate))
    after = rss_kib(child.pid)
    child.terminate()
    child.join()
    print(f"resident memory: {before / 1024:.1f} MiB when ready, {after / 1024:.1f} MiB after "
          f"{args.match_minutes:g} min of match time at {args.rate:g}x ({played['matches']} matches, "
          f"{played['inputs']} presses); ratio {after / before:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
