"""The cockpit's MQTT bridge against a real Mosquitto (Debian's), configured with the ACL
`penguin-panel broker-config` writes: what the cockpit publishes (and never: the card),
the commands and the broker's ACL, a broker restart in the middle of a match, the bounded
outbox, Home Assistant discovery, TLS with a client certificate.

Every wait is for an exact message, log line or state (with a guard against hanging).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import subprocess

import aiomqtt
import pytest
from jinja2 import Environment

from mosquitto import STRANGER, Mosquitto, Observer
from panel.mqtt import protocol as p
from panel.mqtt import bridge as bridge_module
from panel.mqtt.bridge import Bridge, remove
from panel.mqtt.broker import HA_USER, Tls
from panel.mqtt.settings import BridgeSettings
from panel.core.errors import Refused
from panel.service.cockpit import Cockpit
from panel.storage.store import Store
from play_helpers import five_card_turn, mistake, new_match, play_card, snapshot
from waiting import until

SECRET_KEYS = {"card", "press", "set", "steps", "word", "code", "colours"}  # what only the tower may see


@pytest.fixture
def broker(tmp_path):
    with Mosquitto(tmp_path / "broker") as b:
        yield b


class Fanned:
    """A page-like subscriber of the cockpit: every event it fans out, in order."""

    view = "test"

    def __init__(self):
        self.events: list[dict] = []

    def send(self, message):
        if message["type"] == "event":
            self.events.append(message["event"])

    def revoke(self):
        pass

    def close(self, code=None):
        pass


@contextlib.asynccontextmanager
async def cockpit_on(broker: Mosquitto, tmp_path, cockpit_id: str = "c1", *, outbox: int = p.OUTBOX_EVENTS,
                     settings: BridgeSettings | None = None):
    """A simulated cockpit (real SQLite file) with its bridge, and what it fans out."""
    store = Store(tmp_path / f"{cockpit_id}.db")
    cockpit = Cockpit(store, sim=True)
    await cockpit.start()
    fanned = Fanned()
    cockpit.subscribe(fanned)
    bridge = Bridge(cockpit, settings or broker.bridge(cockpit_id), outbox=outbox, backoff=(0.05, 0.5))
    await bridge.start()
    try:
        yield cockpit, bridge, fanned
    finally:
        await bridge.close()
        await cockpit.close()
        store.close()


def keys(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def check(message: aiomqtt.Message, prefix: str = "penguin-panel") -> tuple[str | None, object]:
    """(topic key, payload) of one of our messages, checked against its schema (strict)."""
    name = str(message.topic)
    if name.startswith("homeassistant/") and name.endswith("/config"):
        return "discovery", p.validate(p.discovery_key(name), json.loads(bytes(message.payload)))
    cockpit, key, _ = p.parse_topic(name, prefix)
    return key, p.decode(key, message.payload, strict=True)


def commander(broker: Mosquitto, user: str):
    return aiomqtt.Client("127.0.0.1", broker.port, username=user, password=broker.passwords[user],
                          identifier=f"commander-{user}")


async def command(client: aiomqtt.Client, observer: Observer, action: str, *, retain: bool = False,
                  payload: bytes | None = None, cockpit: str = "c1") -> dict:
    """Publish a command and wait for the cockpit's reply to it."""
    request_id = f"{action}-{len(observer.messages)}"
    body = payload if payload is not None else json.dumps({"v": 1, "id": request_id, "by": "the test"}).encode()
    await client.publish(p.topic("command", prefix="penguin-panel", cockpit=cockpit, action=action), body, qos=1,
                         retain=retain)
    reply_topic = p.topic("reply", prefix="penguin-panel", cockpit=cockpit)
    want = request_id if payload is None else None
    m = await observer.wait(lambda m: str(m.topic) == reply_topic and json.loads(bytes(m.payload))["id"] == want
                            and json.loads(bytes(m.payload))["command"] == action)
    return p.decode("reply", m.payload, strict=True)


async def refusal(coro) -> str:
    with pytest.raises(Refused) as e:
        await coro
    return str(e.value)


# ---------------------------------------------------------------------------- what is published

