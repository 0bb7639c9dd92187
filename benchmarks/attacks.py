"""The attacks of issue 11 against the real service, with the figures after the fixes
(run on demand: .venv/bin/python -m benchmarks.attacks).

The service is run.serve (the code of `penguin-panel play --sim`) in its own process,
with systemd's 1,024 descriptors (its default without LimitNOFILE) and its notify socket
and watchdog emulated (WATCHDOG=1 every 0.5 s from the loop, so the largest gap between
two is the loop's worst stall plus 0.5 s). Attackers come from other loopback addresses
(the whole 127/8 is this machine).

1. Idle and half-sent connections: 1,100 from 100 addresses; how many the service holds,
   and GET /api/state from another address meanwhile (p50/p99 against the same request
   with nobody attacking, measured first).
2. A login flood: 600 wrong PINs at once from 600 addresses; how many were hashed, the
   answers, and the largest watchdog gap.
3. Rotating addresses for a minute: wrong PINs as fast as the service answers; guesses
   that reached the PIN check per minute.
4. Hostile bodies on every JSON endpoint: the answers.
"""

from __future__ import annotations

import asyncio
import resource
import socket
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

from benchmarks.soak import PIN, Service
from benchmarks.stats import summary

HALF = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def state_rtt(base: str, n: int) -> list[float]:
    import urllib.request

    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        urllib.request.urlopen(base + "/api/state", timeout=30).read()
        out.append(time.perf_counter() - t0)
    return out


def connections(svc: Service) -> None:
    floor = state_rtt(svc.base, 50)
    socks, probes = [], []
    for i in range(1100):
        s = socket.socket()
        s.bind((f"127.1.{i % 100}.1", 0))
        s.connect(("127.0.0.1", svc.port))
        if i % 2:
            s.sendall(HALF)
        socks.append(s)
        if i % 20 == 19:
            probes += state_rtt(svc.base, 1)
    held = 0
    for s in socks:
        s.setblocking(False)
        try:
            s.recv(1)  # b"" or an error: the service closed it
        except BlockingIOError:
            held += 1  # still open, nothing to read
        except OSError:
            pass
        s.close()
    print(f"1. 1,100 idle or half-sent connections from 100 addresses: {held} held open at the end "
          f"(the rest closed, oldest waiting first), /api/state answered {len(probes)} of {len(probes)} times")
    print("   " + summary("GET /api/state during the attack", probes, floor, unit="ms"))


async def _login(base: str, address: str, pin: str) -> int:
    """The answer's status, or 0 when the connection was closed (the guard's limit)."""
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0))) as s:
            async with s.post(base + "/api/admin/login", json={"pin": pin}) as r:
                await r.read()
                return r.status
    except aiohttp.ClientError:
        return 0


def login_flood(svc: Service) -> None:
    svc.beats()
    svc.segments[-1]["gap"] = 0.0
    t0 = time.monotonic()

    async def flood():
        return await asyncio.gather(*(_login(svc.base, f"127.2.{i // 250}.{1 + i % 250}", "000000")
                                      for i in range(600)))
    statuses = asyncio.run(flood())
    took = time.monotonic() - t0
    time.sleep(1.2)  # two more beats, so the gap after the flood is seen
    svc.beats()
    print(f"2. 600 wrong PINs at once from 600 addresses: {statuses.count(403)} checked (403), "
          f"{statuses.count(429)} refused before hashing (429), {statuses.count(0)} closed by the connection limit, "
          f"other {len(statuses) - statuses.count(403) - statuses.count(429) - statuses.count(0)}; "
          f"all answered in {took:.2f} s; largest watchdog gap {svc.segments[-1]['gap']:.2f} s (a beat every 0.5 s)")


def rotating(svc: Service, seconds: float) -> None:
    async def attack():
        checked = refused = 0
        i = 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            status = await _login(svc.base, f"127.3.{(i // 250) % 250}.{1 + i % 250}", "111111")
            checked += status == 403
            refused += status == 429
            i += 1
        return checked, refused, i
    checked, refused, tried = asyncio.run(attack())
    svc.beats()
    print(f"3. rotating addresses for {seconds:g} s: {tried} tries, {checked} reached the PIN check "
          f"({checked / seconds * 60:.1f} a minute; the budget, 30 per 10 minutes from all addresses together, "
          f"is what 2. spent), {refused} refused with 429")


def bodies(svc: Service) -> None:
    import urllib.error
    import urllib.request

    hostile = {"5,000-digit integer": b'{"pin": ' + b"7" * 5000 + b"}",
               "nested 30,000 deep": b'{"teams": ' + b"[" * 30000 + b"]" * 30000 + b"}"}
    out = []
    for path in ("/api/admin/login", "/api/admin/match", "/api/admin/action", "/api/admin/settings", "/api/sim/input"):
        for name, raw in hostile.items():
            req = urllib.request.Request(svc.base + path, data=raw, method="POST",
                                         headers={"Content-Type": "application/json"})
            try:
                status = urllib.request.urlopen(req, timeout=30).status
            except urllib.error.HTTPError as e:
                status = e.code
            out.append(status)
    print(f"4. a 5,000-digit integer and 30,000-deep nesting on the five JSON endpoints: answers "
          f"{sorted(set(out))} (400 where the body is read without a session: login, sim input; 403 where a "
          f"session comes first; with one, all five say 400: tests/test_app.py)")


def main() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
    tmp = Path(tempfile.mkdtemp(prefix="pp-attacks-"))
    svc = Service(tmp, 1.0)
    # The unit's default without LimitNOFILE: 1,024 descriptors.
    svc.start(preexec=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024)))
    try:
        connections(svc)
        login_flood(svc)
        rotating(svc, 60.0)
        bodies(svc)
    finally:
        svc.stop()
    svc.log.seek(0)
    text = svc.log.read()
    print(f"service log: {len(text.splitlines())} lines, {text.count('Traceback')} tracebacks:")
    for line in text.splitlines():
        print("   " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
