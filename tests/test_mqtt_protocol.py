"""The MQTT protocol module (no broker): the document matches the declaration, payloads made
by our builders follow their schemas, bad payloads and bad settings get one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest

from panel.core.errors import ConfigError
from panel.mqtt import protocol as p
from panel.mqtt.broker import acl
from panel.mqtt.settings import BridgeSettings, BrokerSettings
from panel.run import read_settings

DOC = Path(__file__).resolve().parents[1] / "docs" / "mqtt.md"


def test_the_document_is_the_declaration():
    assert p.document_section(DOC.read_text()) == p.markdown().strip("\n"), \
        "docs/mqtt.md is out of date: run python -m panel.mqtt.protocol"
    for t in p.TOPICS:  # every topic is in the table with its retain flag and QoS
        assert f"| `{t.pattern}` |" in DOC.read_text()


def idle_state():
    return {"phase": "idle", "positions": {}, "finished": False, "match_id": None, "status": None,
            "link": {"connected": True, "firmware": "browser simulator", "frames_received": 0}}


def test_state_payload_of_an_idle_and_an_abandoned_cockpit():
    idle = p.state_payload("c1", "By the window", idle_state(), dropped=0)
    assert p.validate("state", idle) is idle
    assert idle["phase"] == "idle" and idle["match"] is None and idle["scores"] == {}
    assert idle["commands"] == ["start"]  # the START button sets up a walk-up match
    abandoned = {**idle_state(), "phase": "in_turn", "match_id": 4, "status": "abandoned", "mode": "competitive",
                 "team": "Gulls", "time_left": 12.2, "scores": {"Gulls": 3}}
    out = p.validate("state", p.state_payload("c1", "By the window", abandoned, dropped=2))
    assert out["phase"] == "idle" and out["time_left"] is None and out["match"]["status"] == "abandoned"
    assert out["dropped_events"] == 2


def test_a_kaboom_mission_is_idle_to_the_venue():
    """The venue counts Penguin Airlines matches: a Kaboom mission's state (the engine's own
    snapshot) shows the cockpit idle there, taking none of its commands."""
    from kaboom_helpers import act, match

    m = match(("red", "blue"))
    act(m, "start", 0.0)
    state = {**idle_state(), **m.snapshot(1.0), "match_id": 3, "status": "active"}
    out = p.validate("state", p.state_payload("c1", "By the window", state, dropped=0))
    assert out["phase"] == "idle" and out["match"] is None and out["commands"] == [] and out["time_left"] is None


def test_time_left_is_whole_seconds_rounded_up():
    s = {**idle_state(), "phase": "in_turn", "match_id": 1, "status": "active", "mode": "competitive",
         "team": "Gulls", "round": 1, "time_left": 12.2, "scores": {"Gulls": 0}}
    assert p.state_payload("c1", "x", s, dropped=0)["time_left"] == 13
    assert p.state_payload("c1", "x", {**s, "time_left": 13.0}, dropped=0)["time_left"] == 13
    assert p.state_payload("c1", "x", {**s, "time_left": 0.0}, dropped=0)["time_left"] == 0


def test_the_event_schema_refuses_a_card_and_the_builder_never_makes_one():
    drawn = {"t": 1.5, "type": "card_drawn", "number": 7, "kind": "simple", "card": {"press": ["grid.r1c1"]}}
    payload = p.event_payload("c1", 1, 3, drawn, 1e9)
    assert "card" not in payload["event"] and p.validate("event", payload)
    with pytest.raises(p.PayloadError, match="card"):
        p.validate("event", {**payload, "event": drawn})


def test_strict_for_our_payloads_lenient_for_a_newer_cockpits():
    payload = {**p.state_payload("c1", "x", idle_state(), dropped=0), "new_field": 1}
    with pytest.raises(p.PayloadError, match="new_field|additional"):
        p.validate("state", payload)
    assert p.validate("state", payload, strict=False)["new_field"] == 1


@pytest.mark.parametrize("raw, message", [
    (b"", "empty"),
    (b"pause", "not JSON"),
    (b'{"id": 5}', "payload.id must be string"),
    (b'{"action": "pause"}', "action"),
    (b"\xff", "not UTF-8"),
    (b"{" + b" " * 2000 + b"}", "larger than 1024 bytes"),
])
def test_bad_commands_get_one_line(raw, message):
    with pytest.raises(p.PayloadError, match=message) as e:
        p.parse_command(raw)
    assert "\n" not in str(e.value)


def test_a_good_command():
    assert p.parse_command(b'{"v": 1, "id": "a1", "by": "Front desk"}') == {"v": 1, "id": "a1", "by": "Front desk"}
    assert p.parse_command(b"{}") == {}


def test_topics_parse_back():
    assert p.parse_topic(p.topic("command", prefix="pp/venue", cockpit="c-1", action="pause"), "pp/venue") == \
        ("c-1", "command", "pause")
    assert p.parse_topic(p.topic("state", prefix="penguin-panel", cockpit="c1"), "penguin-panel") == ("c1", "state", None)
    for other in ("penguin-panel/v2/c1/state", "penguin-panel/v1/C1/state", "penguin-panel/v1/c1/state/x",
                  "elsewhere/v1/c1/state", "penguin-panel/v1/c1/secret"):
        assert p.parse_topic(other, "penguin-panel") is None, other


def test_discovery_payloads_follow_their_schemas():
    configs = p.discovery("c1", "By the window", prefix="penguin-panel", discovery_prefix="homeassistant")
    kinds = sorted(name.split("/")[1] for name in configs)
    assert kinds == ["binary_sensor"] + ["button"] * 2 + ["sensor"] * 4
    for name, payload in configs.items():
        p.validate(p.discovery_key(name), payload)
        assert payload["availability_topic"] == "penguin-panel/v1/c1/status"
    ids = [c["unique_id"] for c in configs.values()]
    assert len(set(ids)) == len(ids)


def test_settings_table_one_line_per_problem(tmp_path):
    f = tmp_path / "settings.toml"
    f.write_text('[mqtt]\nhost = ""\nport = 99999\ntls = "yes"\ncockpit_id = "Front Desk"\npassword = "x"\n'
                 'topic_prefix = "a/#"\ncolour = "red"\nca_file = "/nonexistent/ca.pem"\n')
    with pytest.raises(ConfigError) as e:
        read_settings(str(f))
    lines = [str(x) for x in e.value.problems]
    for key in ("mqtt.host", "mqtt.port", "mqtt.tls", "mqtt.cockpit_id", "mqtt.password", "mqtt.topic_prefix",
                "mqtt.colour", "mqtt.ca_file"):
        assert any(line.startswith(f"{f}: {key}: ") for line in lines), (key, lines)
    assert all("\n" not in line for line in lines)


def test_settings_table_read_with_defaults(tmp_path):
    f = tmp_path / "settings.toml"
    f.write_text('[mqtt]\nhost = "broker.local"\nusername = "c1"\npassword = "pw"\ncockpit_id = "c1"\n')
    s = read_settings(str(f))["mqtt"]
    assert (s.host, s.real_port, s.cockpit_id, s.name, s.enabled, s.homeassistant) == \
        ("broker.local", 1883, "c1", "Cockpit c1", True, True)
    assert "pw" not in repr(s)
    assert BrokerSettings(tls=True).real_port == 8883
    with pytest.raises(ConfigError, match="mqtt.cockpit_id: unknown key"):
        BrokerSettings.from_table({"cockpit_id": "c1"})  # the venue's [mqtt] is not a cockpit


def test_acl_gives_each_party_its_own_topics():
    text = acl(["c1", "c2"])
    blocks = {b.splitlines()[0]: b.splitlines()[1:] for b in text.split("\n\n") if b.startswith("user ")}
    c1 = blocks["user c1"]
    assert "topic write penguin-panel/v1/c1/state" in c1 and "topic read penguin-panel/v1/c1/command/+" in c1
    assert not any("c2" in line for line in c1)
    assert not any(line.startswith("topic write") and "/command/" in line for line in c1)
    assert blocks["user venue"] == ["topic read penguin-panel/v1/#", "topic write penguin-panel/v1/+/command/+",
                                    # its acknowledgements of results, and its own status (issue 24)
                                    "topic write penguin-panel/v1/+/ack", "topic write penguin-panel/v1/_venue/status"]
    ha_writes = [line for line in blocks["user homeassistant"] if line.startswith("topic write")]
    assert ha_writes == ["topic write homeassistant/status", "topic write penguin-panel/v1/+/command/pause",
                         "topic write penguin-panel/v1/+/command/resume"]
    assert BridgeSettings(cockpit_id="c1").name == "Cockpit c1"


def test_broker_config_writes_the_listener_and_the_acl(tmp_path, capsys):
    from panel.tools.cli import main

    assert main(["broker-config", "cockpit-1", "cockpit-2", "--out", str(tmp_path)]) == 0
    conf = (tmp_path / "penguin-panel.conf").read_text().splitlines()
    assert "allow_anonymous false" in conf and f"acl_file {tmp_path / 'penguin-panel.acl'}" in conf
    assert "listener 1883 127.0.0.1" in conf and "listener 8883" in conf  # TLS by default (issue 24)
    assert "user cockpit-2" in (tmp_path / "penguin-panel.acl").read_text()
    err = capsys.readouterr().err
    for user in ("cockpit-1", "cockpit-2", "venue", "homeassistant"):
        assert f"penguin-panel.passwd {user}" in err
    assert main(["broker-config", "Cockpit One"]) == 2
    assert "Cockpit One: not a cockpit id" in capsys.readouterr().err