def test_a_match_on_the_broker_follows_the_schemas_and_never_shows_the_card(broker, tmp_path):
    async def scenario():
        async with Observer(broker) as venue, Observer(broker, HA_USER, topics=["homeassistant/#"]) as ha, \
                cockpit_on(broker, tmp_path) as (cockpit, bridge, fanned):
            await bridge.connected.wait()
            code = (await new_match(cockpit))["code"]
            await cockpit.action("start_turn", {})
            secret_cards = [snapshot(cockpit)["card"]]
            await play_card(cockpit)
            secret_cards.append(snapshot(cockpit)["card"])
            await mistake(cockpit)
            await mistake(cockpit)  # the second mistake ends the turn
            await cockpit.action("end", {})
            result_topic = bridge.topic("result")
            await venue.wait(lambda m: str(m.topic) == result_topic)
            await ha.wait(lambda m: str(m.topic).endswith("/button/c1/resume/config"))

            seen: dict[str, list] = {}
            for m in venue.messages + ha.messages:
                key, payload = check(m)
                seen.setdefault(key, []).append(payload)
                text = bytes(m.payload).decode()
                assert code not in text  # the join code is the tower's
                assert not keys(payload) & SECRET_KEYS, (m.topic, payload)
                for card in secret_cards:
                    assert json.dumps(card) not in text
            events = seen["event"]
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
            assert [e["event"]["type"] for e in events] == [e["type"] for e in fanned.events]
            assert {"turn_started", "card_completed", "mistake", "turn_ended", "game_ended"} <= \
                {e["event"]["type"] for e in events}
            result = seen["result"][-1]
            assert result["scores"] == cockpit.match.scores and result["match"]["status"] == "ended"
            assert [(t["team"], t["ended_by"], t["cards"]) for t in result["turns"]] == [("Gulls", "mistakes", 1)]
            assert seen["status"][0] == "online" and len(seen["discovery"]) == 7
            state = seen["state"][-1]
            assert state == p.state_payload("c1", "Cockpit c1", cockpit.public_state(), dropped=0)
            assert state["phase"] == "finished" and state["match"]["status"] == "ended"
            # Retained: a reader that comes later gets the state, the status and the result.
            async with Observer(broker, topics=["penguin-panel/v1/c1/+"]) as late:
                await late.wait(lambda m: str(m.topic) == result_topic)
                await late.wait(lambda m: str(m.topic) == bridge.topic("state") and
                                json.loads(bytes(m.payload)) == state)
                assert all(m.retain for m in late.messages)
        # Stopped: the cockpit said offline.
        async with Observer(broker, topics=["penguin-panel/v1/c1/status"]) as late:
            assert bytes((await late.wait(lambda m: True)).payload) == b"offline"

    asyncio.run(scenario())


def test_a_result_comes_after_its_matchs_events_and_ended_state(broker, tmp_path, monkeypatch):
    """The broker slow to take a state (held here until the match is over): the match ends
    meanwhile, and the venue still gets its game_ended event and its ended state before
    its result (a result is the venue's sign that the match is over and told)."""
    publish = aiomqtt.Client.publish
    holding, released = asyncio.Event(), asyncio.Event()

    async def held(client, name, *args, **kwargs):
        if str(name) == "penguin-panel/v1/c1/state" and not released.is_set():
            holding.set()
            await released.wait()
        return await publish(client, name, *args, **kwargs)

    monkeypatch.setattr(aiomqtt.Client, "publish", held)

    async def scenario():
        async with Observer(broker) as venue, cockpit_on(broker, tmp_path) as (cockpit, bridge, fanned):
            await bridge.connected.wait()
            await holding.wait()  # the bridge is sending the idle state: it is in the middle of a pass
            await new_match(cockpit)
            await cockpit.action("start_turn", {})
            await mistake(cockpit)
            await mistake(cockpit)
            await cockpit.action("end", {})
            released.set()
            result = await venue.wait(lambda m: str(m.topic) == bridge.topic("result"))
            before = venue.messages[:venue.messages.index(result)]
            events = [json.loads(bytes(m.payload))["event"]["type"] for m in before
                      if str(m.topic) == bridge.topic("event")]
            assert events == [e["type"] for e in fanned.events] and events[-1] == "game_ended"
            state = json.loads(bytes([m for m in before if str(m.topic) == bridge.topic("state")][-1].payload))
            assert state["phase"] == "finished" and state["match"]["status"] == "ended"

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- commands

