"""systemd's notify protocol, the ten lines it takes (no dependency).

With Type=notify systemd waits for READY=1 before it calls the unit started, and with
WatchdogSec= it restarts the service when WATCHDOG=1 stops arriving. The service sends
WATCHDOG=1 from a task on its asyncio loop, so a loop that hangs is a loop that gets
restarted. Outside systemd (no NOTIFY_SOCKET) every call does nothing.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    """A context manager around the NOTIFY_SOCKET datagram socket; close() is idempotent."""

    def __init__(self, address: str | None = None):
        address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
        self._sock: socket.socket | None = None
        self._address = None
        if address:
            # '@name' is an abstract socket: the name starts with a NUL byte.
            self._address = "\0" + address[1:] if address.startswith("@") else address
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self._sock.setblocking(False)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def notify(self, message: str) -> bool:
        if self._sock is None:
            return False
        try:
            self._sock.sendto(message.encode(), self._address)
            return True
        except OSError:
            return False  # systemd gone or busy: never a reason to stop the game

    def ready(self, status: str | None = None) -> bool:
        return self.notify("READY=1" + (f"\nSTATUS={status}" if status else ""))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def close(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()

    def __enter__(self) -> "Notifier":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def watchdog_interval() -> float | None:
    """Half of WatchdogSec (systemd's advice), or None when no watchdog is set for us."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec:
        return None
    if pid and pid != str(os.getpid()):
        return None
    try:
        seconds = int(usec) / 1_000_000
    except ValueError:
        return None
    return seconds / 2 if seconds > 0 else None
