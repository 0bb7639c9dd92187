"""What the café's network may cost the service: connections, descriptors and log lines.

A phone on the LAN can open sockets faster than anyone can play, and hold them: idle,
half-sent, kept alive with a request now and then, as live sockets or as bodies sent a
byte at a time. The guard does what nginx does (limit_conn per address, client_header_
timeout, keepalive_timeout, and closing the oldest idle keep-alive connection when its
worker_connections run out), so a newcomer always gets in:

- a connection must send a whole request head within HEADER_SECONDS of connecting, and
  one kept alive after an answer is closed after KEEPALIVE_SECONDS without a new request;
- one address holds at most PER_ADDRESS connections at once, and of them at most
  PER_KIND["websocket"] live sockets and PER_KIND["body"] requests whose body is still
  arriving (more are answered 429 at once). Every IPv6 address counts on its own: on a
  café's LAN every device shares one /64, so counting a /64 as one would let one phone
  lock every other one out;
- all addresses together hold at most what the descriptor limit leaves after RESERVE_FDS
  for the store, the co-processor and the pins. At that limit a newcomer still gets in:
  the oldest idle connection (waiting for a request head, its first or the next one) is
  closed to make room; with none idle, the oldest connection of the address holding the
  most (a device holding a few pages never is that address, an attacker always is);
- failures that an attacker can repeat at will (descriptors out, malformed requests,
  connections refused, requests dropped mid-body) are logged as one line per kind at most
  once a minute, with the number held back since; and any other line a client can cause
  is held to a few a minute from each line of code (LogBudget).
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import resource
import socket
import time
from collections import OrderedDict
from typing import Any, Callable

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError

from panel.core.i18n import N_
from panel.server.peers import THIS_COMPUTER
from panel.server.replies import error

log = logging.getLogger("penguin-panel")

HEADER_SECONDS = 15.0  # to send a request head: a phone on a weak Wi-Fi needs well under 1 s
KEEPALIVE_SECONDS = 5.0  # idle after an answer: a page's requests come in bursts, its news over its socket
PER_ADDRESS = 32  # connections from one address: a browser with every page open uses ~12
# Of one address's connections, at most this many of a kind at once: a phone with the
# tower, the board and the admin open has 3 live sockets; a page sends one body at a time.
PER_KIND = {"websocket": 8, "body": 4}
# The Pi's own screen (the kiosk) and tools run on the machine itself: no device on the
# LAN can send from these, so they are held to the total only, not the per-address share.
OWN_MACHINE = frozenset(str(ip) for ip in THIS_COMPUTER)
MAX_CONNECTIONS = 512  # all addresses together (each costs ~20-40 KB on a Pi with 512 MB)
# After a 413, what is still read of a body before the connection is cut: enough for the
# client to be reading its answer (it sends while it reads), never the rest of a gigabyte.
LINGER_BYTES = 256 * 1024
LINGER_SECONDS = 2.0
RESERVE_FDS = 64  # descriptors kept for the store, the serial link, the pins and the logs
QUIET_SECONDS = 60.0  # one line per kind of repeated failure per this many seconds
OUT_OF_FDS = (errno.EMFILE, errno.ENFILE)


class Quiet:
    """Logs a kind of failure at most once per `every` seconds, one line, no traceback; the
    next line says how many were held back."""

    def __init__(self, logger: logging.Logger = log, *, every: float = QUIET_SECONDS,
                 clock: Callable[[], float] = time.monotonic):
        self.logger, self.every, self.clock = logger, every, clock
        self._last: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def warn(self, kind: str, message: str) -> bool:
        """Log `message` now or count it; True when it was logged."""
        now = self.clock()
        last = self._last.get(kind)
        if last is not None and now - last < self.every:
            self._held[kind] = self._held.get(kind, 0) + 1
            return False
        held = self._held.pop(kind, 0)
        self._last[kind] = now
        more = f" ({held} more like it in the last {now - last:.0f} s)" if held and last is not None else ""
        self.logger.warning("%s%s", message, more)
        return True


def out_of_fds(exc: BaseException | None) -> bool:
    return isinstance(exc, OSError) and exc.errno in OUT_OF_FDS


def raise_fd_limit() -> int:
    """Raise this process's soft descriptor limit to its hard limit (systemd's default soft
    limit is 1024, the unit sets LimitNOFILE); returns the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard > soft:
        target = 65536 if hard == resource.RLIM_INFINITY else hard
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def address_key(peer: Any) -> str:
    """Who a connection counts against: its address (an IPv4 address arriving on an IPv6
    socket as ::ffff:a.b.c.d counts as a.b.c.d; an IPv6 address as itself, never its /64,
    which on a café's LAN is every device's)."""
    host = peer[0] if isinstance(peer, tuple) and peer else str(peer)
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)