def test_commands_go_through_the_game_masters_checks_and_the_log(broker, tmp_path):
    async def scenario():
        async with Observer(broker) as venue, commander(broker, "venue") as client, \
                cockpit_on(broker, tmp_path) as (cockpit, bridge, _):
            await bridge.connected.wait()
            reply = await command(client, venue, "pause")
            assert reply == {"v": 1, "cockpit": "c1", "command": "pause", "id": reply["id"], "ok": False,
                             "error": await refusal(cockpit.action("pause", {}))}

            reply = await command(client, venue, "start")  # no match in play: START, as at the panel
            assert reply["ok"] and reply["error"] is None
            assert cockpit.active and snapshot(cockpit)["phase"] == "in_turn"
            entries = cockpit.store.entries(cockpit.record.id)
            assert (entries[0].kind, entries[0].data) == ("input", {"control": "cockpit.start", "value": True})

            assert (await command(client, venue, "start"))["error"] == \
                await refusal(cockpit.action("start_turn", {}))  # a turn runs: the game master's answer
            state = p.state_payload("c1", "Cockpit c1", cockpit.public_state(), dropped=0)
            assert state["commands"] == ["pause", "end"]  # what the engine allows in a running turn
            assert (await command(client, venue, "pause"))["ok"]
            assert snapshot(cockpit)["phase"] == "paused"
            assert cockpit.store.entries(cockpit.record.id)[-1].data["name"] == "pause"  # in the log, as the page's
            assert (await command(client, venue, "resume"))["ok"]
            assert snapshot(cockpit)["phase"] == "in_turn"

            retained = await command(client, venue, "pause", retain=True)
            assert not retained["ok"] and "retained" in retained["error"]
            await client.publish(p.topic("command", prefix="penguin-panel", cockpit="c1", action="pause"), b"",
                                 qos=1, retain=True)  # clear it again: an empty payload is no command
            bad = await command(client, venue, "end", payload=b'{"id": 7}')
            assert not bad["ok"] and bad["error"] == "end: payload.id must be string"
            assert snapshot(cockpit)["phase"] == "in_turn"

            await mistake(cockpit)  # the turn scored (two mistakes): a match was played (rule 25)
            await mistake(cockpit)
            assert (await command(client, venue, "end"))["ok"]
            assert cockpit.record.status == "ended"
            logged = [e.data["name"] for e in cockpit.store.entries(cockpit.record.id) if e.kind == "action"]
            assert logged == ["pause", "resume", "end"]  # refused ones are not in the log

    asyncio.run(scenario())


def test_the_acl_keeps_other_clients_commands_away(broker, tmp_path):
    async def scenario():
        async with Observer(broker) as venue, cockpit_on(broker, tmp_path) as (cockpit, bridge, _):
            await bridge.connected.wait()
            await new_match(cockpit)
            await cockpit.action("start_turn", {})
            c1_pause = p.topic("command", prefix="penguin-panel", cockpit="c1", action="pause")
            for user, name in ((STRANGER, c1_pause), (HA_USER, c1_pause.replace("pause", "end")),
                               ("c2", c1_pause), ("c2", bridge.topic("state"))):
                mark = broker.mark()
                async with commander(broker, user) as client:
                    await client.publish(name, b"{}", qos=1)
                broker.wait_for_log(rf"Denied PUBLISH from {user} .*'{name}'", after=mark)  # its id: its user
            async with commander(broker, HA_USER) as ha:  # Home Assistant's own button: allowed
                assert (await command(ha, venue, "pause"))["ok"]
            assert bridge.commands == 1
            assert [e.data["name"] for e in cockpit.store.entries(cockpit.record.id) if e.kind == "action"] == \
                ["start_turn", "pause"]
            states = [json.loads(bytes(m.payload)) for m in venue.on(bridge.topic("state"))]
            assert all(s["cockpit"] == "c1" and s["name"] == "Cockpit c1" for s in states)

    asyncio.run(scenario())


def test_no_client_gets_in_without_a_user_and_its_password(broker, tmp_path, caplog):
    async def scenario():
        for user, password in ((None, None), ("c1", "not-the-password"), ("nobody", "x")):
            with pytest.raises(aiomqtt.MqttError, match="Not authorized"):
                async with aiomqtt.Client("127.0.0.1", broker.port, username=user, password=password,
                                          identifier=f"intruder-{user}"):
                    pass
        wrong = BridgeSettings(host="127.0.0.1", port=broker.port, username="c1", password="wrong", cockpit_id="c1")
        caplog.set_level(logging.INFO, logger="penguin-panel")
        async with cockpit_on(broker, tmp_path, settings=wrong) as (cockpit, bridge, _):
            await until(lambda: any(refused(r.getMessage()) for r in caplog.records))
            await new_match(cockpit)  # local play goes on
            await cockpit.action("start_turn", {})
            await play_card(cockpit)
            assert snapshot(cockpit)["completed"] == 1 and not bridge.connected.is_set()
        said = [r.getMessage() for r in caplog.records if refused(r.getMessage())]
        assert len(said) == 1 and "\n" not in said[0]  # one line, not one per attempt
        assert "play goes on" in said[0]

    asyncio.run(scenario())


