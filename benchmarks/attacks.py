"""The attacks of issues 11 and 24 against the real servers, with their figures (run on
demand: .venv/bin/python -m benchmarks.attacks [--only NAME ...] [--list]).

The cockpit is run.serve (the code of `penguin-panel play --sim`) in its own process,
with systemd's 1,024 descriptors (its default without LimitNOFILE) and its notify socket
and watchdog emulated (WATCHDOG=1 every 0.5 s from the loop, so the largest gap between
two is the loop's worst stall plus 0.5 s). The venue is `penguin-panel venue` in its own
process, its broker away (its pages serve without it). Attackers come from other loopback
addresses (the whole 127/8 is this machine: 127.0.x.y are the café's other devices; only
127.0.0.1 and ::1 are "this computer").

Each attack is a named section in ATTACKS: a function given the running servers (a
`Targets`) that prints its own lines. Another section is one more entry in the list.

Issue 11 (the figures after its fixes):
  idle-heads, login-flood, rotating-pins, hostile-bodies.
Issue 24 (the HTTP side), each with the connections held by 20 and 100 addresses:
  websockets, keep-alive, slow-bodies (on the cockpit and on the venue): the newcomer's
    GET answered %, its latency p50/p99 beside the same request with nobody attacking
    (the floor), the attackers' 5xx, the service log's tracebacks;
  one-phone-pins, many-addresses-pins: can the game master sign in;
  client-input: non-ASCII secrets, requests dropped mid-body (tracebacks, log lines);
  smaller: a gigabyte of chunked body, the venue's 413, a 20,000-character Kaboom name.
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
import json
import os
import re
import subprocess
import threading
from dataclasses import dataclass, field
from typing import Callable

from benchmarks.attack_broker import SECTIONS as BROKER_SECTIONS, run as broker_run
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


def connections(t: "Targets") -> None:
    svc = t.cockpit
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


def login_flood(t: "Targets") -> None:
    svc = t.cockpit
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


def rotating(t: "Targets", seconds: float = 20.0) -> None:
    svc = t.cockpit
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
          f"({checked / seconds * 60:.1f} a minute; the cockpit-wide budget is what 2. spent), {refused} refused with 429")


def bodies(t: "Targets") -> None:
    svc = t.cockpit
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


# ---------------------------------------------------------------------------- the servers

VENUE_PIN = "97531"
NEWCOMER = "127.0.0.200"  # a device of the café's that was not there before the attack
WS_HEAD = (b"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


class Venue:
    """`penguin-panel venue` in its own process, with systemd's 1,024 descriptors; its broker
    is away (nobody listens on the port its settings name): its pages serve regardless."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            away = s.getsockname()[1]
        (tmp / "venue.toml").write_text(f'[venue]\npin = "{VENUE_PIN}"\n[mqtt]\nhost = "127.0.0.1"\nport = {away}\n')
        self.log = open(tmp / "venue.log", "w+")

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "panel", "venue", "--settings", str(self.tmp / "venue.toml"), "--host", "127.0.0.1",
             "--port", "0", "--db", str(self.tmp / "venue.db")], stdout=subprocess.PIPE, stderr=self.log, text=True,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024)))
        for line in self.proc.stdout:
            m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if m:
                self.port = int(m.group(1))
                self.base = f"http://127.0.0.1:{self.port}"
                return
        raise SystemExit(f"the venue did not start (exit {self.proc.wait()}); see {self.log.name}")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)
        self.proc.stdout.close()


@dataclass
class Server:
    """One server as the attacks see it: its port, the GET a newcomer asks, its log."""
    name: str
    port: int
    probe: str
    log: object
    login: str = "/api/admin/login"

    def log_mark(self) -> int:
        self.log.flush()
        return os.path.getsize(self.log.name)

    def log_since(self, mark: int) -> str:
        with open(self.log.name, errors="replace") as f:
            f.seek(mark)
            return f.read()


def start_cockpit() -> Service:
    svc = Service(Path(tempfile.mkdtemp(prefix="pp-attacks-")), 1.0)
    # The unit's default without LimitNOFILE: 1,024 descriptors.
    svc.start(preexec=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024)))
    return svc