IDLE = "idle"  # waiting for a request head: the first one or, kept alive, the next one
KINDS = ("request", "body", "websocket")  # being served: a request, one whose body arrives, a live socket


class ConnectionGuard:
    """Counts connections per address, per kind and in all; closes those that send no
    request head in time; at the limit closes an idle one (or the biggest holder's oldest)
    for a newcomer. `wrap` makes the protocol factory the listening socket uses; the apps'
    `serving` middleware (below) tells it what each connection is doing."""

    def __init__(self, *, per_address: int = PER_ADDRESS, total: int | None = None,
                 header_seconds: float = HEADER_SECONDS, keepalive_seconds: float = KEEPALIVE_SECONDS,
                 per_kind: dict[str, int] | None = None, quiet: Quiet | None = None):
        if total is None:  # what the descriptor limit allows (raise it first: raise_fd_limit)
            total = min(MAX_CONNECTIONS, max(16, resource.getrlimit(resource.RLIMIT_NOFILE)[0] - RESERVE_FDS))
        self.per_address, self.total, self.header_seconds = per_address, total, header_seconds
        self.keepalive_seconds = min(keepalive_seconds, header_seconds)
        self.per_kind = {**PER_KIND, **(per_kind or {})}
        self.quiet = quiet or Quiet()
        self._by_address: dict[str, OrderedDict[Guarded, None]] = {}  # each address's, oldest first
        self._idle: OrderedDict[Guarded, None] = OrderedDict()  # idle, the longest idle first
        self.open = 0
        self.refused = 0  # over the per-address limit (or every connection busy and alone)
        self.evicted = 0  # closed to make room for a newcomer
        self.timed_out = 0  # no request head in time
        self.busy = 0  # requests answered 429: over their address's share of a kind

    def wrap(self, factory: Callable[[], asyncio.Protocol]) -> Callable[[], asyncio.Protocol]:
        return lambda: Guarded(self, factory)

    def _admit(self, conn: "Guarded") -> bool:
        key = conn.key
        mine = self._by_address.get(key, ())
        if key not in OWN_MACHINE and len(mine) >= self.per_address:
            self.refused += 1
            self.quiet.warn("per-address", f"connection from {key} refused: it already has {self.per_address} "
                                           "open (the most one address may hold)")
            return False
        if self.open >= self.total and not self._make_room(key, len(mine)):
            self.refused += 1
            self.quiet.warn("total", f"connection from {key} refused: {self.total} connections are open, "
                                     "all of them being served")
            return False
        self.open += 1
        self._by_address.setdefault(key, OrderedDict())[conn] = None
        self._idle[conn] = None
        return True

    def _make_room(self, key: str, holds: int) -> bool:
        """Close one connection for a newcomer from `key` (holding `holds`): the longest
        idle (see below), else the oldest of the address holding the most, if it holds more
        than the newcomer would. False when there is none to close."""
        # While connections are being served, one yet to send its first request is spared for
        # a newcomer holding more than its address does: an attacker holding live sockets never
        # evicts a phone's first one. (In a flood of idle sockets the oldest goes, whoever's.)
        spare = self.open > len(self._idle)
        victim = next((c for c in self._idle if not spare or c.served or len(self._by_address[c.key]) > holds),
                      None)
        if victim is not None:
            why = "the longest idle one"
        else:
            biggest = max((a for a in self._by_address if a not in OWN_MACHINE),
                          key=lambda a: len(self._by_address[a]), default=None)
            if biggest is None or len(self._by_address[biggest]) <= holds + 1:
                return False
            victim = next(iter(self._by_address[biggest]))
            why = f"the oldest of the address holding the most ({len(self._by_address[biggest])})"
        self.evicted += 1
        self.quiet.warn("evicted", f"{self.total} connections open: {why} ({victim.key}, {victim.kind}) "
                                   "was closed to make room")
        self._forget(victim)  # its slot is the newcomer's now, whenever its close completes
        victim.close()
        return True

    def _set_kind(self, conn: "Guarded", kind: str) -> None:
        if conn.released:
            return
        conn.kind = kind
        conn.served = conn.served or kind != IDLE
        if kind == IDLE:
            self._idle[conn] = None  # at the end: idle since now
        else:
            self._idle.pop(conn, None)

    def admit_kind(self, conn: "Guarded", kind: str) -> bool:
        """Whether `conn`'s address may start one more of `kind` (see PER_KIND); if so, the
        connection is that kind from now on."""
        most = self.per_kind.get(kind)
        if most is not None and conn.key not in OWN_MACHINE:
            if sum(1 for c in self._by_address.get(conn.key, ()) if c.kind == kind) >= most:
                self.busy += 1
                self.quiet.warn(f"per-kind {kind}", f"a {kind} from {conn.key} answered 429: it already has "
                                                    f"{most} (the most one address may hold at once)")
                return False
        self._set_kind(conn, kind)
        return True

    def _forget(self, conn: "Guarded") -> None:
        if conn.released:
            return
        conn.released = True
        self._idle.pop(conn, None)
        self.open -= 1
        mine = self._by_address[conn.key]
        mine.pop(conn, None)
        if not mine:
            del self._by_address[conn.key]

    def stats(self) -> dict[str, int]:
        kinds = {k: 0 for k in KINDS}
        for conns in self._by_address.values():
            for c in conns:
                if c.kind in kinds:
                    kinds[c.kind] += 1
        return {"open": self.open, "waiting": len(self._idle), "refused": self.refused,
                "evicted": self.evicted, "timed_out": self.timed_out, "limit": self.total,
                "per_address": self.per_address, "busy": self.busy, **kinds}