def refused(line: str) -> bool:
    return "Not authorized" in line or "Bad user name or password" in line


# ---------------------------------------------------------------------------- the broker goes away

def test_a_broker_restart_in_the_middle_of_a_match(broker, tmp_path):
    async def scenario():
        async with cockpit_on(broker, tmp_path) as (cockpit, bridge, fanned):
            await bridge.connected.wait()
            events_topic = bridge.topic("event")
            venue = Observer(broker, topics=[events_topic], persistent="venue-session")
            async with venue:
                await new_match(cockpit)
                await cockpit.action("start_turn", {})
                await play_card(cockpit)
                before = len(fanned.events)
                await venue.wait(lambda m: json.loads(bytes(m.payload))["seq"] == before)

            broker.stop()
            await until(lambda: not bridge.connected.is_set())
            await play_card(cockpit)  # local play goes on while the broker is away
            await mistake(cockpit)
            assert snapshot(cockpit)["completed"] == 2 and snapshot(cockpit)["mistakes"] == 1
            outage = fanned.events[before:]
            assert outage and len(bridge.events) == len(outage)

            broker.start()  # same port, same persistence file
            await bridge.connected.wait()
            first = len(venue.messages)
            async with venue:  # the same session: the broker kept what came for it
                await venue.wait(lambda m: json.loads(bytes(m.payload))["seq"] == len(fanned.events), start=first)
                got: dict[int, str] = {}
                for m in venue.messages[first:]:
                    e = json.loads(bytes(m.payload))
                    if e["seq"] > before:  # (QoS 1: one not acknowledged before may come again)
                        got.setdefault(e["seq"], e["event"]["type"])
                assert sorted(got) == list(range(before + 1, len(fanned.events) + 1))
                assert [got[s] for s in sorted(got)] == [e["type"] for e in outage]
            await until(lambda: not bridge.events)
            current = p.state_payload("c1", "Cockpit c1", cockpit.public_state(), dropped=0)
            await until(lambda: bridge._state_sent == current)
            async with Observer(broker, topics=["penguin-panel/v1/c1/+"]) as late, \
                    Observer(broker, HA_USER, topics=["homeassistant/+/c1/+/config"]) as ha:
                state = await late.wait(lambda m: str(m.topic) == bridge.topic("state"))
                assert state.retain and json.loads(bytes(state.payload)) == current
                status = await late.wait(lambda m: str(m.topic) == bridge.topic("status"))
                assert status.retain and bytes(status.payload) == b"online"
                await ha.wait(lambda m: str(m.topic).endswith("/link/config"))
            assert bridge.dropped == 0 and bridge.connections == 2

    asyncio.run(scenario())


def test_the_outbox_keeps_the_latest_events_in_order_and_counts_the_dropped(broker, tmp_path):
    async def scenario():
        async with cockpit_on(broker, tmp_path, outbox=4) as (cockpit, bridge, fanned):
            await bridge.connected.wait()
            venue = Observer(broker, topics=[bridge.topic("event"), bridge.topic("state")], persistent="venue-session")
            async with venue:
                pass  # the session and its subscription exist now
            broker.stop()
            await until(lambda: not bridge.connected.is_set())
            await new_match(cockpit)
            await cockpit.action("start_turn", {})
            await play_card(cockpit)
            await mistake(cockpit)
            await mistake(cockpit)
            total = len(fanned.events)
            assert total > 4
            assert bridge.dropped == total - 4 and len(bridge.events) == 4
            broker.start()
            async with venue:
                await venue.wait(lambda m: str(m.topic) == bridge.topic("event") and
                                 json.loads(bytes(m.payload))["seq"] == total)
                state = await venue.wait(lambda m: str(m.topic) == bridge.topic("state") and
                                         json.loads(bytes(m.payload))["dropped_events"] == total - 4)
                assert json.loads(bytes(state.payload))["phase"] == "between_turns"
                got = {}
                for m in venue.on(bridge.topic("event")):  # QoS 1 may bring one twice
                    e = json.loads(bytes(m.payload))
                    got[e["seq"]] = e["event"]["type"]
                assert sorted(got) == list(range(total - 3, total + 1))
                assert [got[s] for s in sorted(got)] == [e["type"] for e in fanned.events[-4:]]

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- Home Assistant

