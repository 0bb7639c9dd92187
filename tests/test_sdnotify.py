"""sd_notify over a real unix datagram socket, as systemd listens for it."""

import os
import socket

from panel.server.sdnotify import Notifier, watchdog_interval


def test_messages_reach_the_socket(tmp_path):
    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        with Notifier(path) as n:
            assert n.enabled
            assert n.ready("serving")
            assert n.watchdog()
            assert n.stopping()
        got = [server.recv(256).decode() for _ in range(3)]
    assert got == ["READY=1\nSTATUS=serving", "WATCHDOG=1", "STOPPING=1"]


def test_abstract_socket_address():
    name = f"@penguin-panel-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name[1:])
        with Notifier(name) as n:
            n.ready()
        assert server.recv(64) == b"READY=1"


def test_without_systemd_nothing_happens(monkeypatch):
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    n = Notifier()
    assert not n.enabled and not n.ready() and not n.watchdog()
    n.close()
    n.close()


def test_a_vanished_socket_is_not_an_error(tmp_path):
    with Notifier(str(tmp_path / "gone")) as n:
        assert n.notify("WATCHDOG=1") is False


def test_watchdog_interval_is_half_of_watchdog_sec(monkeypatch):
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_interval() == 10.0
    monkeypatch.setenv("WATCHDOG_PID", "1")  # meant for another process
    assert watchdog_interval() is None
    monkeypatch.delenv("WATCHDOG_PID")
    monkeypatch.setenv("WATCHDOG_USEC", "soon")
    assert watchdog_interval() is None
    monkeypatch.delenv("WATCHDOG_USEC")
    assert watchdog_interval() is None


def test_the_service_tells_systemd_ready_watchdog_and_stopping(tmp_path):
    """The real service under a notify socket, as systemd runs it with Type=notify."""
    import signal
    import subprocess
    import sys

    path = str(tmp_path / "notify")
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(path)
        server.settimeout(30)
        env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="200000")
        env.pop("WATCHDOG_PID", None)
        p = subprocess.Popen([sys.executable, "-m", "panel", "play", "--sim", "--port", "0",
                              "--db", str(tmp_path / "p.db")], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert server.recv(256).decode().startswith("READY=1\nSTATUS=serving on port ")
            assert [server.recv(256) for _ in range(3)] == [b"WATCHDOG=1"] * 3  # fed from the loop
            p.send_signal(signal.SIGTERM)
            rest = []
            while b"STOPPING=1" not in rest:
                rest.append(server.recv(256))
            assert p.wait(30) == 0  # a clean stop
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
