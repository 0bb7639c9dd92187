"""The broker's attacks of issue 24 against a real Mosquitto configured as
`penguin-panel broker-config` writes it: another account's client id, reserved names,
messages over the size, odd payloads, forged results, and results that must never be lost
(a venue away while the broker's queue for it overflows)."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import pwd
import subprocess

import aiomqtt
import pytest

from mosquitto import MOSQUITTO, STRANGER, Mosquitto, Observer
from panel.core.errors import ConfigError
from panel.mqtt import protocol as p
from panel.mqtt.bridge import RESULT_KEY
from panel.mqtt.broker import HA_USER
from panel.mqtt.settings import BridgeSettings
from panel.venue.store import VenueStore
from panel.venue.venue import Venue
from test_venue import cockpits, finish, venue_on
from waiting import until


@pytest.fixture
def broker(tmp_path):
    with Mosquitto(tmp_path / "broker", cockpits=["c1", "c2"]) as b:
        yield b


def client(broker: Mosquitto, user: str, identifier: str, **kw) -> aiomqtt.Client:
    return aiomqtt.Client("127.0.0.1", broker.port, username=user, password=broker.passwords[user],
                          identifier=identifier, **kw)


# ---------------------------------------------------------------------------- client ids

def test_no_account_takes_another_clients_id(broker, tmp_path):
    """Five connections of c2 as `penguin-panel-c1` (the bridge's id), and a stranger as the
    venue's id while it is away: the broker makes each client's id its user name, so c1 stays
    connected once and the venue's persistent session keeps what came meanwhile."""
    async def scenario():
        async with cockpits(broker, tmp_path, ["c1"]) as [(cockpit, bridge)]:
            async with venue_on(broker, tmp_path / "venue.db") as (venue, _):
                await until(lambda: "c1" in venue.cockpits)
                venue_id = venue.client_id
            for _ in range(5):
                async with client(broker, "c2", "penguin-panel-c1"):
                    pass
            async with client(broker, STRANGER, venue_id, clean_session=True):
                pass
            done = await finish(cockpit)
            await until(lambda: bridge._sent_id == done)
            assert bridge.connections == 1
            async with venue_on(broker, tmp_path / "venue.db") as (venue, _):
                await until(lambda: venue.counted == 1)
            assert broker.lines.count("Client c1 already connected, closing old connection.") == 0

    asyncio.run(scenario())


def test_reserved_names_are_no_cockpit_ids(tmp_path, capsys):
    from panel.tools.cli import main

    for name in ("venue", "homeassistant"):
        assert main(["broker-config", "c1", name, "--out", str(tmp_path), "--no-tls"]) == 2
        assert f"{name}: is the name of the broker's {name} account" in capsys.readouterr().err
        with pytest.raises(ConfigError, match="mqtt.cockpit_id: 'venue'|mqtt.cockpit_id: 'homeassistant'"):
            BridgeSettings.from_table({"cockpit_id": name})
    assert not (tmp_path / "penguin-panel.acl").exists()


# ---------------------------------------------------------------------------- sizes

def test_no_message_over_the_size_reaches_a_client(broker, tmp_path):
    """100 MB would take a Pi Zero: the broker refuses a packet over PACKET_BYTES (and drops
    a message over PAYLOAD_BYTES), so neither reaches the cockpit nor stays retained."""
    async def scenario():
        async with cockpits(broker, tmp_path, ["c1"]) as [(cockpit, bridge)]:
            async with Observer(broker, HA_USER, topics=["homeassistant/status"]) as ha:
                for size in (p.PAYLOAD_BYTES + 1, 4 * p.PACKET_BYTES):
                    try:
                        async with client(broker, HA_USER, "ha", timeout=10) as c:
                            await c.publish("homeassistant/status", b"x" * size, qos=1, retain=True)
                    except aiomqtt.MqttError:
                        pass  # the broker hung up on it: that is the refusal
                async with client(broker, HA_USER, "ha") as c:
                    await c.publish("homeassistant/status", b"offline", qos=1, retain=True)
                await ha.wait(lambda m: bytes(m.payload) == b"offline")
                assert all(len(m.payload) <= p.PAYLOAD_BYTES for m in ha.messages)
            assert bridge.connections == 1

    asyncio.run(scenario())


def test_the_venue_drops_an_oversized_message_unread_in_one_line(tmp_path, caplog):
    with VenueStore(tmp_path / "v.db") as store:
        venue = Venue(store, BridgeSettings(cockpit_id="c1"))
        with caplog.at_level(logging.WARNING, "penguin-panel"):
            for _ in range(3):
                assert venue.handle("penguin-panel/v1/c1/result", b"[" * (p.PAYLOAD_BYTES + 10)) is None
        lines = [r for r in caplog.records if r.name == "penguin-panel"]
        assert len(lines) == 1 and "dropped unread" in lines[0].getMessage() and lines[0].exc_info is None


# ---------------------------------------------------------------------------- odd payloads

ODD = [b'{"v": 1, "cockpit": "c1", "seq": ' + b"9" * 5000 + b"}", b"[" * 100_000 + b"]" * 100_000,
       b'{"v": NaN}', b'{"a":' * 5000 + b"1" + b"}" * 5000]


@pytest.mark.parametrize("raw", ODD, ids=["5000 digits", "deep list", "NaN", "deep object"])
def test_odd_payloads_are_one_line_never_a_traceback(raw):
    with pytest.raises(p.PayloadError) as e:
        p.decode("event", raw)
    assert "\n" not in str(e.value)


def test_odd_payloads_through_the_broker_give_the_venue_one_line_a_minute(broker, tmp_path, caplog):
    async def scenario():
        async with venue_on(broker, tmp_path / "venue.db") as (venue, _):
            async with client(broker, "c1", "c1") as c:
                for _ in range(25):
                    for raw in ODD[:2]:
                        for key in ("event", "result", "state"):
                            await c.publish(p.topic(key, prefix="penguin-panel", cockpit="c1"), raw, qos=1)
                await c.publish(p.topic("status", prefix="penguin-panel", cockpit="c1"), b"online", qos=1)
            await until(lambda: "c1" in venue.cockpits)  # the barrier: every odd one was handled before
            assert venue.running

    with caplog.at_level(logging.WARNING, "penguin-panel"):
        asyncio.run(scenario())
    ours = [r for r in caplog.records if r.name == "penguin-panel" and "venue:" in r.getMessage()]
    assert all(r.exc_info is None for r in ours)
    assert 1 <= len([r for r in ours if "ignored a message" in r.getMessage()]) <= 3  # one per topic at most


# ---------------------------------------------------------------------------- forged results

def result(**change) -> dict:
    turn = {"team": "A", "round": 1, "points": 5, "cards": 5, "counters": 0, "mistakes": 0,
            "ended_by": "five_cards", "seconds": 20.0}
    base = {"v": 1, "cockpit": "c1", "name": "Cockpit c1", "game": "airlines",
            "match": {"id": 1, "created": "2026-12-01T10:00:00+0000", "status": "finished"},
            "finished_at": 1.0, "mode": "competitive", "teams": ["A", "B"], "players": 4,
            "scores": {"A": 5, "B": 0}, "winner": ["A"], "tier": None, "turns": [turn]}
    return {**base, **change}


@pytest.mark.parametrize("change, says", [
    ({"turns": [{**result()["turns"][0], "points": 99}]}, "points in a turn: 99"),
    ({"scores": {"A": 99, "B": 0}}, "points of 'A': 99"),
    ({"teams": [f"T{i}" for i in range(9)], "scores": {}}, "teams: 9"),
    ({"teams": ["A" * 41, "B"], "scores": {}}, "a team's name"),
    ({"game": "kaboom"}, "score nothing"),
    ({"game": "chess"}, "does not know"),
])
def test_a_result_beyond_its_games_rules_is_refused_and_acknowledged(tmp_path, change, says, caplog):
    with VenueStore(tmp_path / "v.db") as store:
        venue = Venue(store, BridgeSettings(cockpit_id="c1"))
        assert venue.handle("penguin-panel/v1/c1/result", p.encode(result()))  # the right one is counted
        bad = result(**change, match={**result()["match"], "id": 2})
        with caplog.at_level(logging.WARNING, "penguin-panel"):
            topic, ack = venue.handle("penguin-panel/v1/c1/result", p.encode(bad))
        assert topic == "penguin-panel/v1/c1/ack" and json.loads(ack)["counted"] is False
        assert store.counted() == [("c1", 1)] and venue.refused == 1
        assert says in caplog.text


def test_a_35_mb_result_is_refused_unread(tmp_path):
    huge = p.encode(result(teams=[f"t{i}" for i in range(400_000)]))
    with pytest.raises(p.PayloadError, match="larger than"):
        p.decode("result", huge)


# ---------------------------------------------------------------------------- no result lost

def test_no_result_is_lost_while_the_venue_is_away_and_its_queue_overflows(tmp_path):
    """The broker keeps 5 messages for the absent venue here (Mosquitto's default is 1,000):
    12 results finished meanwhile overflow it. Each one is kept by its cockpit until the
    venue acknowledges it: all 12 are counted when the venue is back, and the cockpit's
    mark of what the venue has is the last of them."""
    async def scenario(broker):
        async with cockpits(broker, tmp_path, ["c1"]) as [(cockpit, bridge)]:
            async with venue_on(broker, tmp_path / "venue.db") as (venue, _):
                await until(lambda: "c1" in venue.cockpits)
            done = [await finish(cockpit) for _ in range(12)]
            await until(lambda: bridge._sent_id == done[-1])  # all on the broker (12 < RESULTS_WINDOW)
            async with venue_on(broker, tmp_path / "venue.db") as (venue, _):
                await until(lambda: venue.counted == 12)
                assert sorted(m for _c, m in venue.store.counted()) == done
                await until(lambda: cockpit.store.get_setting(RESULT_KEY) == str(done[-1]))

    with Mosquitto(tmp_path / "broker", cockpits=["c1"], max_queued=5) as broker:
        asyncio.run(scenario(broker))


# ---------------------------------------------------------------------------- TLS

def test_broker_config_makes_tls_that_a_cockpit_trusts(tmp_path, capsys):
    """broker-config's own CA and certificate: Mosquitto serves TLS with them, a cockpit with
    the CA as its ca_file connects by name, and the plain listener is on 127.0.0.1 only."""
    from mosquitto import free_port
    from panel.tools.cli import main

    out = tmp_path / "conf"
    tls_port, port = free_port(), free_port()
    assert main(["broker-config", "c1", "--out", str(out), "--port", str(port), "--tls-port", str(tls_port),
                 "--name", "localhost", "--password-file", str(tmp_path / "passwd")]) == 0
    err = capsys.readouterr().err
    assert "penguin-panel-ca.crt" in err
    conf = (out / "penguin-panel.conf").read_text()
    assert f"listener {port} 127.0.0.1" in conf.splitlines() and f"listener {tls_port}" in conf.splitlines()
    assert oct((out / "penguin-panel-ca.key").stat().st_mode & 0o777) == "0o600"
    subprocess.run(["mosquitto_passwd", "-b", "-c", str(tmp_path / "passwd"), "c1", "pw"], check=True)
    (tmp_path / "mosquitto.conf").write_text(conf + f"\nuser {pwd.getpwuid(os.getuid()).pw_name}\n"
                                             "log_dest stderr\nlog_type error\nlog_type warning\nlog_type information\n")
    proc = subprocess.Popen([MOSQUITTO, "-c", str(tmp_path / "mosquitto.conf")], stderr=subprocess.PIPE, text=True)
    try:
        said = []
        for line in proc.stderr:  # its listeners are open once it says it runs (or it exits, saying why)
            said.append(line)
            if " running" in line:
                break
        assert proc.poll() is None, "".join(said)

        async def connect():
            settings = BridgeSettings.from_table({"host": "localhost", "port": tls_port, "tls": True,
                                                  "ca_file": str(out / "penguin-panel-ca.crt"),
                                                  "username": "c1", "password": "pw", "cockpit_id": "c1"})
            from panel.mqtt.client import client_for

            async with client_for(settings, identifier="x") as c:
                await c.publish("penguin-panel/v1/c1/status", b"online", qos=1)
            return True

        assert asyncio.run(connect())
        # The CA is kept when broker-config runs again: the cockpits go on trusting the broker.
        ca = (out / "penguin-panel-ca.crt").read_bytes()
        assert main(["broker-config", "c1", "c2", "--out", str(out), "--name", "localhost"]) == 0
        assert (out / "penguin-panel-ca.crt").read_bytes() == ca
    finally:
        proc.terminate()
        proc.wait()


def test_an_empty_user_name_and_control_characters_in_a_cockpits_name_are_refused():
    with pytest.raises(ConfigError, match="mqtt.username: must be a user name"):
        BridgeSettings.from_table({"cockpit_id": "c1", "username": " ", "password": "pw"})
    with pytest.raises(ConfigError, match="mqtt.name: .*control characters"):
        BridgeSettings.from_table({"cockpit_id": "c1", "name": "By the\x1b[2Jwindow"})
    assert BridgeSettings.from_table({"cockpit_id": "c1", "name": "Junto a la ventana"}).name == "Junto a la ventana"


def test_a_ca_file_that_is_a_fifo_is_said_at_start_not_read(tmp_path):
    fifo = tmp_path / "ca.pem"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match="mqtt.ca_file: .*not a regular file"):
        BridgeSettings.from_table({"cockpit_id": "c1", "tls": True, "ca_file": str(fifo)})