def render(template: str, state: dict) -> str:
    return Environment().from_string(template).render(value_json=state)


def test_home_assistant_discovers_the_cockpit_and_forgets_it_when_switched_off(broker, tmp_path):
    async def scenario():
        async with Observer(broker, HA_USER, topics=["homeassistant/#", "penguin-panel/v1/#"]) as ha, \
                cockpit_on(broker, tmp_path) as (cockpit, bridge, _):
            await bridge.connected.wait()
            await new_match(cockpit)
            await cockpit.action("start_turn", {})
            await play_card(cockpit)
            state_topic = bridge.topic("state")
            m = await ha.wait(lambda m: str(m.topic) == state_topic and json.loads(bytes(m.payload))["completed"] == 1)
            state = json.loads(bytes(m.payload))
            configs = {str(m.topic): json.loads(bytes(m.payload)) for m in ha.messages
                       if str(m.topic).startswith("homeassistant/")}
            assert len(configs) == 7
            for name, config in configs.items():
                p.validate(p.discovery_key(name), config)
                assert config["device"]["identifiers"] == ["penguin_panel_c1"]
            shown = {c["name"]: render(c["value_template"], state) for c in configs.values() if "value_template" in c}
            assert shown == {"Phase": "in_turn", "Time left": str(state["time_left"]), "Current team": "Gulls",
                             "Scores": "Gulls 0 · Puffins 0", "Co-processor link": "ON"}
            scores = configs["homeassistant/sensor/c1/scores/config"]
            assert json.loads(render(scores["json_attributes_template"], state)) == {"Gulls": 0, "Puffins": 0}

            # Home Assistant's buttons publish what its ACL allows, and the cockpit obeys.
            async with commander(broker, HA_USER) as client:
                for button in ("pause", "resume"):
                    config = configs[f"homeassistant/button/c1/{button}/config"]
                    await client.publish(config["command_topic"], config["payload_press"].encode(), qos=config["qos"])
                    reply = await ha.wait(lambda m: str(m.topic) == bridge.topic("reply") and
                                          json.loads(bytes(m.payload))["command"] == button)
                    assert json.loads(bytes(reply.payload))["ok"]
            assert [e.data["name"] for e in cockpit.store.entries(cockpit.record.id) if e.kind == "action"] == \
                ["start_turn", "pause", "resume"]

            settings = bridge.settings
        # Home Assistant switched off: its entries go, the cockpit stays on the broker.
        async with cockpit_on(broker, tmp_path, settings=BridgeSettings(**{**vars(settings), "homeassistant": False})) \
                as (cockpit, bridge, _):
            await bridge.connected.wait()
            assert await retained(broker, "homeassistant/+/c1/+/config") == []
            assert sorted(await retained(broker, "penguin-panel/v1/c1/+")) == [bridge.topic("state"), bridge.topic("status")]
        # The bridge switched off: the cockpit leaves the broker altogether.
        with Store(tmp_path / "c1.db") as store:
            await remove(BridgeSettings(**{**vars(settings), "enabled": False}), store)
        assert await retained(broker, "homeassistant/#") == []
        assert await retained(broker, "penguin-panel/v1/#") == []

    asyncio.run(scenario())


async def retained(broker: Mosquitto, pattern: str) -> list[str]:
    """The topics holding a retained message under `pattern`: they come on subscribing,
    before a message published after the subscription (the sentinel)."""
    async with Observer(broker, HA_USER, topics=[pattern, "homeassistant/status"]) as o:
        async with commander(broker, HA_USER) as client:
            await client.publish("homeassistant/status", b"sentinel", qos=1)
        await o.wait(lambda m: bytes(m.payload) == b"sentinel")
        return [str(m.topic) for m in o.messages if m.retain and bytes(m.payload)]


# ---------------------------------------------------------------------------- TLS

