"""systemd's watchdog, emulated for a benchmark: a notify socket whose WATCHDOG=1 datagrams
the kernel stamps as they arrive (SO_TIMESTAMPNS), so the gaps between them are the
service's loop's, not the benchmark's, however busy the benchmark is when it reads them."""

from __future__ import annotations

import socket
import struct
import time

SO_TIMESTAMPNS = 35  # Linux's generic socket option (x86-64 and arm64), also the SCM_ type of its data


def notify_socket(path: str) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.setblocking(False)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    return sock


def beats(sock: socket.socket) -> list[float]:
    """The WATCHDOG=1 datagrams waiting on `sock`: the time each arrived, in order."""
    out = []
    while True:
        try:
            msg, anc, _, _ = sock.recvmsg(4096, 64)
        except BlockingIOError:
            return out
        if b"WATCHDOG=1" in msg:
            out.append(next((sec + nsec / 1e9 for level, kind, data in anc
                             if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS
                             for sec, nsec in [struct.unpack("qq", data[:16])]), time.time()))
