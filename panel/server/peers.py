"""Who is on the other end: whether a request comes from this computer (`from_this_computer`,
the one place that decides it), and the pages' live sockets: one `Peer` per page, with a
bounded queue and a writer task, so a slow phone never holds up what it follows (the
cockpit, the venue: any hub with subscribe/unsubscribe); its messages are dropped and it
is disconnected instead."""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections import deque
from typing import Any, Iterable

from aiohttp import WSCloseCode, web

from panel.server.message import Message

REVOKED = 4403  # "forbidden", in the private range of WebSocket close codes: the page must ask again
HEARTBEAT = 20.0  # seconds between pings: a page gone without a word is noticed
MAX_MESSAGE = 4096  # bytes a page may send (pages only listen)


# This computer's own addresses: its screen (the kiosk on the room's TV) and, on a laptop,
# every browser of the quickest game. Only these two: no device of the café's network can
# send from them, and the tests stand the rest of 127/8 in for the network's devices.
THIS_COMPUTER = frozenset({ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")})


def this_computer(address: str | None) -> bool:
    """Whether a peer's address is this computer's: 127.0.0.1 or ::1, also written as the
    IPv4-mapped ::ffff:127.0.0.1 that a socket served on "::" hands out for IPv4."""
    if not address:
        return False
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:  # a Unix socket, a test's fake transport: not an address of this computer
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip in THIS_COMPUTER


def from_this_computer(request: web.BaseRequest) -> bool:
    """Whether `request` was sent from this computer (by its peer's address, never by a
    header a client writes): the cockpit trusts such a page as the room's own screen."""
    return this_computer(request.remote)


class Peer:
    """One page's socket: a bounded queue and a writer task, so a slow phone never holds
    up the cockpit (its messages are dropped and it is disconnected instead).

    The queue is a deque and the writer's one waiting future, not an asyncio.Queue: a
    message is queued after every press, on the press's own turn of the loop, and the
    Queue's put is six calls of its own around the same append and wake-up."""

    QUEUE = 512

    def __init__(self, ws: web.WebSocketResponse, view: str, code: str | None = None):
        self.ws = ws
        self.view = view
        self.code = code  # a tower's join code: a new match with another one closes it
        self.queue: deque[Any] = deque()  # what the writer has not sent yet; None: close
        self.closing: int | None = None
        self._waiting: asyncio.Future | None = None  # the writer's, while the queue is empty

    def send(self, message: dict[str, Any]) -> None:
        """Queue one message for the page: a `Message` is serialised once for every page."""
        if self.closing is not None:
            return
        if len(self.queue) >= self.QUEUE:
            self.close(WSCloseCode.TRY_AGAIN_LATER)
            return
        self.queue.append(message)
        waiting = self._waiting  # (_wake, written out: every press's first message asks it)
        if waiting is not None:
            self._waiting = None
            if not waiting.done():
                waiting.set_result(None)

    def _wake(self) -> None:
        """The writer woken if it waits for a message."""
        waiting, self._waiting = self._waiting, None
        if waiting is not None and not waiting.done():
            waiting.set_result(None)

    def revoke(self) -> None:
        """The join code changed: this tower must scan the new one."""
        self.close(REVOKED)

    def close(self, code: int) -> None:
        if self.closing is None:
            self.closing = code
            if len(self.queue) >= self.QUEUE:  # a full queue: its oldest message dropped to make room
                self.queue.popleft()
            self.queue.append(None)  # the writer sends what was queued before, then closes
            self._wake()

    async def writer(self) -> None:
        queue = self.queue
        try:
            while True:
                if not queue:
                    self._waiting = asyncio.get_running_loop().create_future()
                    await self._waiting
                    continue
                message = queue.popleft()
                if message is None:
                    await self.ws.close(code=self.closing or WSCloseCode.OK)
                    return
                await self.ws.send_str(message.text if isinstance(message, Message) else json.dumps(message))
        except ConnectionError:
            # The page went away between two messages: nothing left to tell it. (Raised,
            # the task could end before `follow` looks at it, and its exception would be
            # logged as a traceback when the task is collected; the soak found one.)
            return


async def open_socket(request: web.Request) -> web.WebSocketResponse:
    """The page's socket, accepted."""
    ws = web.WebSocketResponse(heartbeat=HEARTBEAT, max_msg_size=MAX_MESSAGE)
    await ws.prepare(request)
    return ws


async def follow(ws: web.WebSocketResponse, peer: Peer, hub: Any) -> None:
    """Give a page's socket to what it follows (the cockpit, the venue: anything with
    subscribe/unsubscribe) and send it what comes until the page goes away."""
    hub.subscribe(peer)
    writer = asyncio.create_task(peer.writer())
    try:
        async for _ in ws:  # pages only listen; anything they send is ignored
            if writer.done():
                break
    finally:
        hub.unsubscribe(peer)
        if not writer.done():
            peer.close(WSCloseCode.GOING_AWAY)
            try:
                await asyncio.wait_for(writer, 1.0)
            except (asyncio.TimeoutError, ConnectionError):
                writer.cancel()


def going_away(peers: Iterable[Any]) -> None:
    """On stop, tell every page "going away" at once: an open socket otherwise holds the
    shutdown until aiohttp's own timeout, and systemd's restart waits for it."""
    for peer in list(peers):
        peer.close(WSCloseCode.GOING_AWAY)