class Guarded(asyncio.Protocol):
    """One connection: admitted by the guard, then everything handed to aiohttp's protocol,
    created only once admitted. Idle (evictable) until its request head is in, and again
    between requests; closed if its first head takes longer than header_seconds (aiohttp's
    keep-alive timeout bounds the later ones)."""

    def __init__(self, guard: ConnectionGuard, factory: Callable[[], asyncio.Protocol]):
        self.guard, self.factory = guard, factory
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.Transport | None = None
        self.key = "?"
        self.kind = IDLE
        self.served = False  # has sent a request head: idle now means kept alive after an answer
        self.released = False  # no longer counted (closed, or closing to make room)
        self._timer: asyncio.TimerHandle | None = None
        self._tail = b""  # the last bytes of the head so far, to spot its end across reads
        self._discard: int | None = None  # bytes left to drop before the cut, once nothing more is read

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.key = address_key(transport.get_extra_info("peername"))
        if not self.guard._admit(self):
            self.released = True
            transport.abort()
            return
        self._timer = asyncio.get_running_loop().call_later(self.guard.header_seconds, self._too_slow)
        self.inner = self.factory()
        self.inner.connection_made(transport)

    def _too_slow(self) -> None:
        self._timer = None
        self.guard.timed_out += 1
        self.close()

    def close(self) -> None:
        if self.transport is not None:
            self.transport.abort()  # connection_lost follows and releases the slot

    def read_no_more(self) -> None:
        """The request is refused whole (413): what still comes is dropped, a little of it
        (LINGER_BYTES, LINGER_SECONDS: as nginx's lingering close, so the client sees its
        answer rather than a reset), then the connection is cut."""
        if self._discard is None and self.transport is not None:
            self._discard = LINGER_BYTES
            asyncio.get_running_loop().call_later(LINGER_SECONDS, self.close)

    def data_received(self, data: bytes) -> None:
        if self._discard is not None:
            self._discard -= len(data)
            if self._discard < 0:
                self.close()
            return
        if self._timer is not None:
            seen = self._tail + data
            if b"\n\r\n" in seen or b"\n\n" in seen:  # the blank line that ends a request head
                self._timer.cancel()
                self._timer = None
                self.guard._set_kind(self, "request")
            else:
                self._tail = seen[-3:]
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.inner is None:
            return  # never admitted: nothing to release
        self.guard._forget(self)
        inner, self.inner = self.inner, None
        inner.connection_lost(exc)


