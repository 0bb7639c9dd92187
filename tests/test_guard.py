"""The connection guard: what idle, half-sent and malformed connections may cost the service.

Attackers connect from other loopback addresses (the whole 127/8 is this machine), the
probe from 127.0.0.1. The service accepts connections in the order they arrived, so the
probe's answer is the signal that every earlier connection has been admitted or refused.
"""

import asyncio
import errno
import logging
import re
import resource
import subprocess
import sys

from panel.server.guard import PER_KIND, Quiet, address_key, quiet_failures
from waiting import wait_until
from service_helpers import HALF_HEAD, ServiceThread, closed_by_server, connect, get_status, still_open


def get_state(port, source="127.0.0.1"):
    return get_status(port, "/api/state", source)


def test_a_connection_without_a_request_head_in_time_is_closed(tmp_path):
    with ServiceThread(tmp_path / "p.db", guard={"header_seconds": 0.3}) as svc:
        idle = connect(svc.port)
        half = connect(svc.port, send=HALF_HEAD)
        half.sendall(b"a")  # trickling bytes does not buy time
        assert closed_by_server(idle) and closed_by_server(half)
        assert get_state(svc.port) == 200
        assert svc.on_loop(lambda: svc.guard.stats())["timed_out"] == 2
        idle.close()
        half.close()


def test_one_address_holds_at_most_its_share(tmp_path):
    with ServiceThread(tmp_path / "p.db", guard={"per_address": 8}) as svc:
        attack = [connect(svc.port, "127.0.2.1", HALF_HEAD if i % 2 else b"") for i in range(50)]
        assert get_state(svc.port) == 200  # from another address, answered at once
        stats = svc.on_loop(lambda: svc.guard.stats())
        assert stats["refused"] == 42 and stats["open"] == 8
        assert all(still_open(s) for s in attack[:8]) and not any(still_open(s) for s in attack[8:])
        for s in attack:
            s.close()


def test_at_the_limit_the_oldest_waiting_connection_makes_room(tmp_path):
    with ServiceThread(tmp_path / "p.db", guard={"per_address": 4, "total": 20}) as svc:
        attack = [connect(svc.port, f"127.0.3.{1 + i // 3}", HALF_HEAD if i % 2 else b"") for i in range(90)]
        assert get_state(svc.port) == 200
        stats = svc.on_loop(lambda: svc.guard.stats())
        assert stats["evicted"] == 71 and stats["refused"] == 0  # 70 for the attack, 1 for the probe
        assert not any(still_open(s) for s in attack[:71]) and all(still_open(s) for s in attack[71:])
        for s in attack:
            s.close()


