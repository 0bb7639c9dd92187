"""An MQTT client as the cockpit's bridge and the venue both make one: its settings (TLS,
credentials, keepalive, the window in flight), an error in a few words, and the task
around it stopped cleanly."""

from __future__ import annotations

import asyncio
import functools
import logging

import aiomqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from panel.mqtt.protocol import PACKET_BYTES
from panel.mqtt.settings import BrokerSettings

log = logging.getLogger("penguin-panel")

KEEPALIVE = 15  # seconds: a silent broker is noticed within 1.5x this
WINDOW = 32  # events published before the first of them is acknowledged


def client_for(settings: BrokerSettings, *, identifier: str, will: aiomqtt.Will | None = None,
               clean_session: bool = True, v5: bool = False) -> aiomqtt.Client:
    """An aiomqtt client for these settings (TLS and credentials as the settings say).
    MQTT 5 where its subscription options are needed; 3.1.1 (persistent sessions) otherwise.
    With MQTT 5 the broker is told the largest packet we take, so it never sends a bigger one
    (3.1.1 has no such word: the broker's own max_packet_size bounds what anyone can publish)."""
    properties = None
    if v5:
        properties = Properties(PacketTypes.CONNECT)
        properties.MaximumPacketSize = PACKET_BYTES
    client = aiomqtt.Client(settings.host, settings.real_port, username=settings.username,
                            password=settings.password, identifier=identifier, will=will,
                            protocol=aiomqtt.ProtocolVersion.V5 if v5 else aiomqtt.ProtocolVersion.V311,
                            clean_session=None if v5 else clean_session, keepalive=KEEPALIVE,
                            tls_context=_tls(settings), timeout=10, properties=properties)
    client.pending_calls_threshold = WINDOW + 16  # our window in flight is no reason for a warning
    return client


@functools.lru_cache(maxsize=4)
def _tls(settings: BrokerSettings):
    """The TLS context, made once (reading the certificates at every reconnection attempt
    would cost a cockpit in an outage for nothing)."""
    return settings.ssl_context()


def why(e: BaseException) -> str:
    """An aiomqtt error in a few words ('[code:134] Bad user name or password')."""
    text = str(e) or type(e).__name__
    return text.replace("Operation timed out", "no answer").strip()


def quiet_closed_sockets(loop: asyncio.AbstractEventLoop) -> None:
    """aiomqtt 2.5 can ask the loop to watch a socket that has just closed when the broker
    goes away (fixed on its main branch: "Make socket management async and more robust");
    asyncio would print that as a traceback. The connection is lost either way and the
    bridge reconnects, so it is said in one debug line instead. Other errors are untouched."""
    if getattr(loop, "_penguin_quiet_sockets", False):
        return
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        exc = context.get("exception")
        what = repr(context.get("handle", ""))
        if isinstance(exc, (OSError, KeyError, ValueError)) and ("add_writer" in what or "add_reader" in what):
            log.debug("MQTT: a closed socket's watch dropped (%s)", exc)
        elif previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
    loop._penguin_quiet_sockets = True


async def cancel(task: asyncio.Task | None, seconds: float = 3.0) -> None:
    """Cancel a task and give it `seconds` to finish (a clean MQTT disconnect takes a moment)."""
    if task is None:
        return
    task.cancel()
    try:
        async with asyncio.timeout(seconds):
            await task
    except (asyncio.CancelledError, TimeoutError):
        pass
