"""The venue's web server as `penguin-panel venue` starts it (panel/venue/run.py): the same
protections against the LAN as the cockpit's (panel/server/guard.py). A connection that
sends no request head, or sits idle after an answer, is closed; one address holds its
share only; malformed requests are one line, never a traceback.

The venue runs in a thread with its own loop; its port comes from systemd's READY=1 (a
notify socket of the test's), and every wait ends on the server's move."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
import threading
from pathlib import Path

import pytest

from mosquitto import free_port
from panel.venue.run import Options, serve
from service_helpers import HALF_HEAD, closed_by_server, connect, get_status, still_open

PIN = "97531"


class VenueThread:
    def __init__(self, tmp, monkeypatch, guard: dict):
        settings = tmp / "venue.toml"
        # A broker nobody listens on: the follower retries in the background, the pages serve.
        settings.write_text(f'[venue]\npin = "{PIN}"\n[mqtt]\nhost = "127.0.0.1"\nport = {free_port()}\n')
        self.opts = Options(settings=str(settings), host="127.0.0.1", port=0, db=str(tmp / "venue.db"))
        self.guard = guard
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(tmp / "notify.sock"))
        self.notify.settimeout(60)  # a bound against a hung start only
        monkeypatch.setenv("NOTIFY_SOCKET", str(tmp / "notify.sock"))
        monkeypatch.delenv("WATCHDOG_USEC", raising=False)
        self.thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)
        self.error: BaseException | None = None

    async def _main(self) -> None:
        self.loop, self.stop = asyncio.get_running_loop(), asyncio.Event()
        try:
            await serve(self.opts, stop=self.stop, guard=self.guard)
        except BaseException as e:
            self.error = e
            self.notify_self()

    def notify_self(self) -> None:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
            s.sendto(b"FAILED", self.notify.getsockname())

    def __enter__(self) -> "VenueThread":
        self.thread.start()
        msg = self.notify.recv(4096).decode()
        assert self.error is None, self.error
        self.port = int(re.search(r"STATUS=serving on port (\d+)", msg).group(1))
        return self

    def __exit__(self, *exc) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)
        self.notify.close()


def test_idle_and_kept_alive_connections_are_closed(tmp_path, monkeypatch):
    with VenueThread(tmp_path, monkeypatch, {"header_seconds": 0.3}) as venue:
        idle = connect(venue.port)
        half = connect(venue.port, send=HALF_HEAD)
        # A whole request, answered, then the connection kept alive and left idle: aiohttp's
        # own keep-alive timeout is an hour, the guard's is its header_seconds.
        kept = connect(venue.port, send=b"GET /api/venue HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = kept.recv(12)
        assert head == b"HTTP/1.1 200"
        while kept.recv(65536):  # the rest of the answer, then the server's close
            pass
        assert closed_by_server(idle) and closed_by_server(half)
        assert get_status(venue.port, "/api/venue") == 200
        for s in (idle, half, kept):
            s.close()


def test_one_address_holds_at_most_its_share(tmp_path, monkeypatch):
    with VenueThread(tmp_path, monkeypatch, {"per_address": 8}) as venue:
        attack = [connect(venue.port, "127.0.4.1", HALF_HEAD if i % 2 else b"") for i in range(30)]
        assert get_status(venue.port, "/api/venue") == 200  # the board, answered at once
        assert all(still_open(s) for s in attack[:8]) and not any(still_open(s) for s in attack[8:])
        for s in attack:
            s.close()


def test_malformed_requests_are_one_line_a_minute(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.DEBUG)
    with VenueThread(tmp_path, monkeypatch, {}) as venue:
        for _ in range(20):
            with connect(venue.port, send=b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n") as s:
                assert re.match(rb"HTTP/1\.[01] 400 ", s.recv(100))
        assert get_status(venue.port, "/api/venue") == 200
    lines = [r for r in caplog.records if "Error handling request" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert "Traceback" not in caplog.text


def test_a_second_venue_on_the_same_port_stops_before_its_database(tmp_path, monkeypatch):
    with VenueThread(tmp_path, monkeypatch, {}) as venue:
        from panel.core.errors import ConfigError

        other = Options(host="127.0.0.1", port=venue.port, db=str(tmp_path / "other" / "venue.db"))
        with pytest.raises(ConfigError, match="--port"):
            asyncio.run(serve(other))
        assert not (tmp_path / "other").exists()


def test_the_guides_venue_toml_example_is_a_valid_settings_file(tmp_path):
    """The venue's settings file as docs/venues.md (the README's venue page) shows it: read
    by the venue's own reader, every key it names checked."""
    from panel.venue.run import read_settings

    guide = (Path(__file__).resolve().parents[1] / "docs" / "venues.md").read_text()
    [example] = [b for b in re.findall(r"```toml\n(.*?)```", guide, re.S) if "[venue]" in b]
    settings = tmp_path / "venue.toml"
    settings.write_text(example)
    venue, broker = read_settings(str(settings))
    assert (venue.name, venue.port, broker.username) == ("Penguin Café", 8090, "venue")