def test_malformed_requests_and_accept_failures_are_one_line_a_minute(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with ServiceThread(tmp_path / "p.db") as svc:
        for _ in range(20):
            with connect(svc.port, send=b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n") as s:
                assert re.match(rb"HTTP/1\.[01] 400 ", s.recv(100))
        assert get_state(svc.port) == 200
    lines = [r for r in caplog.records if "Error handling request" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None and "\n" not in lines[0].getMessage()
    assert "Traceback" not in caplog.text


def test_out_of_descriptors_is_one_line_a_minute(caplog):
    """What asyncio's accept loop reports when accept() fails with EMFILE, a thousand times."""
    clock = [0.0]
    quiet = Quiet(logging.getLogger("penguin-panel"), clock=lambda: clock[0])
    loop = asyncio.new_event_loop()
    try:
        quiet_failures(loop, quiet)
        for i in range(1000):
            clock[0] = i * 0.1  # 100 s of failures, ten a second
            loop.call_exception_handler({"message": "socket.accept() out of system resource",
                                         "exception": OSError(errno.EMFILE, "Too many open files")})
    finally:
        loop.close()
    lines = [r.getMessage() for r in caplog.records if "too many open files" in r.getMessage()]
    assert len(lines) == 2 and "599 more like it" in lines[1]
    assert "Traceback" not in caplog.text


def test_every_ipv6_address_counts_on_its_own():
    """Issue 24: on a café's LAN every device shares one /64, so a /64 counted as one let one
    phone holding 32 sockets lock out the whole café (this test said the opposite before)."""
    assert address_key(("2001:db8::1", 80, 0, 0)) != address_key(("2001:db8::ffff:1234", 80, 0, 0))
    assert address_key(("fe80::1%eth0", 80, 0, 2)) == "fe80::1"
    assert address_key(("::ffff:10.0.0.7", 80, 0, 0)) == "10.0.0.7"
    assert address_key(("10.0.0.7", 80)) != address_key(("10.0.0.8", 80))


def test_1100_idle_and_half_sent_connections_leave_the_service_answering(tmp_path):
    """The attack as found: the service started as the README says, with systemd's default
    of 1,024 descriptors, and 1,100 idle or half-sent connections from 100 addresses (11 each,
    under the per-address share). The guard holds what the descriptors allow, the oldest
    waiting go first, /api/state answers throughout, and the log has no traceback."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    attackers = 1100
    service_fds = 1024
    if hard != resource.RLIM_INFINITY and hard < attackers + 300:  # a small CI box: scale down
        attackers = hard - 300
        service_fds = attackers - 76
    assert attackers > service_fds  # still more connections than the service has descriptors
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, attackers + 300), hard))

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (service_fds, service_fds))

    log = open(tmp_path / "service.log", "w+")
    p = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0", "--db",
                          str(tmp_path / "p.db")], stdout=subprocess.PIPE, stderr=log, text=True,
                         preexec_fn=limit)
    attack = []
    try:
        port = None
        for line in p.stdout:
            m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/", line)
            if m:
                port = int(m.group(1))
                break
        assert port, "the service did not start"
        for i in range(attackers):
            attack.append(connect(port, f"127.1.{i % 100}.1", HALF_HEAD if i % 2 else b""))
            if i % 100 == 99:
                assert get_state(port) == 200
        assert get_state(port) == 200
    finally:
        for s in attack:
            s.close()
        p.terminate()
        p.wait(30)
        p.stdout.close()
    log.seek(0)
    text = log.read()
    log.close()
    assert "Traceback" not in text
    assert len(text.splitlines()) < 12, text  # start-up lines, a few one-line warnings, stopping


# ------------------------------------------------ served connections (issue 24, item 1)

WS_HEAD = (b"GET /ws?view=board HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
KEPT_ALIVE = b"GET /api/state HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
SLOW_BODY = (b"POST /api/admin/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 200\r\n\r\n{\"pin\": ")  # 192 bytes of it never come


def answer_head(s):
    """The status of the answer on `s`, once its head is in (the connection stays open)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        assert chunk, data
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    m = re.search(rb"content-length: (\d+)", head, re.I)
    need = int(m.group(1)) - len(rest) if m else 0
    while need > 0:  # the rest of the body: the connection is idle after it
        need -= len(s.recv(need))
    return int(head.split()[1])


def holders(port, addresses, each, send, status):
    """`each` connections from each of `addresses` that sent `send` and got `status`."""
    held = []
    for a in addresses:
        for _ in range(each):
            s = connect(port, a, send)
            if status is not None:
                assert answer_head(s) == status
            held.append(s)
    return held


def test_live_sockets_held_by_20_addresses_leave_a_newcomer_answered(tmp_path):
    """20 addresses x 6 live sockets fill the 120 connections: a newcomer still gets in,
    the oldest socket of an address holding the most making room (before: every newcomer
    refused for as long as the sockets stayed open)."""
    with ServiceThread(tmp_path / "p.db", guard={"total": 120}) as svc:
        held = holders(svc.port, [f"127.0.5.{i}" for i in range(1, 21)], 6, WS_HEAD, 101)
        assert svc.on_loop(lambda: svc.guard.stats())["websocket"] == 120
        assert [get_state(svc.port, "127.0.6.1") for _ in range(10)] == [200] * 10
        stats = svc.on_loop(lambda: svc.guard.stats())
        assert stats["evicted"] >= 1 and stats["refused"] == 0
        for s in held:
            s.close()


def test_one_address_holds_at_most_its_share_of_live_sockets(tmp_path):
    with ServiceThread(tmp_path / "p.db") as svc:
        held = holders(svc.port, ["127.0.5.1"], PER_KIND["websocket"], WS_HEAD, 101)
        with connect(svc.port, "127.0.5.1", WS_HEAD) as s:
            assert answer_head(s) == 429
        assert get_status(svc.port, "/api/state", "127.0.5.1") == 200  # plain requests still pass
        for s in held:
            s.close()


def test_kept_alive_connections_make_room_for_a_newcomer(tmp_path):
    """Answered connections kept alive hold every slot: the longest idle one is closed for
    the newcomer (before: only connections that had never sent a request could be)."""
    with ServiceThread(tmp_path / "p.db", guard={"total": 40}) as svc:
        held = holders(svc.port, [f"127.0.7.{i}" for i in range(1, 21)], 2, KEPT_ALIVE, 200)
        newcomer = holders(svc.port, ["127.0.6.1"], 10, KEPT_ALIVE, 200)  # each one at the limit
        assert svc.on_loop(lambda: svc.guard.stats())["evicted"] == 10
        assert all(closed_by_server(s) for s in held[:10])  # the longest idle went first
        assert all(still_open(s) for s in held[10:])
        for s in held + newcomer:
            s.close()


def test_slow_bodies_are_bounded_per_address_and_cut_without_a_traceback(tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    with ServiceThread(tmp_path / "p.db", guard={"total": 21}) as svc:
        held = holders(svc.port, [f"127.0.8.{i}" for i in range(1, 6)], PER_KIND["body"], SLOW_BODY, None)
        wait_until(lambda: svc.on_loop(lambda: svc.guard.stats())["body"] == 20)  # every handler waits for its body
        with connect(svc.port, "127.0.8.1", SLOW_BODY) as s:  # one more from the same address
            assert answer_head(s) == 429
        held += holders(svc.port, ["127.0.6.1"], 3, SLOW_BODY, None)  # the last 2 at the limit
        wait_until(lambda: svc.on_loop(lambda: svc.guard.stats())["evicted"] == 2)  # 2 bodies cut
        assert get_state(svc.port, "127.0.6.2") == 200
        assert svc.on_loop(lambda: svc.guard.stats())["evicted"] == 3
        for s in held:
            s.close()
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)


class FakeTransport:
    def __init__(self, peer):
        self.peer, self.aborted = peer, False

    def get_extra_info(self, name, default=None):
        return self.peer if name == "peername" else default

    def abort(self):
        self.aborted = True


def test_a_device_in_a_shared_ipv6_64_never_locks_out_its_neighbours():
    """One phone at 2001:db8::1 holding its whole share; its neighbour 2001:db8::2 (the same
    /64, as every device on a café's LAN) still gets in."""
    import asyncio as aio
    from panel.server.guard import ConnectionGuard

    async def run():
        guard = ConnectionGuard(per_address=4, total=100)
        made = []

        def factory():
            made.append(aio.Protocol())
            return made[-1]
        conns = []
        for host in ["2001:db8::1"] * 5 + ["2001:db8::2"]:
            conn = guard.wrap(factory)()
            t = FakeTransport((host, 5000, 0, 0))
            conn.connection_made(t)
            conns.append((conn, t))
        for conn, _ in conns:
            if conn._timer:
                conn._timer.cancel()
        return [t.aborted for _, t in conns]
    assert asyncio.run(run()) == [False] * 4 + [True, False]


def test_any_line_a_client_can_cause_is_held_to_a_few_a_minute(caplog):
    """The log of an SD card cannot be flooded from any line of code: 10 a minute from each,
    then the count held back (issue 24, item 3)."""
    from panel.server.guard import LogBudget

    clock = [0.0]
    logger = logging.getLogger("penguin-panel.test-budget")
    budget = LogBudget(clock=lambda: clock[0])
    logger.addFilter(budget)

    def cause(address):
        logger.warning("bad thing from %s", address)  # one line of code
    try:
        for i in range(1000):
            clock[0] = i * 0.03  # 30 s of a line a client causes, 33 a second
            cause(f"10.0.0.{i % 250}")
            if i % 100 == 0:
                logger.warning("another kind")
        clock[0] = 61.0
        cause("10.0.0.1")
    finally:
        logger.removeFilter(budget)
    lines = [r.getMessage() for r in caplog.records if "bad thing" in r.getMessage()]
    assert len(lines) == 11 and lines[-1] == "bad thing from 10.0.0.1 (990 more like it held back)"
    assert len([r for r in caplog.records if r.getMessage() == "another kind"]) == 10


def test_every_server_puts_its_loggers_under_the_budget():
    from panel.server.guard import BUDGETED_LOGS, LogBudget, guard_process

    async def start():
        guard_process()
    asyncio.run(start())
    try:
        assert all(any(isinstance(f, LogBudget) for f in logging.getLogger(n).filters) for n in BUDGETED_LOGS)
    finally:  # the budget is the process's: the other tests count their own lines
        for n in BUDGETED_LOGS:
            for f in [f for f in logging.getLogger(n).filters if isinstance(f, LogBudget)]:
                logging.getLogger(n).removeFilter(f)


def test_an_attacker_holding_live_sockets_never_evicts_a_newcomers_first_connection():
    """At the limit with every slot a live socket (100 addresses x 8 is more than 512), the
    newcomer's connection, yet to send its request, was the only idle one: the attackers'
    next sockets evicted it (benchmarks/attacks.py: 80 % answered). Now it is spared."""
    import asyncio as aio
    from panel.server.guard import ConnectionGuard

    async def run():
        guard = ConnectionGuard(total=10)

        def arrive(host):
            conn = guard.wrap(aio.Protocol)()
            t = FakeTransport((host, 5000))
            conn.connection_made(t)
            if conn._timer:
                conn._timer.cancel()
            return conn, t
        for host in ["10.0.0.1"] * 5 + ["10.0.0.2"] * 5:
            conn, _ = arrive(host)
            guard.admit_kind(conn, "websocket")
        _, newcomer = arrive("10.0.0.9")  # evicts the oldest socket of an address holding the most
        later = [arrive(h)[1] for h in ["10.0.0.1", "10.0.0.2"] * 3]
        return newcomer.aborted, [t.aborted for t in later], guard.stats()
    newcomer_cut, later, stats = asyncio.run(run())
    assert not newcomer_cut and stats["open"] == 10 and stats["waiting"] == 1
    assert stats["evicted"] == 1 and all(later)  # the attackers' next ones wait for a slot of their own
