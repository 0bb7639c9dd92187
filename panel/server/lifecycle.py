"""A server process's life, the cockpit's (panel/run.py) and the venue's (panel/venue/run.py)
alike: its one line at a time on the terminal, the stop on SIGTERM or Ctrl-C, the port
bound before anything is read, the admin's PIN at first start, and systemd told it is
ready and fed its watchdog while the process's owner runs."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, _
from panel.server.guard import bind
from panel.server.sdnotify import Notifier, watchdog_interval
from panel.server.security import Security


def say(message: str) -> None:
    print(f"penguin-panel: {message}", flush=True)


def stop_on_signals(stop: asyncio.Event | None = None) -> asyncio.Event:
    """An event set by SIGTERM (systemd's stop) or Ctrl-C."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):
            pass
    return stop


def first_pin(security: Security, pin: str | None, what: str, forgotten: str) -> None:
    """The settings file's PIN, or one made at first start and printed this once."""
    if pin is not None:
        if not security.check_pin(pin):
            security.set_pin(pin)
        say(_("{what}: the one in the settings file").format(what=_(what)))
        return
    made = security.ensure_pin()
    if made:
        say(_("{what}: {pin}  (made now and shown only this once; {forgotten})").format(
            what=_(what), pin=made, forgotten=_(forgotten)))
    else:
        say(_("{what}: as set before (forgotten? {forgotten})").format(what=_(what), forgotten=_(forgotten)))


def bind_port(host: str, port: int):
    """The listening socket, bound now; ConfigError naming --port when it cannot be had."""
    try:
        return bind(host, port)
    except OSError as e:
        raise ConfigError(Problem(None, "--port", Text(N_("cannot listen on {host}:{port} ({why})"), host=host, port=port,
                                                       why=e.strerror or e))) from None


async def until_stopped(stop: asyncio.Event, notifier: Notifier, owner: Any, port: int) -> None:
    """Tell systemd we are ready, feed its watchdog while `owner` runs, wait for the stop."""
    notifier.ready(f"serving on port {port}")
    watchdog = asyncio.create_task(feed_watchdog(notifier, owner))
    await stop.wait()
    say(_("stopping"))
    notifier.stopping()
    watchdog.cancel()


async def feed_watchdog(notifier: Notifier, owner: Any) -> None:
    """WATCHDOG=1 at half WatchdogSec, from the loop and only while the owner runs:
    a hung loop or a closed owner stops the feeding, and systemd restarts us."""
    interval = watchdog_interval()
    if interval is None or not notifier.enabled:
        return
    while True:
        if owner.running:
            notifier.watchdog()
        await asyncio.sleep(interval)