@dataclass
class Targets:
    cockpit: Service
    venue: Venue
    sizes: tuple[int, ...] = (20, 100)
    servers: list[Server] = field(default_factory=list)
    logs: list = field(default_factory=list)  # every cockpit's log, for the totals at the end

    def __post_init__(self):
        self.logs.append(self.cockpit.log)
        self.servers = [Server("cockpit", self.cockpit.port, "/api/state", self.cockpit.log),
                        Server("venue", self.venue.port, "/api/venue", self.venue.log)]

    def fresh_cockpit(self) -> None:
        """A new cockpit on a new database: the logins' counts survive a restart, and an
        earlier section's guesses would have spent the ceiling this one measures."""
        self.cockpit.stop()
        self.cockpit = start_cockpit()
        self.__post_init__()


# ---------------------------------------------------------------------------- raw connections

async def open_from(port: int, address: str):
    return await asyncio.open_connection("127.0.0.1", port, local_addr=(address, 0))


async def read_answer(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One answer's status and body (Content-Length or to the end); (0, b"") when closed first."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split()[1])
    m = re.search(rb"content-length: (\d+)", head, re.I)
    body = await reader.readexactly(int(m.group(1))) if m else b""
    return status, body


async def get_once(port: int, path: str, address: str, timeout: float = 3.0) -> int:
    """GET `path` on a new connection from `address`: its status, 0 when refused or unanswered."""
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await open_from(port, address)
            try:
                writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
                return (await read_answer(reader))[0]
            finally:
                writer.close()
    except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError, IndexError):
        return 0


@dataclass
class Tally:
    opened: int = 0
    statuses: dict = field(default_factory=dict)

    def saw(self, status: int) -> None:
        self.statuses[status] = self.statuses.get(status, 0) + 1

    @property
    def server_errors(self) -> int:
        return sum(n for s, n in self.statuses.items() if s >= 500)


async def hold_websocket(server: Server, reader, writer, tally: Tally) -> None:
    writer.write(WS_HEAD.replace(b"{path}", b"/ws?view=board" if server.name == "cockpit" else b"/ws"))
    head = await reader.readuntil(b"\r\n\r\n")
    tally.saw(int(head.split()[1]))
    while await reader.read(65536):  # its news, until the server closes it (never answered: no pongs)
        pass


async def hold_keepalive(server: Server, reader, writer, tally: Tally) -> None:
    while True:  # one GET every 4 s, under the 5 s keep-alive: answered, then idle
        writer.write(f"GET {server.probe} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        tally.saw((await read_answer(reader))[0])
        await asyncio.sleep(4.0)


async def hold_slow_body(server: Server, reader, writer, tally: Tally) -> None:
    writer.write(f"POST {server.login} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                 "Content-Length: 4000\r\n\r\n{\"pin\": \"".encode())
    answer = asyncio.ensure_future(read_answer(reader))
    try:
        while not answer.done():  # a byte a second
            writer.write(b"1")
            await asyncio.wait([answer], timeout=1.0)
    finally:
        if not answer.done():
            answer.cancel()
        await asyncio.gather(answer, return_exceptions=True)  # its exception is the attacker's, said nowhere
    tally.saw(answer.result()[0])


async def attacker(hold, server: Server, address: str, tally: Tally, stop: asyncio.Event) -> None:
    """One connection's worth of attack: held, and opened again whenever it is closed."""
    while not stop.is_set():
        try:
            reader, writer = await open_from(server.port, address)
            tally.opened += 1
            try:
                await hold(server, reader, writer, tally)
            finally:
                writer.close()
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError, asyncio.LimitOverrunError):
            pass
        await asyncio.sleep(RETRY)


async def newcomer(server: Server, n: int) -> tuple[list[float], int]:
    """`n` GETs from NEWCOMER one after the other; (latencies of those answered 200, 5xx seen)."""
    answered, errors = [], 0
    for _ in range(n):
        t0 = time.perf_counter()
        status = await get_once(server.port, server.probe, NEWCOMER)
        if status == 200:
            answered.append(time.perf_counter() - t0)
        errors += status >= 500
        await asyncio.sleep(0.05)
    return answered, errors


HOLDS = {"websockets": hold_websocket, "keep-alive": hold_keepalive, "slow-bodies": hold_slow_body}
PROBES = 60  # the newcomer's GETs during each attack
RETRY = 1.0  # seconds before an attacker opens again a connection closed or refused (it holds, it does not flood)
RAMP = 2.0  # seconds for the attackers to take their connections before the newcomer comes


def served_connections(kind: str) -> Callable[[Targets], None]:
    def attack(t: Targets) -> None:
        for server in t.servers:
            floor, _ = asyncio.run(newcomer(server, 30))
            for n in t.sizes:
                each = 30 if n <= 20 else 10  # 600 or 1,000 connections: more than the 512 served at once
                mark = server.log_mark()

                async def run():
                    stop, tally = asyncio.Event(), Tally()
                    tasks = [asyncio.create_task(attacker(HOLDS[kind], server, f"127.0.{10 + i // 250}.{1 + i % 250}",
                                                          tally, stop)) for i in range(n) for _ in range(each)]
                    await asyncio.sleep(RAMP)
                    answered, errors = await newcomer(server, PROBES)
                    stop.set()
                    for task in tasks:
                        task.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    return answered, errors, tally
                answered, errors, tally = asyncio.run(run())
                log = server.log_since(mark)
                print(f"{kind} on the {server.name}, {n} addresses x {each}: newcomer answered "
                      f"{len(answered)}/{PROBES} = {100 * len(answered) / PROBES:.0f} % (floor >= 95 %); "
                      f"attackers' connections opened {tally.opened}, answers {dict(sorted(tally.statuses.items()))}, "
                      f"5xx {tally.server_errors + errors}; log: {log.count('Traceback')} tracebacks, "
                      f"{len(log.splitlines())} lines")
                if answered:
                    print("   " + summary(f"newcomer GET {server.probe}", answered, floor, unit="ms"))
    return attack


# ---------------------------------------------------------------------------- logins

async def login_status(base: str, address: str, pin: str, jar: aiohttp.CookieJar | None = None) -> int:
    try:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(address, 0)),
                                         cookie_jar=jar if jar is not None else aiohttp.DummyCookieJar()) as s:
            async with s.post(base + "/api/admin/login", json={"pin": pin}) as r:
                await r.read()
                return r.status
    except aiohttp.ClientError:
        return 0


