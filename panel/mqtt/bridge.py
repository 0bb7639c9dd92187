"""The cockpit's bridge to the venue's MQTT broker: one asyncio task beside the cockpit.

It listens to the cockpit the way a page does (`Cockpit.subscribe`): the cockpit hands it
every game event and every new public state, synchronously, and the bridge only appends
to its outbox and wakes its own task. Nothing the cockpit does ever waits on the network:

- events wait in a bounded outbox (`OUTBOX_EVENTS`, oldest dropped first and counted in the
  state's `dropped_events`) and go out in order, each removed only once the broker has it;
- the state is one slot (only the latest matters; it is retained), sent when it changed;
- results are rebuilt from the cockpit's own log, and each one is kept for the venue until
  the venue acknowledges it on the ack topic (the store remembers the last one acknowledged,
  so the store's matches after it are the persistent outbox): none is lost to an outage, a
  restart, a venue away for a day or its queue at the broker overflowing. At most
  RESULTS_WINDOW go unacknowledged at once; they go again when the venue says it is back
  online, when the bridge reconnects, or after ACK_WAIT without an answer.

When the broker is away the bridge tries again with a growing pause (`backoff`), and
once it is back it says `online`, re-announces itself to Home Assistant, republishes the
retained state and sends what it kept. Commands from the venue arrive on the command
topics and go through the cockpit's own entry points (`Cockpit.action`, the START button
for a walk-up match), so the engine checks and logs them like the game master's page.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import time
from collections import deque
from datetime import datetime
from typing import Any, Callable

import aiomqtt
from paho.mqtt.subscribeoptions import SubscribeOptions

from panel.core.errors import Refused
from panel.core.i18n import _
from panel.games.registry import game_of
from panel.service.replay import replay
from panel.mqtt.protocol import (ACK_WAIT, BACKOFF, counted_at_venue, COMMAND_ACTIONS, COMMANDS, OFFLINE, ONLINE,
                                 OUTBOX_EVENTS, PAYLOAD_BYTES, RESULT_STATUSES, RESULTS_WINDOW, PayloadError,
                                 decode, discovery, encode, event_payload, parse_command, parse_topic, reply_payload,
                                 result_payload, state_payload, topic)
from panel.mqtt.results import Unacknowledged
from panel.server.guard import Quiet
from panel.core.backoff import Backoff
from panel.mqtt.client import WINDOW, cancel, client_for, quiet_closed_sockets, why
from panel.mqtt.settings import BridgeSettings

log = logging.getLogger("penguin-panel")

# Store setting: the id of the last match whose result the venue acknowledged (every one
# before it too); the name is from before the venue acknowledged results.
RESULT_KEY = "mqtt_result_sent"
RETAINED_KEY = "mqtt_retained"  # store setting: the retained topics this cockpit has put on the broker
STOP_FLUSH = 2.0  # seconds a stopping cockpit gives its outbox to drain


class _Listener:
    """What the cockpit sees of the bridge: a subscriber like a page's socket."""

    view = "mqtt"

    def __init__(self, bridge: "Bridge"):
        self._bridge = bridge

    def send(self, message: dict[str, Any]) -> None:
        self._bridge._take(message)

    def revoke(self) -> None:  # a page's join code; nothing to do here
        pass

    def close(self, code: int | None = None) -> None:  # the pages' shutdown: the bridge stops on its own
        pass