def guarded_connection(request: web.Request) -> Guarded | None:
    """The guard's record of the connection `request` came on (None when served without one)."""
    transport = request.transport
    protocol = transport.get_protocol() if transport is not None else None
    return protocol if isinstance(protocol, Guarded) else None


@web.middleware
async def serving(request: web.Request, handler):
    """Tells the guard what the request's connection does: a live socket, a request whose
    body arrives, a request; idle again once answered. Over its address's share of a kind
    (PER_KIND) the request is answered 429 at once, its body unread."""
    conn = guarded_connection(request)
    if conn is None:
        return await handler(request)
    if request.headers.get("Upgrade", "").lower() == "websocket":
        kind = "websocket"
    else:
        kind = "body" if request.body_exists else "request"
    if not conn.guard.admit_kind(conn, kind):
        response = error(429, TOO_MANY[kind], request)
        response.force_close()  # and its body is never read
        return response
    try:
        response = await handler(request)
        if kind != "websocket":
            # Sent whole before the connection counts as idle: an answer being sent is
            # never cut to make room. (aiohttp's own sending, after this, finds it done.)
            await response.prepare(request)
            await response.write_eof()
        return response
    finally:
        conn.guard._set_kind(conn, IDLE)


TOO_MANY = {"websocket": N_("this device has too many live pages open: close some and reload"),
            "body": N_("this device is sending too many requests at once: try again")}


def bind(host: str, port: int) -> socket.socket:
    """The service's listening socket, bound now: a second service on the same port stops
    here, before it has touched its database. OSError when the port cannot be had."""
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    dual = family == socket.AF_INET6 and host == "::" and socket.has_dualstack_ipv6()
    sock = socket.create_server(address[:2], family=family, backlog=128, dualstack_ipv6=dual)
    sock.setblocking(False)
    return sock


class GuardedSite(web.BaseSite):
    """aiohttp's site on a socket bound beforehand (the port is taken before the match is
    restored), with every connection going through the guard."""

    def __init__(self, runner: web.BaseRunner, sock: socket.socket, guard: ConnectionGuard):
        super().__init__(runner)
        self._sock = sock
        self.guard = guard

    @property
    def name(self) -> str:
        host, port = self._sock.getsockname()[:2]
        return f"http://{f'[{host}]' if ':' in host else host}:{port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(self.guard.wrap(server), sock=self._sock)


