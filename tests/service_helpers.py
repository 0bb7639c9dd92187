"""The real service (aiohttp app, cockpit, SQLite file) on a free port in a thread, and a
small HTTP client with a cookie jar, for the service's API tests."""

from __future__ import annotations

import asyncio
import http.client
import http.cookiejar
import json
import re
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

from panel.web.app import build_app
from panel.server.guard import ConnectionGuard, bind, quiet_failures, start_serving
from panel.service.cockpit import Cockpit
from panel.server.security import Security
from panel.storage.store import Store
from teams import TEAMS

PIN = "2468"
MATCH = {"mode": "competitive", "teams": TEAMS, "turn_seconds": 30, "time_counters": 4, "target_points": 12,
         "side": "blue", "expansion": False, "seed": 7}


# ---------------------------------------------------------------- raw connections (the guard's tests)

HALF_HEAD = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "  # no blank line: never ends


def connect(port, source="127.0.0.1", send=b""):
    """A TCP connection to 127.0.0.1:port from `source` (any of 127/8 is this machine: an
    attacker's other addresses), having sent `send`."""
    s = socket.socket()
    s.settimeout(20)  # a bound against a hang only; every wait ends on the server's move
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    if send:
        s.sendall(send)
    return s


def get_status(port, path, source="127.0.0.1"):
    """GET `path` on a new connection; the status code."""
    with connect(port, source, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode()) as s:
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", data)
    assert m, data[:200]
    return int(m.group(1))


def closed_by_server(s):
    """True when the server has closed `s` (EOF or reset); waits for it."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def still_open(s):
    s.setblocking(False)
    try:
        s.recv(1)
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False
    return False


def start_play(db: Path, *args: str, stderr=subprocess.DEVNULL, **popen):
    """`python -m panel play --sim` on `db` and a free port, as a subprocess: (process, base URL).
    The base is None when the process ended before serving (its exit code is set then)."""
    p = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--db", str(db), *args],
                         stdout=subprocess.PIPE, stderr=stderr, text=True, **popen)
    for line in p.stdout:
        m = re.search(r"serving on (http://\S+?)/ ", line)
        if m:
            return p, m.group(1)
    p.wait()
    return p, None


class ServiceThread:
    """Context manager: the service serving on 127.0.0.1:<free port> until closed."""

    def __init__(self, db: Path, *, sim: bool = True, static_dir: Path | None = None, pin: str = PIN,
                 guard: dict | None = None, host: str = "127.0.0.1", sim_from_network: bool = False,
                 help_dir: Path | None = None):
        """host: where to listen; "0.0.0.0" serves as a café's cockpit does (the network,
        where a browser on 127.0.0.1 is the cockpit's own screen)."""
        self.db, self.sim, self.static_dir, self.pin = db, sim, static_dir, pin
        self.host, self.sim_from_network, self.help_dir = host, sim_from_network, help_dir
        self.guard = ConnectionGuard(**(guard or {}))
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, daemon=True)
        self.error: BaseException | None = None

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_until_complete(self._start())
        except BaseException as e:  # report to the test thread
            self.error = e
            self._ready.set()
            return
        self._ready.set()
        self.loop.run_forever()
        self.loop.run_until_complete(self._stop())
        self.loop.close()

    async def _start(self) -> None:
        self.store = Store(self.db)
        self.security = Security(self.store)
        if not self.security.check_pin(self.pin):  # as a start does: the same PIN keeps its sessions' screens
            self.security.set_pin(self.pin)
        self.cockpit = Cockpit(self.store, sim=self.sim)
        await self.cockpit.start()
        app = build_app(self.cockpit, self.security, sim=self.sim, static_dir=self.static_dir,
                        sim_from_network=self.sim_from_network, quiet=self.guard.quiet,
                        help_dir=self.help_dir)
        quiet_failures(self.loop, self.guard.quiet)
        sock = bind(self.host, 0)
        self.runner = await start_serving(app, sock, self.guard)
        self.port = sock.getsockname()[1]
        self.base = f"http://{'127.0.0.1' if self.host in ('0.0.0.0', '::') else self.host}:{self.port}"

    async def _stop(self) -> None:
        await self.runner.cleanup()
        await self.cockpit.close()
        self.store.close()

    def __enter__(self) -> "ServiceThread":
        self._thread.start()
        self._ready.wait(30)
        if self.error:
            raise self.error
        return self

    def __exit__(self, *exc) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)

    def on_loop(self, fn):
        """Run fn() on the service's loop and return its result (to peek at the cockpit)."""
        async def call():
            return fn()
        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(10)

    def client(self, *, source: str | None = None) -> "Client":
        """A client on this computer, or sending from `source` (NETWORK: a device of the
        café's network, as far as the cockpit can tell)."""
        return Client(self.base, source=source)