def one_phone_pins(t: Targets, seconds: float = 20.0) -> None:
    """One address sends wrong PINs as fast as it is answered; the game master signs in from
    her phone (another address) every second meanwhile."""
    base = t.cockpit.base

    async def run():
        end = time.monotonic() + seconds
        tries = checked = 0
        gm = []

        async def guest():
            nonlocal tries, checked
            while time.monotonic() < end:
                tries += 1
                checked += await login_status(base, "127.0.3.66", "000000") == 403

        async def game_master():
            while time.monotonic() < end:
                gm.append(await login_status(base, "127.0.3.7", PIN))
                await asyncio.sleep(1.0)
        await asyncio.gather(guest(), game_master())
        return tries, checked, gm
    t.fresh_cockpit()
    base = t.cockpit.base
    tries, checked, gm = asyncio.run(run())
    print(f"one phone's wrong PINs for {seconds:g} s: {tries} tries, {checked} reached the PIN check; the game "
          f"master's right PIN from another address: {gm.count(200)}/{len(gm)} signed in, answers {sorted(set(gm))}")


def many_addresses_pins(t: Targets, seconds: float = 15.0) -> None:
    """20 or 100 addresses send wrong PINs as fast as they are answered; then the game master
    tries from the cockpit's own screen (127.0.0.1), from a phone she signed in with before
    the attack (its paired-device cookie) and from a new phone."""
    for n in t.sizes:
        t.fresh_cockpit()
        base = t.cockpit.base

        async def run():
            jar = aiohttp.CookieJar(unsafe=True)
            before = await login_status(base, "127.0.4.7", PIN, jar)  # her phone, paired
            end = time.monotonic() + seconds
            counts = {}

            async def guest(i):
                while time.monotonic() < end:
                    status = await login_status(base, f"127.0.{20 + i // 250}.{1 + i % 250}", "000000")
                    counts[status] = counts.get(status, 0) + 1
            await asyncio.gather(*(guest(i) for i in range(n)))
            return before, counts, {
                "own screen": await login_status(base, "127.0.0.1", PIN),
                "her paired phone": await login_status(base, "127.0.4.7", PIN, jar),
                "a new phone": await login_status(base, "127.0.4.99", PIN)}
        before, counts, after = asyncio.run(run())
        print(f"{n} addresses' wrong PINs for {seconds:g} s: answers {dict(sorted(counts.items()))}; then the right "
              f"PIN: " + ", ".join(f"{k} {v}" for k, v in after.items()) + f" (her phone's first login: {before})")