class Bridge:
    """The cockpit on the broker. `await start()` / `await close()`, or `async with`."""

    def __init__(self, cockpit, settings: BridgeSettings, *, outbox: int = OUTBOX_EVENTS,
                 backoff: tuple[float, float] = BACKOFF, wall_clock: Callable[[], float] = time.time):
        self.cockpit = cockpit
        self.settings = settings
        self.wall_clock = wall_clock
        self.events: deque[tuple[int, int | None, dict[str, Any], float]] = deque(maxlen=outbox)
        self.dropped = 0
        self.sent_events = 0
        self.commands = 0  # commands received on the command topics (refused ones too)
        self.connections = 0
        self.connected = asyncio.Event()  # set while the broker has us
        self._seq = 0
        self._state: dict[str, Any] | None = None
        self._state_sent: dict[str, Any] | None = None
        self._told: tuple[Any, Any] | None = None  # the match and status of the last state the broker has
        self._results_due = True
        self.results = Unacknowledged(0)  # what the venue has not acknowledged (the mark: in the store)
        self.acks = 0  # acknowledgements received
        self._quiet = Quiet(log)
        self._wake = asyncio.Event()
        self._listener = _Listener(self)
        self._backoff = Backoff(*backoff)
        self._client: aiomqtt.Client | None = None
        self._task: asyncio.Task | None = None
        self._closed = False
        self.base = self.topic("state").rsplit("/", 1)[0]

    def topic(self, key: str, **values: str) -> str:
        return topic(key, prefix=self.settings.topic_prefix, cockpit=self.settings.cockpit_id, **values)

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        quiet_closed_sockets(asyncio.get_running_loop())
        store = self.cockpit.store
        if store.get_setting(RESULT_KEY) is None:
            # First time on a broker: the matches played before do not flood the venue.
            # (the newest few are enough: only the latest match can be in play)
            done = [r.id for r in store.matches_page(limit=10) if r.status != "active"]
            store.set_setting(RESULT_KEY, str(max(done, default=0)))
        self.results = Unacknowledged(int(store.get_setting(RESULT_KEY) or 0))
        self.cockpit.subscribe(self._listener)  # sends the state now
        self._task = asyncio.create_task(self._run(), name="mqtt-bridge")

    async def close(self) -> None:
        """Stop: send what is queued (for up to STOP_FLUSH seconds), say `offline`, disconnect."""
        if self._closed:
            return
        self._closed = True
        self.cockpit.unsubscribe(self._listener)
        client = self._client
        if client is not None and self.connected.is_set():
            try:
                async with asyncio.timeout(STOP_FLUSH):
                    while self.events and self.connected.is_set():
                        await asyncio.sleep(0.02)
                    await client.publish(self.topic("status"), OFFLINE, qos=1, retain=True)
            except (TimeoutError, aiomqtt.MqttError):
                pass  # the broker publishes our last will instead
        task, self._task = self._task, None
        await cancel(task)

    async def __aenter__(self) -> "Bridge":
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    # ------------------------------------------------------------------ from the cockpit
    def _take(self, message: dict[str, Any]) -> None:
        """Called by the cockpit, on its task, for every message it fans out: O(1), no I/O."""
        kind = message.get("type")
        record = self.cockpit.record
        if kind == "event" and record is not None and not counted_at_venue(record.settings):
            return  # a match the venue does not score: its state shows the cockpit idle, no event goes out
        if kind == "event":
            self._seq += 1
            if len(self.events) == self.events.maxlen:
                self.dropped += 1
            self.events.append((self._seq, record.id if record else None, message["event"], self.wall_clock()))
        elif kind == "state":
            self._state = message["state"]
            if self._state.get("status") in RESULT_STATUSES and (self._state.get("match_id") or 0) > self.results.acked:
                self._results_due = True  # a match just ended: its result goes out
        else:
            return
        self._wake.set()

    # ------------------------------------------------------------------ the connection
    async def _run(self) -> None:
        s = self.settings
        failed_since: float | None = None
        last_reason = None
        while True:
            try:
                will = aiomqtt.Will(self.topic("status"), OFFLINE, qos=1, retain=True)
                self._client = client_for(s, identifier=f"penguin-panel-{s.cockpit_id}", will=will, v5=True)
                async with self._client as client:
                    self._backoff.reset()
                    if failed_since is not None:
                        log.info("MQTT: connected to %s again after %.0f s away; %d events to send, %d dropped "
                                 "so far", s.where, time.monotonic() - failed_since, len(self.events), self.dropped)
                    else:
                        log.info("MQTT: connected to %s as cockpit %s (topics under %s/)", s.where, s.cockpit_id,
                                 self.base)
                    failed_since, last_reason = None, None
                    await self._session(client)
            except asyncio.CancelledError:
                raise
            except aiomqtt.MqttError as e:
                reason = why(e)
            except Exception as e:  # never let the bridge take the cockpit down: say it and go on
                reason = f"{type(e).__name__}: {e}"
                log.debug("MQTT bridge error", exc_info=True)
            finally:
                self.connected.clear()
                self._client = None
            if failed_since is None:
                failed_since = time.monotonic()
            pause = self._backoff.pause()
            if reason != last_reason:  # one line per new reason, not one per attempt
                log.warning(_("MQTT: broker {broker}: {reason}; trying again in {seconds} s, then less and less often, "
                              "every {most} s at most (play goes on)").format(
                    broker=s.where, reason=reason, seconds=f"{pause:.2g}", most=f"{self._backoff.high:.2g}"))
                last_reason = reason
            await asyncio.sleep(pause)

    async def _session(self, client: aiomqtt.Client) -> None:
        s = self.settings
        self.connections += 1
        await client.publish(self.topic("status"), ONLINE, qos=1, retain=True)
        # MQTT 5: a command kept by the broker (retained) is never handed to us again, and
        # one published retained now comes with its flag, to be refused (see _command).
        await client.subscribe(self.topic("command", action="+"), options=SubscribeOptions(
            qos=1, retainAsPublished=True, retainHandling=SubscribeOptions.RETAIN_DO_NOT_SEND))
        if s.homeassistant:
            await client.subscribe(f"{s.discovery_prefix}/status", qos=1)
        await client.subscribe(self.topic("ack"), qos=1)
        await client.subscribe(self.topic("venue_status"), qos=1)
        self.results.again()
        await self._tidy_retained(client, self._retained_topics())
        await self._announce(client)
        self._state_sent = self._told = None  # republish the retained state
        self._results_due = True
        self._wake.set()
        self.connected.set()
        await _first_failure(self._pump(client), self._listen(client))

    def _retained_topics(self) -> list[str]:
        topics = [self.topic("status"), self.topic("state"), self.topic("result")]
        if self.settings.homeassistant:
            topics += list(self._discovery())
        return topics

    def _discovery(self) -> dict[str, dict[str, Any]]:
        s = self.settings
        return discovery(s.cockpit_id, s.name, prefix=s.topic_prefix, discovery_prefix=s.discovery_prefix)

    async def _announce(self, client: aiomqtt.Client) -> None:
        if self.settings.homeassistant:
            for name, payload in self._discovery().items():
                await client.publish(name, encode(payload), qos=1, retain=True)

    async def _tidy_retained(self, client: aiomqtt.Client, keep: list[str]) -> None:
        """Empty the retained topics put there before and not wanted now (Home Assistant
        switched off, a new cockpit id or prefix), then remember the ones we keep."""
        store = self.cockpit.store
        before = json.loads(store.get_setting(RETAINED_KEY) or "[]")
        for name in before:
            if name not in keep:
                await client.publish(name, b"", qos=1, retain=True)
        store.set_setting(RETAINED_KEY, json.dumps(keep))

    # ------------------------------------------------------------------ outgoing
    async def _pump(self, client: aiomqtt.Client) -> None:
        s = self.settings
        while True:
            try:
                async with asyncio.timeout(ACK_WAIT if self.results.waiting else None):
                    await self._wake.wait()
            except TimeoutError:  # results sent and not acknowledged: send them again (if the venue is on)
                self._results_due = True
            self._wake.clear()
            while self.events:
                # Up to WINDOW events in flight at once, in order (a broker across the town
                # does not cost a round trip per event), each removed once the broker has it.
                batch = list(itertools.islice(self.events, WINDOW))
                sends = [asyncio.ensure_future(client.publish(
                    self.topic("event"), encode(event_payload(s.cockpit_id, *item)), qos=1)) for item in batch]
                try:
                    for item, send in zip(batch, sends):
                        await send
                        self.sent_events += 1
                        if self.events and self.events[0] is item:  # not pushed out of a full outbox meanwhile
                            self.events.popleft()
                finally:
                    for send in sends:
                        send.cancel()
                    await asyncio.gather(*sends, return_exceptions=True)
            if self._state is not None:
                state = self._state
                payload = state_payload(s.cockpit_id, s.name, state, dropped=self.dropped)
                if payload != self._state_sent:
                    await client.publish(self.topic("state"), encode(payload), qos=1, retain=True)
                    self._state_sent = payload
                self._told = _ending(state)
            if self._results_due:
                self._results_due = False
                await self._send_results(client)

    async def _send_results(self, client: aiomqtt.Client) -> None:
        """The results the venue has not acknowledged, oldest first, RESULTS_WINDOW at most
        in flight; one already in flight goes again only after ACK_WAIT (while the venue is
        not known to be offline: once back online it says so, and they all go again)."""
        store = self.cockpit.store
        results = self.results
        records = await store.run(lambda: store.matches_after(results.acked, limit=RESULTS_WINDOW))
        if self._behind():
            # A match that ended while we read is in `records`, and the cockpit handed over its
            # last events and its ended state as it ended (on its turn, before we got the
            # records back): they go first, in the next pass, and its result after them.
            self._results_due = True
            self._wake.set()
            return
        now = asyncio.get_running_loop().time()
        for record in results.due(records, now):
            payload = await self._result(record)
            if payload is None:  # a log that cannot be replayed: said once, never waited for
                results.nothing_to_send(record.id)
                continue
            await client.publish(self.topic("result"), encode(payload), qos=1, retain=True)
            results.sent_now(record.id, now)
        self._advance()

    async def _result(self, record) -> dict[str, Any] | None:
        """A finished match's result payload, from the engine that played it or its log."""
        store = self.cockpit.store
        entries = await store.run(store.entries, record.id)  # on the store's reader thread
        cockpit = self.cockpit
        if cockpit.record is not None and cockpit.record.id == record.id and cockpit.match.finished:
            match = cockpit.match  # the match just played, as the engine left it
        else:
            try:  # one from before a restart or an outage: the log replayed, off the loop
                match = await asyncio.get_running_loop().run_in_executor(None, lambda: replay(record, entries)[0])
            except Exception as e:  # a log the engine cannot replay: said once, never retried
                log.warning("MQTT: no result sent for match %s: its log cannot be replayed (%s)", record.id, e)
                return None
        s = self.settings
        game = game_of(record.settings)
        return result_payload(s.cockpit_id, s.name, game=game.id, match_id=record.id, created=record.created,
                              status=record.status, finished_at=finished_at(record.created, entries),
                              result=game.venue_result(match))

    def _behind(self) -> bool:
        """Whether the broker lacks some of what the cockpit handed over: an event still in
        the outbox, or a state of another match or status than the last one published. A
        result waits for them: the venue never gets a match's result before its game_ended
        event and its ended state."""
        return bool(self.events) or self._state is not None and _ending(self._state) != self._told

    def _advance(self) -> None:
        """The mark over what the venue acknowledged, kept in the store (a restart sends only
        what the venue has not acknowledged), and room in the window for the next ones."""
        if self.results.advance():
            self.cockpit.store.set_setting(RESULT_KEY, str(self.results.acked))
            self._results_due = True
            self._wake.set()

    def _ack(self, raw: bytes) -> None:
        """The venue has the result of a match: kept no longer for it."""
        try:
            ack = decode("ack", raw)
        except PayloadError as e:
            self._quiet.warn("ack", f"MQTT: ignored an acknowledgement on {self.topic('ack')}: {e}")
            return
        self.acks += 1
        self.results.acknowledged(ack["match"]["id"])
        self._advance()

    @property
    def _sent_id(self) -> int:
        """The last match whose result the broker has (acknowledged by the venue or not)."""
        return self.results.sent

    # ------------------------------------------------------------------ incoming
    async def _listen(self, client: aiomqtt.Client) -> None:
        s = self.settings
        ha_status = f"{s.discovery_prefix}/status"
        ack, venue_status = self.topic("ack"), self.topic("venue_status")
        async for message in client.messages:
            name = str(message.topic)
            if len(message.payload) > PAYLOAD_BYTES:  # the broker bounds it too: never read one
                self._quiet.warn("large", f"MQTT: dropped a message of {len(message.payload)} bytes on {name} "
                                          f"unread (at most {PAYLOAD_BYTES})")
                continue
            if name == ack:
                self._ack(message.payload)
                continue
            if name == venue_status:
                if self.results.venue_says(bytes(message.payload) == ONLINE.encode()):  # back online
                    self._results_due = True
                    self._wake.set()
                continue
            if name == ha_status:
                if bytes(message.payload) == ONLINE.encode():  # Home Assistant restarted: announce again
                    await self._announce(client)
                    self._state_sent = None
                    self._wake.set()
                continue
            parsed = parse_topic(name, s.topic_prefix)
            if parsed is None or parsed[0] != s.cockpit_id or parsed[1] != "command":
                continue
            await self._command(client, parsed[2], message)

    async def _command(self, client: aiomqtt.Client, action: str, message: aiomqtt.Message) -> None:
        self.commands += 1
        request_id = by = None
        if action not in COMMANDS:  # the broker's ACL should not let it through: said, not answered
            log.warning("MQTT: ignored %r on %s: not a command (expected one of: %s)", action, message.topic,
                        ", ".join(COMMANDS))
            return
        try:
            body = parse_command(message.payload)
            request_id, by = body.get("id"), body.get("by") or "the venue"
            if message.retain:
                # Kept by the broker, it would be carried out again by every new subscriber.
                raise PayloadError("a retained command is not carried out (it would run again at every "
                                   "reconnect): publish it without the retain flag")
            await self._carry_out(action, {"when": body["when"]} if action == "end" and "when" in body else {})
            error = None
            log.info("MQTT: %s from %s: done", action, by)
        except PayloadError as e:
            error = f"{action}: {e}"
            log.warning("MQTT: refused a command on %s: %s", message.topic, e)
        except Refused as e:
            error = str(e)
            log.info("MQTT: %s from %s refused: %s", action, by, e)
        reply = reply_payload(self.settings.cockpit_id, action, request_id, error)
        await client.publish(self.topic("reply"), encode(reply), qos=1)

    async def _carry_out(self, action: str, params: dict[str, Any]) -> None:
        """The command through the cockpit's own doors: the game master's actions (`end` with
        its `when`, as /admin asks), and for `start` with no match in play the START button
        (a walk-up match, as at the panel)."""
        cockpit = self.cockpit
        if action != "start" or cockpit.active and not cockpit.match.finished:
            await cockpit.action(COMMAND_ACTIONS[action], params)
        else:
            layout = cockpit.any_layout()
            button = next((c for c in layout.cockpit if layout.cockpit_role(c) == "start"), None)
            if button is None:
                raise Refused(409, "this panel has no START button")
            await cockpit.input(button, True)
            await cockpit.input(button, False)
            if not cockpit.active:
                raise Refused(409, "no match could be set up (see the cockpit's log)")