@pytest.fixture
def certificates(tmp_path):
    """A CA, the broker's certificate for 127.0.0.1 and cockpit c1's client certificate."""
    d = tmp_path / "tls"
    d.mkdir()

    def ssl(*args):
        subprocess.run(["openssl", *args], cwd=d, check=True, capture_output=True)

    ssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=Test venue CA")
    for name, extra in (("broker", ["-addext", "subjectAltName=IP:127.0.0.1"]), ("c1", [])):
        ssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr",
            "-subj", f"/CN={'127.0.0.1' if name == 'broker' else name}", *extra)
        ext = d / f"{name}.ext"
        ext.write_text("subjectAltName=IP:127.0.0.1\n" if name == "broker" else "extendedKeyUsage=clientAuth\n")
        ssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-out", f"{name}.pem", "-days", "2", "-extfile", str(ext))
    return d


def test_tls_with_a_client_certificate(tmp_path, certificates):
    tls = Tls(str(certificates / "broker.pem"), str(certificates / "broker.key"), str(certificates / "ca.pem"),
              client_certificates=True)

    async def scenario(broker):
        settings = BridgeSettings.from_table({
            "host": "127.0.0.1", "port": broker.tls_port, "tls": True, "ca_file": str(certificates / "ca.pem"),
            "cert_file": str(certificates / "c1.pem"), "key_file": str(certificates / "c1.key"), "cockpit_id": "c1"})
        async with Observer(broker, topics=["penguin-panel/v1/c1/status"]) as venue, \
                cockpit_on(broker, tmp_path, settings=settings) as (_, bridge, _):
            await bridge.connected.wait()
            assert bytes((await venue.wait(lambda m: True)).payload) == b"online"
        # The certificate is the user: c1's ACL applied (its status, nobody else's).
        broker.wait_for_log(r"as c1 .*u'c1'")  # its client id is its user

    with Mosquitto(tmp_path / "broker", tls=tls) as broker:
        asyncio.run(scenario(broker))


def test_a_certificate_that_is_not_one_is_said_at_start(tmp_path):
    junk = tmp_path / "c1.pem"
    junk.write_text("not a certificate\n")
    with pytest.raises(Exception) as e:
        BridgeSettings.from_table({"tls": True, "cert_file": str(junk), "key_file": str(junk)}, file="settings.toml")
    assert str(e.value).startswith(f"settings.toml: mqtt.cert_file: {junk}: cannot be used for TLS")


# ---------------------------------------------------------------------------- results

def test_results_missed_while_away_come_from_the_log_in_order(broker, tmp_path):
    """Two matches finished while the broker is down and the cockpit restarted before it
    came back: both results are sent, in order, rebuilt from the log, and a result rebuilt
    from the log is the one that was sent live."""
    async def scenario():
        venue = Observer(broker, topics=["penguin-panel/v1/c1/result"], persistent="venue-results")
        async with venue, cockpit_on(broker, tmp_path) as (cockpit, bridge, _):
            await bridge.connected.wait()
            await new_match(cockpit)
            await five_card_turn(cockpit)
            await cockpit.action("end", {})
            live = json.loads(bytes((await venue.wait(lambda m: True)).payload))
            broker.stop()
            await until(lambda: not bridge.connected.is_set())
            missed = []
            for _ in range(2):
                await new_match(cockpit)
                await cockpit.action("start_turn", {})
                await mistake(cockpit)
                await mistake(cockpit)  # the turn scored: a match was played (rule 25)
                await cockpit.action("end", {})
                missed.append((cockpit.record.id, dict(cockpit.match.scores)))
        broker.start()
        with Store(tmp_path / "c1.db") as store:  # as if the result of match 1 had never been sent
            store.set_setting("mqtt_result_sent", "0")
        first = len(venue.messages)
        async with venue, cockpit_on(broker, tmp_path) as (cockpit, bridge, _):
            await venue.wait(lambda m: json.loads(bytes(m.payload))["match"]["id"] == missed[-1][0], start=first)
            got = [json.loads(bytes(m.payload)) for m in venue.messages[first:]]  # (QoS 1 and the
            # retained result on resubscribing bring some twice: every copy must be the same)
            by_id = {}
            for r in got:
                assert by_id.setdefault(r["match"]["id"], r) == r
            assert list(by_id) == [live["match"]["id"]] + [m for m, _ in missed]
            assert by_id[live["match"]["id"]] == live  # rebuilt from the log: the result sent live
            assert [by_id[m]["scores"] for m, _ in missed] == [s for _, s in missed]
            assert live["turns"][0]["ended_by"] == "five_cards" and live["turns"][0]["cards"] == 5
            assert live["turns"][0]["points"] == 5 + live["turns"][0]["counters"]

    asyncio.run(scenario())