# ---------------------------------------------------------------------------- client input

def raw_exchange(port: int, data: bytes, address: str = "127.0.0.1") -> tuple[int, bytes]:
    with socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(address, 0)) as s:
        s.sendall(data)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    head, _, body = got.partition(b"\r\n\r\n")
    m = re.match(rb"HTTP/1\.1 (\d{3})", head)
    return (int(m.group(1)) if m else 0), body


def raw(method: str, path: str, *, body: bytes = b"", headers: bytes = b"") -> bytes:
    return (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".encode() + headers
            + (f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n".encode() if body else b"")
            + b"\r\n" + body)


def session_of(port: int, pin: str) -> tuple[bytes, str]:
    """Sign in from 127.0.0.1: the Cookie header line and the CSRF token."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(raw("POST", "/api/admin/login", body=json.dumps({"pin": pin}).encode()))
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    m = re.search(rb"Set-Cookie: (pp_session=[^;]+)", got)
    if not m:
        return b"", ""
    return b"Cookie: " + m.group(1) + b"\r\n", json.loads(got.partition(b"\r\n\r\n")[2])["csrf"]


def client_input(t: Targets) -> None:
    cockpit, venue = t.servers
    marks = {s.name: s.log_mark() for s in t.servers}
    out = {"cockpit GET /api/tower?code=%C3%A9": raw_exchange(cockpit.port, raw("GET", "/api/tower?code=%C3%A9"))[0]}
    status, body = raw_exchange(cockpit.port, raw("GET", "/ws?view=tower&code=%C3%A9", headers=(
        b"Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n")))
    out["cockpit /ws?view=tower&code=%C3%A9"] = f"{status}, closed {int.from_bytes(body[2:4], 'big') if len(body) >= 4 else '-'}"
    for server, pin, path, payload in ((cockpit, PIN, "/api/admin/action", b'{"action": "pause"}'),
                                       (venue, VENUE_PIN, "/api/admin/command", b'{"cockpit": "c1", "action": "start"}')):
        cookie, _ = session_of(server.port, pin)
        out[f"{server.name} non-ASCII X-CSRF-Token"] = raw_exchange(server.port, raw(
            "POST", path, body=payload, headers=cookie + "X-CSRF-Token: é\r\n".encode()))[0]
    for k, v in out.items():
        print(f"{k}: {v}")
    for n in t.sizes:
        for server in t.servers:
            mark = server.log_mark()
            for i in range(1000):  # a request dropped mid-body, 1,000 times from n addresses
                with socket.create_connection(("127.0.0.1", server.port), timeout=20,
                                              source_address=(f"127.0.{30 + (i % n) // 250}.{1 + (i % n) % 250}", 0)) as s:
                    s.sendall(f"POST {server.login} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                              "Content-Length: 100\r\n\r\n{\"pin\"".encode())
            time.sleep(0.5)  # the server notices the last ones go
            log = server.log_since(mark)
            print(f"1,000 requests dropped mid-body from {n} addresses on the {server.name}: "
                  f"{log.count('Traceback')} tracebacks, {len(log.splitlines())} log lines, {len(log)} bytes of log")
    for server in t.servers:
        log = server.log_since(marks[server.name])
        print(f"the {server.name}'s log over this section: {log.count('Traceback')} tracebacks, "
              f"{len(re.findall(r' 5[0-9][0-9] ', log))} lines naming a 5xx")


def smaller(t: Targets) -> None:
    cockpit, venue = t.servers
    # A gigabyte of chunked body: how much the client could send before the cut.
    s = socket.create_connection(("127.0.0.1", cockpit.port), timeout=20)
    s.sendall(b"POST /api/admin/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"10000\r\n" + b" " * 0x10000 + b"\r\n"
    sent, got, t0, answer_at = 0, b"", time.monotonic(), None
    s.setblocking(False)
    import select
    while sent < 1 << 30:
        readable, writable, _ = select.select([s], [s], [], 20)
        if not (readable or writable):
            break
        if readable:
            try:
                data = s.recv(65536)
            except ConnectionResetError:
                break
            if not data:
                break
            got += data
            if answer_at is None and b"\r\n\r\n" in got:
                answer_at = sent
        if writable:
            try:
                sent += s.send(chunk)
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                break
    s.close()
    print(f"a 1 GB chunked body: answered {got[:12].decode(errors='replace')!r} after {answer_at} bytes sent; "
          f"{sent / 1e6:.1f} MB sent in all before the cut ({time.monotonic() - t0:.2f} s)")
    status, body = raw_exchange(venue.port, raw("POST", "/api/admin/login", body=b'{"pin": "' + b"1" * 5000 + b'"}'))
    print(f"a 5 KB body to the venue: {status} {body.decode(errors='replace')}")
    cookie, csrf = session_of(cockpit.port, PIN)
    match = {"mode": "kaboom", "players": [{"colour": "red", "name": "A" * 20000}, "blue"], "difficulty": "easy",
             "mission": "custom", "seed": 3, "custom": {"time_per_player": 60, "alert_seconds": 30,
                                                        "recharge_seconds": 20, "recharge_above_start": False}}
    status, body = raw_exchange(cockpit.port, raw("POST", "/api/admin/match", body=json.dumps(match).encode(),
                                                  headers=cookie + f"X-CSRF-Token: {csrf}\r\n".encode()))
    print(f"a 20,000-character Kaboom player name: {status} {body.decode(errors='replace')[:160]}")


# ---------------------------------------------------------------------------- the list

def broker_attack(name: str) -> None:
    """One of the broker's attacks (client-id takeover, a flood of results while the venue is
    away, an oversized message), on a Mosquitto of its own; its figures said as it goes."""
    asyncio.run(broker_run(only=(name,)))


@dataclass
class Attack:
    name: str
    run: Callable[[Targets], None]
    issue: int


ATTACKS = [
    Attack("idle-heads", connections, 11),
    Attack("login-flood", login_flood, 11),
    Attack("rotating-pins", rotating, 11),
    Attack("hostile-bodies", bodies, 11),
    *(Attack(kind, served_connections(kind), 24) for kind in HOLDS),
    Attack("one-phone-pins", one_phone_pins, 24),
    Attack("many-addresses-pins", many_addresses_pins, 24),
    Attack("client-input", client_input, 24),
    Attack("smaller", smaller, 24),
    # the broker's (benchmarks/attack_broker.py): each on a real Mosquitto of its own
    *(Attack(f"broker-{name}", lambda t, name=name: broker_attack(name), 24) for name in BROKER_SECTIONS),
]


def main(argv: list[str] | None = None) -> int:
    import argparse

    global PROBES

    ap = argparse.ArgumentParser(description="the attacks of issues 11 and 24 against the real servers")
    ap.add_argument("--only", nargs="*", metavar="NAME", help="these attacks only (see --list)")
    ap.add_argument("--list", action="store_true", help="list the attacks and exit")
    ap.add_argument("--sizes", default="20,100", help="addresses holding the connections (default 20,100)")
    ap.add_argument("--probes", type=int, default=PROBES, help=f"the newcomer's GETs in each attack (default {PROBES})")
    args = ap.parse_args(argv)
    if args.list:
        for a in ATTACKS:
            print(f"{a.name:<22} issue {a.issue}")
        return 0
    chosen = [a for a in ATTACKS if not args.only or a.name in args.only]
    PROBES = args.probes
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    svc = start_cockpit()
    tmp = svc.tmp
    venue = Venue(tmp)
    venue.start()
    targets = Targets(svc, venue, sizes=tuple(int(n) for n in args.sizes.split(",")))
    done = threading.Event()

    def beats():  # the cockpit's watchdog beats read as they come (a full notify socket would drop some)
        while not done.wait(0.25):
            targets.cockpit.beats()
    reader = threading.Thread(target=beats, daemon=True)
    reader.start()
    try:
        for a in chosen:
            print(f"== {a.name} (issue {a.issue})", flush=True)
            t0 = time.monotonic()
            a.run(targets)
            seg = targets.cockpit.segments[-1]
            print(f"   ({time.monotonic() - t0:.0f} s; the cockpit's largest watchdog gap so far {seg['gap']:.2f} s)",
                  flush=True)
            seg["gap"] = 0.0
    finally:
        done.set()
        reader.join()
        targets.cockpit.stop()
        venue.stop()
    for name, log in [*(("cockpit", log) for log in targets.logs), ("venue", venue.log)]:
        log.seek(0)
        text = log.read()
        print(f"the {name}'s log: {len(text.splitlines())} lines, {text.count('Traceback')} tracebacks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