# A device of the café's network, as the tests play it: another address than this
# computer's own 127.0.0.1 (loopback still reaches a cockpit served on 127.0.0.1 only).
NETWORK = "127.0.2.1"


class _FromSource(urllib.request.HTTPHandler):
    def __init__(self, source: str):
        super().__init__()
        self.source = source

    def http_open(self, req):
        return self.do_open(lambda host, **kw: http.client.HTTPConnection(host, source_address=(self.source, 0), **kw),
                            req)


class Client:
    """urllib with a cookie jar; every answer is (status, parsed JSON)."""

    def __init__(self, base: str, *, source: str | None = None):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        handlers = [urllib.request.HTTPCookieProcessor(self.jar)] + ([_FromSource(source)] if source else [])
        self.opener = urllib.request.build_opener(*handlers)
        self.csrf: str | None = None

    def request(self, method: str, path: str, body=None, *, raw: bytes | None = None, headers=None,
                content_type: str = "application/json", csrf: bool = True):
        h = dict(headers or {})
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        if data is not None:
            h.setdefault("Content-Type", content_type)
        if csrf and self.csrf:
            h.setdefault("X-CSRF-Token", self.csrf)
        req = urllib.request.Request(self.base + path, data=data, headers=h, method=method)
        try:
            with self.opener.open(req, timeout=20) as r:
                return r.status, _parse(r.read(), r.headers.get("Content-Type", ""))
        except urllib.error.HTTPError as e:
            return e.code, _parse(e.read(), e.headers.get("Content-Type", ""))

    def get(self, path: str, **kw):
        return self.request("GET", path, **kw)

    def post(self, path: str, body=None, **kw):
        return self.request("POST", path, body, **kw)

    def login(self, pin: str = PIN) -> str:
        status, body = self.post("/api/admin/login", {"pin": pin})
        assert status == 200, body
        self.csrf = body["csrf"]
        return self.csrf

    def new_match(self, **over) -> dict:
        status, body = self.post("/api/admin/match", {**MATCH, **over})
        assert status == 200, body
        return body

    def act(self, action: str, **params):
        return self.post("/api/admin/action", {"action": action, **params})

    def state(self) -> dict:
        status, body = self.get("/api/state")
        assert status == 200
        return body


def two_mistakes(svc, gm, code):
    """Start a turn and press two buttons outside the card: the turn ends on mistakes.
    (the card, the two buttons pressed)."""
    public = svc.client()
    gm.act("start_turn")
    card = public.get(f"/api/tower?code={code}")[1]["card"]
    wrong = [b for b in ("alarm.red", "alarm.yellow", "grid.r1c1", "grid.r1c2", "beacon.red", "radio.1")
             if b.split(".")[0] != card.get("section") and b not in card.get("press", [])][:2]
    for b in wrong:
        assert public.post("/api/sim/input", {"control": b, "value": True})[0] == 200
        assert public.post("/api/sim/input", {"control": b, "value": False})[0] == 200
    return card, wrong


def _parse(data: bytes, ctype: str):
    if "json" in ctype:
        return json.loads(data)
    return data.decode("utf-8", "replace")


def fill_the_disk(store: Store, match_id: int, t: float) -> None:
    """Make every write to `store` fail as on a full disk, with SQLite's own SQLITE_FULL: no
    page more for the file (max_page_count on the store's writer's connection), and the last
    pages filled with the smallest entry the service writes (a clock advance at `t`, harmless
    before a deadline), until the writer's commit fails. Undo with `free_the_disk`. Run it on
    the service's loop (svc.on_loop); it waits for the writer."""
    from panel.core.errors import StoreUnavailable

    store.sync()  # the writer is started (the service has written) and idle
    db = store._writer_db
    db.execute(f"PRAGMA max_page_count={db.execute('PRAGMA page_count').fetchone()[0]}")
    while True:
        for _ in range(20):
            store.append(match_id, t, "advance", {})
        try:
            store.sync()
        except StoreUnavailable:
            return


def free_the_disk(store: Store) -> None:
    """Undo `fill_the_disk`: the writer's next try commits what waits."""
    store._writer_db.execute(f"PRAGMA max_page_count={2**30 - 1}")