def _ending(state: dict[str, Any]) -> tuple[Any, Any]:
    """What of a public state a result follows: its match and the match's status."""
    return state.get("match_id"), state.get("status")


def finished_at(created: str, entries) -> float:
    """When a match ended, in Unix time: its set-up time plus the match time of its last entry."""
    try:
        start = datetime.strptime(created, "%Y-%m-%dT%H:%M:%S%z").timestamp()
    except ValueError:  # not the store's format: the best we know is now
        return time.time()
    return start + (entries[-1].t if entries else 0.0)


async def _first_failure(*coros) -> None:
    """Run the coroutines until one ends or fails; cancel the others; raise its error."""
    tasks = [asyncio.create_task(c) for c in coros]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for t in done:
        if not t.cancelled() and t.exception() is not None:
            raise t.exception()


async def remove(settings: BridgeSettings, store, *, backoff: tuple[float, float] = BACKOFF) -> None:
    """The bridge switched off (`enabled = false`): empty every retained topic this cockpit
    put on the broker (its state, status, last result, Home Assistant's discovery, which
    takes the device out of Home Assistant), once, in the background, then stop."""
    pending = json.loads(store.get_setting(RETAINED_KEY) or "[]")
    if not pending:
        return
    attempts = Backoff(*backoff)
    said = False
    while True:
        try:
            async with client_for(settings, identifier=f"penguin-panel-{settings.cockpit_id}") as client:
                for name in pending:
                    await client.publish(name, b"", qos=1, retain=True)
            store.set_setting(RETAINED_KEY, "[]")
            log.info("MQTT: bridge switched off; %d retained topics removed from %s (Home Assistant forgets "
                     "the cockpit)", len(pending), settings.where)
            return
        except aiomqtt.MqttError as e:
            if not said:
                log.warning("MQTT: bridge switched off but broker %s cannot be reached to remove this cockpit's "
                            "topics (%s); trying in the background", settings.where, why(e))
                said = True
        await asyncio.sleep(attempts.pause())



class _Removal:
    """The switched-off bridge's clean-up task, closed like a bridge."""

    def __init__(self, task: asyncio.Task):
        self.task = task

    async def close(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def start(settings: BridgeSettings | None, cockpit) -> Bridge | _Removal | None:
    """What the service runs for its [mqtt] table: nothing without one, the bridge when it
    is enabled, the removal of this cockpit's topics when it is switched off."""
    if settings is None:
        return None
    if not settings.enabled:
        return _Removal(asyncio.create_task(remove(settings, cockpit.store), name="mqtt-removal"))
    bridge = Bridge(cockpit, settings)
    await bridge.start()
    return bridge
