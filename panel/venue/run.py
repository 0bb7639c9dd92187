"""Start and stop the venue: its store, its PIN, the broker follower, the web server, systemd.

    [venue]                      # all optional
    host = "0.0.0.0"
    port = 8090
    db = "/var/lib/penguin-panel/venue.db"
    pin = "135790"               # the venue admin's PIN (else made at first start, printed once)
    allow_hosts = ["venue.example"]
    name = "Penguin Café"        # the board's title

    [mqtt]                       # the broker: as a cockpit's, without the cockpit's own keys
    host = "localhost"
    username = "venue"
    password = "..."
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from panel.core.errors import ConfigError, Problem, StoreError
from panel.core import schema
from panel.core.toml_file import read_toml
from panel.core.i18n import N_, Text, _
from panel.mqtt.settings import BrokerSettings, Table
from panel.server import event_loop
from panel.server.guard import ConnectionGuard, guard_process, start_serving
from panel.server.lifecycle import bind_port, first_pin, say, stop_on_signals, until_stopped
from panel.server.sdnotify import Notifier
from panel.server.security import PinError, Security, check_pin_format
from panel.venue.app import build_app
from panel.venue.store import VenueStore
from panel.venue.venue import Venue

log = logging.getLogger("penguin-panel")


@dataclass(frozen=True)
class VenueSettings(Table):
    """The [venue] table."""

    host: str = "0.0.0.0"
    port: int = 8090
    db: str | None = None
    pin: str | None = None
    allow_hosts: tuple[str, ...] = ()
    name: str = "Penguin Airlines"

    def _check(self, bad) -> None:
        if not 0 <= self.port <= 65535:
            bad("port", Text(N_("must be a port number 0-65535, not {value}"), value=self.port))
        if self.pin is not None:
            try:
                check_pin_format(self.pin)
            except PinError as e:
                bad("pin", e.args[0])
        if not 1 <= len(self.name) <= 64:
            bad("name", Text(N_("1 to 64 characters")))


@dataclass
class Options:
    settings: str | None = None
    host: str | None = None
    port: int | None = None
    db: str | None = None


def default_db() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "penguin-panel" / "venue.db"


# Each table is checked by its settings type.
VENUE_FILE = schema.Table(fields={"venue": schema.Field(), "mqtt": schema.Field()})


def read_settings(path: str | None) -> tuple[VenueSettings, BrokerSettings]:
    """The venue's settings file ([venue] and [mqtt]), every problem at once."""
    raw = read_toml(path) if path else {}
    problems = schema.Problems(path)
    VENUE_FILE.read_top(raw, problems)
    venue = problems.collect(VenueSettings.from_table, raw.get("venue", {}), file=path, table="venue")
    broker = problems.collect(BrokerSettings.from_table, raw.get("mqtt", {}), file=path, table="mqtt")
    problems.raise_any()
    return venue, broker


async def serve(opts: Options, *, stop: asyncio.Event | None = None, guard: dict | None = None) -> None:
    """The venue until `stop` (or SIGTERM/SIGINT); `guard`: the ConnectionGuard's options
    (its defaults unless a test shortens its timeouts)."""
    venue_settings, broker = read_settings(opts.settings)
    host = opts.host or venue_settings.host
    port = opts.port if opts.port is not None else venue_settings.port
    db = Path(opts.db or venue_settings.db or default_db()).expanduser()
    stop = stop_on_signals(stop)
    started = time.monotonic()
    # The cockpit's protections against the LAN (guard.py): descriptors raised, repeated
    # failures one line a minute, the port bound before the store is opened, every
    # connection through the guard (request heads and keep-alive idling bounded, a share
    # per address).
    quiet = guard_process()
    sock = bind_port(host, port)
    try:
        store = VenueStore(db)
    except StoreError as e:
        sock.close()
        raise ConfigError(Problem(None, "--db", e.args[0])) from None
    with sock, store, Notifier() as notifier:
        security = Security(store, allow_hosts=list(venue_settings.allow_hosts)
                            + ([host] if host not in ("0.0.0.0", "::") else []))
        first_pin(security, venue_settings.pin, N_("venue admin PIN"),
                  N_("a new one: pin = '...' in the settings file's [venue] table"))
        venue = Venue(store, broker)
        await venue.start()
        try:
            runner = await start_serving(build_app(venue, security, name=venue_settings.name, quiet=quiet), sock,
                                         ConnectionGuard(quiet=quiet, **(guard or {})))
        except BaseException:
            await venue.close()
            raise
        try:
            real = sock.getsockname()[1]  # the real one when --port 0
            shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
            say(_("venue board on {url}  (broker {broker}, database {db}, ready in {seconds} s)").format(
                url=f"http://{shown}:{real}/", broker=broker.where, db=db, seconds=f"{time.monotonic() - started:.2f}"))
            await until_stopped(stop, notifier, venue, real)
        finally:
            await runner.cleanup()
            await venue.close()


def run(opts: Options) -> int:
    logging.basicConfig(level=logging.INFO, format="penguin-panel: %(message)s", stream=sys.stderr)
    event_loop.run(serve(opts))
    return 0