async def start_serving(app: web.Application, sock: socket.socket, guard: ConnectionGuard) -> web.AppRunner:
    """Serve `app` on the bound `sock` through `guard`; the runner to clean up at the end.
    aiohttp's keep-alive timeout closes a connection idle the guard's keepalive_seconds
    after an answer (the guard's header_seconds bound the first request head)."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False, keepalive_timeout=guard.keepalive_seconds)
    await runner.setup()
    try:
        await GuardedSite(runner, sock, guard).start()
    except BaseException:
        await runner.cleanup()
        raise
    return runner


class QuietServerLog(logging.Filter):
    """aiohttp logs a traceback for every malformed request ("Error handling request"): one
    line per minute instead, through the guard's Quiet. Other records pass unchanged."""

    def __init__(self, quiet: Quiet):
        super().__init__()
        self.quiet = quiet

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, (HttpProcessingError, ConnectionError)):
            return True
        text = str(getattr(exc, "message", "") or exc).strip()
        first = text.splitlines()[0][:160] if text else ""
        self.quiet.warn("bad-request", f"{record.getMessage()}: {type(exc).__name__}{f' ({first})' if first else ''}")
        return False


class LogBudget(logging.Filter):
    """At most `burst` lines per `every` seconds from any one logging call (a line of the
    code): whatever a client can make the service log on demand (a bug's 500 with its
    traceback included) cannot fill the SD card. The next line let through says how many
    were held back. Lines said once (the start, a match) are never touched."""

    def __init__(self, *, burst: int = 10, every: float = QUIET_SECONDS, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.burst, self.every, self.clock = burst, every, clock
        self._sites: dict[tuple[str, int], list] = {}  # call site -> [window start, lines in it, held back]

    def filter(self, record: logging.LogRecord) -> bool:
        now = self.clock()
        site = self._sites.setdefault((record.pathname, record.lineno), [now, 0, 0])
        if now - site[0] >= self.every:
            site[0], site[1] = now, 0
        if site[1] >= self.burst:
            site[2] += 1
            return False
        site[1] += 1
        if site[2]:
            record.msg, record.args = f"{record.getMessage()} ({site[2]} more like it held back)", None
            site[2] = 0
        return True


# The loggers a client's input can reach: the apps' own lines about requests (CLIENT_LOG,
# e.g. a bug's 500), aiohttp's and asyncio's. The service's other lines (its start, its
# map's warnings, a match) are never held back.
CLIENT_LOG = "penguin-panel.requests"
BUDGETED_LOGS = (CLIENT_LOG, "aiohttp.server", "aiohttp.web", "aiohttp.websocket", "aiohttp.access", "asyncio")


def budget_logs(budget: LogBudget | None = None) -> LogBudget:
    """Put every logger a client's input can reach under one LogBudget (again: replaced)."""
    budget = budget or LogBudget()
    for name in BUDGETED_LOGS:
        logger = logging.getLogger(name)
        for f in [f for f in logger.filters if isinstance(f, LogBudget)]:
            logger.removeFilter(f)
        logger.addFilter(budget)
    return budget


def guard_process() -> Quiet:
    """What every server of the project (the cockpit, the venue) does first, on its running
    loop: the descriptor limit raised, and the failures an attacker can repeat logged
    through one Quiet (returned, for the ConnectionGuard and the app to share). Then it
    binds (`bind`) and serves through a guard (`start_serving`)."""
    quiet = Quiet()
    quiet_failures(asyncio.get_running_loop(), quiet)
    budget_logs()
    raise_fd_limit()
    return quiet


def quiet_failures(loop: asyncio.AbstractEventLoop, quiet: Quiet) -> None:
    """Route the failures an attacker can repeat at will through `quiet`: the loop's accept()
    out of descriptors, and aiohttp's malformed-request tracebacks."""
    default = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if out_of_fds(context.get("exception")):
            quiet.warn("fds", "too many open files: new connections wait until some close "
                              f"({context.get('message', 'accept')})")
            return
        if default is not None:
            default(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
    server_log = logging.getLogger("aiohttp.server")
    for f in list(server_log.filters):
        if isinstance(f, QuietServerLog):
            server_log.removeFilter(f)
    server_log.filters.insert(0, QuietServerLog(quiet))  # before the LogBudget: its one line a minute is said