def test_the_service_starts_the_bridge_or_takes_the_cockpit_off_the_broker(broker, tmp_path):
    """What `penguin-panel play` does with its [mqtt] table: nothing without one, the bridge
    when enabled, the removal of everything the cockpit left on the broker when not."""
    async def scenario():
        with Store(tmp_path / "c1.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                assert await bridge_module.start(None, cockpit) is None
                on = await bridge_module.start(broker.bridge("c1"), cockpit)
                assert isinstance(on, Bridge)
                await on.connected.wait()
                await until(lambda: on._state_sent is not None)
                await on.close()
                assert len(await retained(broker, "homeassistant/#")) == 7
                off = await bridge_module.start(BridgeSettings(**{**vars(broker.bridge("c1")), "enabled": False}),
                                                cockpit)
                await off.task
                await off.close()
                assert await retained(broker, "homeassistant/#") == []
                assert await retained(broker, "penguin-panel/v1/#") == []
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_a_kaboom_mission_is_not_the_venues(broker, tmp_path):
    """The venue counts Penguin Airlines matches: while a Kaboom mission is played the
    cockpit's state says idle, and neither its events nor its result go out. The Airlines
    match after it, published as usual, is the barrier: what came before it has arrived."""
    from panel.games.kaboom.mapping_file import load_mapping

    players = load_mapping().players

    async def scenario():
        venue = Observer(broker, topics=["penguin-panel/v1/c1/#"])
        async with venue, cockpit_on(broker, tmp_path) as (cockpit, bridge, _):
            await bridge.connected.wait()
            await cockpit.create_match({"mode": "kaboom", "players": ["red", "blue"], "mission": 1, "seed": 2})
            mission = cockpit.record.id
            for action in ("start", "lift_cover", "confirm"):
                await cockpit.action(action, {})
            await cockpit.input(players["red"], True)
            await cockpit.input(players["blue"], True)
            assert cockpit.match.outcome == "success" and cockpit.record.status == "finished"
            await new_match(cockpit)
            await cockpit.action("start_turn", {})
            await mistake(cockpit)
            await mistake(cockpit)  # the turn scored: a match was played (rule 25)
            await cockpit.action("end", {})
            match = cockpit.record.id
            await venue.wait(lambda m: str(m.topic).endswith("/result")
                             and json.loads(bytes(m.payload))["match"]["id"] == match)
            for m in venue.messages:
                key, payload = check(m)
                if key == "event":
                    assert payload["match_id"] != mission
                elif key == "state":
                    assert payload["match"] is None or payload["match"]["id"] != mission
                elif key == "result":
                    assert payload["match"]["id"] != mission

    asyncio.run(scenario())


def test_an_unplayed_match_sends_no_result(broker, tmp_path):
    """START, pause, end with no turn scored is no 0-0 shared win: the match was not played
    (rule 25), and the venue gets no result for it. The played match after it, published as
    usual, is the barrier: what came before it has arrived."""
    async def scenario():
        venue = Observer(broker, topics=["penguin-panel/v1/c1/result"])
        async with venue, cockpit_on(broker, tmp_path) as (cockpit, bridge, _):
            await bridge.connected.wait()
            await new_match(cockpit)
            unplayed = cockpit.record.id
            for action in ("start_turn", "pause", "end"):
                await cockpit.action(action, {})
            assert cockpit.record.status == "abandoned" and cockpit.match.winner is None
            await new_match(cockpit)
            await cockpit.action("start_turn", {})
            await mistake(cockpit)
            await mistake(cockpit)
            await cockpit.action("end", {})
            played = cockpit.record.id
            await venue.wait(lambda m: json.loads(bytes(m.payload))["match"]["id"] == played)
            results = [p.validate("result", json.loads(bytes(m.payload))) for m in venue.messages]
            assert unplayed not in {r["match"]["id"] for r in results}
            [last] = [r for r in results if r["match"]["id"] == played]
            assert last["winner"] is None and [t["team"] for t in last["turns"]] == ["Gulls"]  # Puffins never played

    asyncio.run(scenario())
