"""The venue's view of the broker: every cockpit's live state, and the leaderboard.

One asyncio task follows the broker (every cockpit's status, state, events, results and
command replies) and fans what changes out to the board pages' sockets, the same bounded
`Peer` sockets as the cockpit's pages. It survives the broker going away: it tries again
with a growing pause, and its MQTT session is persistent (`clean_session=False`), so
the broker keeps the results published meanwhile for it; on every (re)connection the
retained states, statuses and last results come again and rebuild the live picture. Its
own store keeps the counted matches and the last word of every cockpit, so a venue
started while the broker is down still shows the leaderboard and the last known states.

Incoming payloads are bounded before they are read (size, nesting, digits) and checked
against the protocol's schemas (a newer cockpit's extra fields are accepted) and a result
against its game's rules (`Game.result_limits`); a bad one is said once per cockpit and
topic, in one line, and anything else odd in one line a minute, never a traceback.

Every result it has handled (counted, a repeat, or refused) is acknowledged on the
cockpit's ack topic: the cockpit keeps each one until then, so none is lost to a venue
away for a day or its queue at the broker overflowing. Its own status topic says
`online` when it connects (`offline` is its last will): the cockpits then send again what
it has not acknowledged.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import secrets
import time
from typing import Any, Callable

import aiomqtt

from panel.core.backoff import Backoff
from panel.core.errors import StoreError
from panel.core.i18n import _
from panel.mqtt.client import cancel, client_for, quiet_closed_sockets, why
from panel.mqtt.protocol import (BACKOFF, COMMANDS, END_WHEN, OFFLINE, ONLINE, VERSION, PayloadError, ack_payload,
                                 check_result, decode, encode, parse_topic, topic)
from panel.mqtt.settings import BrokerSettings
from panel.server.guard import Quiet
from panel.server.message import Message
from panel.venue.store import PERIODS, VenueStore, since

log = logging.getLogger("penguin-panel")

REPLY_SECONDS = 10.0  # how long the admin page waits for a cockpit's answer to a command
PUSH_EVERY = 0.1  # seconds: a leaderboard waiting behind a stream of messages goes out at least this often
# The cockpits' topics the venue follows, each with the QoS it subscribes at. Its session is
# persistent, so the broker keeps the QoS 1 messages that come while it is away, up to its
# queue's limit (Mosquitto: 1,000 a client): only what must not be missed is QoS 1 (the
# results, the statuses, the replies to its commands). A state is retained (the last one
# comes again) and an event is only worth showing live: at QoS 0 they are not queued, so
# an afternoon away cannot fill the queue with them and push results out of it.
FOLLOWED = {"status": 1, "state": 0, "event": 0, "result": 1, "reply": 1}


class CommandFailed(Exception):
    """A command the venue could not get answered: `status` is the HTTP status to send."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Venue:
    """Follows the broker. `await start()` / `await close()`."""

    def __init__(self, store: VenueStore, settings: BrokerSettings, *, client_id: str | None = None,
                 backoff: tuple[float, float] = BACKOFF, clock: Callable[[], float] = time.time,
                 reply_seconds: float = REPLY_SECONDS):
        self.store = store
        self.settings = settings
        self.clock = clock
        self.reply_seconds = reply_seconds
        self.client_id = client_id or f"penguin-panel-venue-{settings.username or 'anonymous'}"
        self.cockpits: dict[str, dict[str, Any]] = {}
        self.peers: set[Any] = set()
        self.connected = asyncio.Event()
        self.counted = 0  # results counted by this process (a repeated one is not)
        self._client: aiomqtt.Client | None = None
        self._pending: dict[str, asyncio.Future] = {}
        self._said: set[tuple[str, str]] = set()
        self._store_said = -math.inf  # when a store problem was last said
        self._new: list[dict[str, Any]] = []
        self._pushed = 0.0  # loop time of the last leaderboard push
        # The leaderboard and the snapshot as the pages get them, made again only when a
        # result is counted, something the board shows changes, or a new day begins: a
        # request reads them, however many TVs ask and however many results are kept.
        self._boards: Message | None = None
        self._boards_day: float | None = None
        self._snapshot: str | None = None
        self._backoff = Backoff(*backoff)
        self._task: asyncio.Task | None = None
        self._quiet = Quiet(log)
        self.refused = 0  # results refused (over their game's limits, or not a game the venue counts)
        for cockpit, status, state, seen in store.cockpits():  # the last word, until the broker speaks
            self.cockpits[cockpit] = {"status": status, "state": state, "seen": seen}

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        quiet_closed_sockets(asyncio.get_running_loop())
        self._task = asyncio.create_task(self._run(), name="venue-mqtt")

    async def close(self) -> None:
        task, self._task = self._task, None
        await cancel(task)

    @property
    def running(self) -> bool:
        """The follower task lives (the systemd watchdog is fed only then)."""
        return self._task is not None and not self._task.done()

    async def __aenter__(self) -> "Venue":
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    # ------------------------------------------------------------------ views
    def cockpit_view(self, cockpit: str) -> dict[str, Any]:
        c = self.cockpits[cockpit]
        state = c["state"]
        return {"id": cockpit, "name": (state or {}).get("name") or f"Cockpit {cockpit}",
                "online": c["status"] == "online", "seen": c["seen"], "state": state}

    def leaderboard(self) -> dict[str, Any]:
        """The day's, the week's and the all-time boards (made again after a result is
        counted, or when the day the venue's clock is in changes)."""
        now = self.clock()
        day = since("day", now)
        if self._boards is None or day != self._boards_day:
            self._boards = Message({p: self.store.leaderboard(p, now) for p in PERIODS})
            self._boards_day = day
            self._snapshot = None
        return self._boards

    def snapshot(self) -> dict[str, Any]:
        return {"broker": self.connected.is_set(), "cockpits": [self.cockpit_view(c) for c in sorted(self.cockpits)],
                "leaderboard": self.leaderboard()}

    def snapshot_text(self) -> str:
        """The snapshot as JSON text, made once for every request until something changes."""
        boards = self.leaderboard()
        if self._snapshot is None:
            # The boards' own text (serialised once per change) in the place of the null.
            self._snapshot = json.dumps({"broker": self.connected.is_set(),
                                         "cockpits": [self.cockpit_view(c) for c in sorted(self.cockpits)],
                                         "leaderboard": None})[:-len("null}")] + boards.text + "}"
        return self._snapshot

    # ------------------------------------------------------------------ the board pages
    def subscribe(self, peer: Any) -> None:
        self.peers.add(peer)
        peer.send({"type": "venue", **self.snapshot()})

    def unsubscribe(self, peer: Any) -> None:
        self.peers.discard(peer)

    def _send_all(self, message: dict[str, Any]) -> None:
        self._snapshot = None  # whatever the boards hear of changes the snapshot
        message = Message(message)  # serialised once, however many boards listen
        for peer in list(self.peers):
            peer.send(message)

    # ------------------------------------------------------------------ commands
    async def command(self, cockpit: str, action: str, *, when: str | None = None,
                      by: str = "the venue's admin page") -> dict[str, Any]:
        """Ask a cockpit to start, pause, resume or end (`when`: now or at the end of the
        round, the two ends /admin offers); its reply (done, or why not)."""
        if action not in COMMANDS:
            raise CommandFailed(400, f"action: {action!r} is not a command (expected one of: {', '.join(COMMANDS)})")
        if when is not None and (action != "end" or when not in END_WHEN):
            raise CommandFailed(400, f"when: {str(when)[:20]!r} is not an end (an end is {' or '.join(END_WHEN)})"
                                if action == "end" else "when: only an end has one")
        if cockpit not in self.cockpits:
            raise CommandFailed(404, f"cockpit: {cockpit!r} is not a cockpit the venue knows")
        client = self._client
        if client is None or not self.connected.is_set():
            raise CommandFailed(503, "the venue is not connected to the broker: try again when it is")
        request_id = secrets.token_hex(8)
        future = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        name = self.cockpit_view(cockpit)["name"]
        try:
            await client.publish(topic("command", prefix=self.settings.topic_prefix, cockpit=cockpit, action=action),
                                 encode({"v": VERSION, "id": request_id, "by": by,
                                         **({"when": when} if when else {})}), qos=1)
            async with asyncio.timeout(self.reply_seconds):
                return await future
        except TimeoutError:
            raise CommandFailed(504, f"{name} did not answer within {self.reply_seconds:.0f} s "
                                     "(is it switched on and connected?)") from None
        except aiomqtt.MqttError as e:
            raise CommandFailed(503, f"the broker did not take the command ({why(e)})") from None
        finally:
            self._pending.pop(request_id, None)

    # ------------------------------------------------------------------ the connection
    async def _run(self) -> None:
        s = self.settings
        last_reason = None
        while True:
            try:
                status = topic("venue_status", prefix=s.topic_prefix, cockpit="")
                will = aiomqtt.Will(status, OFFLINE, qos=1, retain=True)
                self._client = client_for(s, identifier=self.client_id, clean_session=False, will=will)
                async with self._client as client:
                    self._backoff.reset()
                    last_reason = None
                    for key, qos in FOLLOWED.items():
                        await client.subscribe(topic(key, prefix=s.topic_prefix, cockpit="+"), qos=qos)
                    # Once subscribed: the cockpits send again what it has not acknowledged.
                    await client.publish(status, ONLINE, qos=1, retain=True)
                    self.connected.set()
                    self._send_all({"type": "broker", "connected": True})
                    log.info("venue: following the cockpits on %s (%s/v%d/+/...)", s.where, s.topic_prefix, VERSION)
                    loop = asyncio.get_running_loop()
                    async for message in client.messages:
                        ack = self._guard(message)
                        if ack is not None:
                            await client.publish(*ack, qos=1)
                        # The new leaderboard once the messages that came together are handled
                        # (a hundred results at once make one push, not a hundred).
                        if self._new and (not len(client.messages) or loop.time() - self._pushed >= PUSH_EVERY):
                            self._push_leaderboard()
            except asyncio.CancelledError:
                raise
            except aiomqtt.MqttError as e:
                reason = why(e)
            except Exception as e:  # never let one surprise stop the board
                reason = f"{type(e).__name__}: {e}"
                log.debug("venue MQTT error", exc_info=True)
            finally:
                if self.connected.is_set():
                    self.connected.clear()
                    self._send_all({"type": "broker", "connected": False})
                self._client = None
            pause = self._backoff.pause()
            if reason != last_reason:
                # Said at start-up when the broker is not up yet: in the venue computer's language, as its other lines.
                log.warning(_("venue: broker {broker}: {reason}; trying again in {seconds} s (the board shows the last "
                              "known states)").format(broker=s.where, reason=reason, seconds=f"{pause:.2g}"))
                last_reason = reason
            await asyncio.sleep(pause)

    def _guard(self, message: aiomqtt.Message) -> tuple[str, bytes] | None:
        try:
            return self.handle(str(message.topic), bytes(message.payload))
        except Exception as e:  # one odd message must not stop the others, nor flood the log
            self._quiet.warn("odd", f"venue: could not handle a message on {str(message.topic)[:120]}: "
                                    f"{type(e).__name__}: {str(e)[:160]}")
            return None

    def handle(self, name: str, raw: bytes) -> tuple[str, bytes] | None:
        """One message from the broker; the acknowledgement to publish for a result."""
        parsed = parse_topic(name, self.settings.topic_prefix)
        if parsed is None or parsed[1] not in FOLLOWED:
            return
        cockpit, key, _ = parsed
        if not raw:
            if key in ("status", "state"):  # its retained topics emptied: the cockpit left the broker
                self._forget(cockpit)
            return
        try:
            payload = decode(key, raw)
            if key != "status" and payload["cockpit"] != cockpit:
                raise PayloadError(f"payload speaks for cockpit {payload['cockpit']!r}")
        except PayloadError as e:
            self._say(cockpit, key, f"venue: ignored a message from cockpit {cockpit} on {name}: {e}")
            return None
        self._said.discard((cockpit, key))
        now = self.clock()
        if key == "status":
            self._update(cockpit, now, status=payload)
        elif key == "state":
            self._update(cockpit, now, state=payload)
        elif key == "event":
            if cockpit in self.cockpits:
                self._send_all({"type": "event", "cockpit": cockpit, "name": self.cockpit_view(cockpit)["name"],
                                "event": payload["event"]})
        elif key == "result":
            return self._result(cockpit, name, payload, now)
        elif key == "reply":
            future = self._pending.get(payload.get("id") or "")
            if future is not None and not future.done():
                future.set_result(payload)
        return None

    def _result(self, cockpit: str, name: str, payload: dict[str, Any], now: float) -> tuple[str, bytes] | None:
        """Count a result within its game's rules; the acknowledgement either way (a refused
        one would come again forever)."""
        counted = False
        try:
            check_result(payload)
        except PayloadError as e:
            self.refused += 1
            self._say(cockpit, "result", f"venue: refused a result from cockpit {cockpit} "
                                         f"(match {payload['match']['id']}): {e}")
        else:
            try:
                counted = self.store.add_result(payload, now)
            except StoreError as e:  # the disk, or a damaged file: said once a minute, the others go on
                self._store_problem(e)
                return None  # not acknowledged: the cockpit sends it again
        if counted:
            self.counted += 1
            self._boards = None
            self._new.append({"cockpit": cockpit, "match_id": payload["match"]["id"], "name": payload["name"],
                              "mode": payload["mode"], "winner": payload["winner"], "tier": payload["tier"]})
        return (topic("ack", prefix=self.settings.topic_prefix, cockpit=cockpit),
                encode(ack_payload(payload, counted=counted)))

    def _say(self, cockpit: str, key: str, line: str) -> None:
        """A bad message: said once per cockpit and topic until a good one comes, and all of
        them at most one line a minute (a stream of odd ones cannot flood the log)."""
        if (cockpit, key) not in self._said:
            if len(self._said) < 10_000:  # cockpit ids come from the broker's users: a bound anyway
                self._said.add((cockpit, key))
            self._quiet.warn(f"payload {cockpit} {key}", line)

    def _store_problem(self, e: StoreError) -> None:
        now = self.clock()
        if now - self._store_said >= 60:
            self._store_said = now
            log.warning("venue: could not count a result (%s); its cockpit sends it again until it is acknowledged", e)

    def _update(self, cockpit: str, now: float, **change: Any) -> None:
        c = self.cockpits.setdefault(cockpit, {"status": None, "state": None, "seen": now})
        before = (c["status"], _steady(c["state"]))
        c.update(change)
        c["seen"] = now
        if (c["status"], _steady(c["state"])) != before:  # the timer's ticks are not worth a disk write
            try:
                self.store.save_cockpit(cockpit, c["status"], c["state"], now)
            except StoreError as e:  # the live picture goes on; only its copy on disk is late
                self._store_problem(e)
        self._send_all({"type": "cockpit", "cockpit": self.cockpit_view(cockpit)})

    def _forget(self, cockpit: str) -> None:
        if self.cockpits.pop(cockpit, None) is not None:
            self.store.forget_cockpit(cockpit)
            log.info("venue: cockpit %s left the broker (its bridge was switched off)", cockpit)
            self._send_all({"type": "forget", "cockpit": cockpit})

    def _push_leaderboard(self) -> None:
        self._pushed = asyncio.get_running_loop().time()
        new, self._new = self._new, []
        self._send_all({"type": "leaderboard", "leaderboard": self.leaderboard(), "new": new})


def _steady(state: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if state is None else {k: v for k, v in state.items() if k != "time_left"}
