"""The MQTT protocol between cockpits, the venue and Home Assistant, declared once.

Every topic is declared here with who publishes it, whether it is retained, its QoS and
the JSON schema of its payload; the payload builders below are the only code that makes
those payloads, the validators the only code that checks them, and docs/mqtt.md's table
is rendered from the same declaration (`python -m panel.mqtt.protocol`; a test fails when
the document and this module disagree).

Versioning: topics carry the version (`<prefix>/v1/...`) and every JSON payload a `"v": 1`.
A field may be added within v1 (readers ignore fields they do not know: the venue checks
incoming payloads with `strict=False`); renaming or removing a field, or changing its
meaning, makes v2 on new topics, published beside v1 for a release.

The card in play is never published: events go through the pages' `public_event` filter
and the event schema forbids a `card` field (`"card": false`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from panel import __version__
from panel.games.airlines.engine import END_WHEN, MODES, Phase
from panel.games.airlines.engine.cooperative import TABLE
from panel.games.registry import event_types
from panel.games.registry import UnknownGame, game_of
from panel.core.statuses import RESULT_STATUSES, STATUSES

VERSION = 1
DEFAULT_PREFIX = "penguin-panel"
DEFAULT_DISCOVERY_PREFIX = "homeassistant"  # Home Assistant's default discovery prefix
ONLINE, OFFLINE = "online", "offline"  # the status topic; also Home Assistant's defaults
COMMANDS = ("start", "pause", "resume", "end")  # what the venue may ask of a cockpit
# The game master's action each command is (start: also the START button with no match in play).
COMMAND_ACTIONS = {"start": "start_turn", "pause": "pause", "resume": "resume", "end": "end"}
HA_BUTTONS = ("pause", "resume")  # the commands Home Assistant gets buttons (and an ACL) for
OUTBOX_EVENTS = 1000  # game events kept while the broker is away (~300 kB); older ones dropped
# Results: each one is kept in the cockpit's store until the venue acknowledges it (the ack
# topic), at most this many in flight at once, so five cockpits back after a day away put at
# most 5 x 20 results into the venue's queue at the broker (Mosquitto keeps 1,000 a client).
RESULTS_WINDOW = 20
ACK_WAIT = 30.0  # seconds: a result sent and not acknowledged while the venue is online goes again
COMMAND_BYTES = 1024  # a bigger command payload is refused unread
# The largest payload of ours (a result: at most a game's teams and turns; see `result_limits`).
# Every client of ours drops a bigger one unread, and the broker (broker.py) refuses a bigger
# message from anyone: a 100 MB retained message would take a Pi Zero's 512 MB.
PAYLOAD_BYTES = 256 * 1024
PACKET_BYTES = PAYLOAD_BYTES + 4096  # the whole MQTT packet: the payload, its topic and properties
JSON_DEPTH = 12  # our deepest payload nests 5 levels; a deeper one is refused before it is parsed
NUMBER_DIGITS = 20  # a number in a payload: a 5,000-digit one costs the parser, never the cockpit
BACKOFF = (0.5, 30.0)  # seconds: the first pause after a failed connection (doubling), and the longest
COCKPIT_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")  # one topic level, a Home Assistant node id, a user name
PREFIX = re.compile(r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*$")  # topic levels without wildcards
PHASES = ("idle",) + tuple(p.value for p in Phase)
TIERS = tuple(name for name, _, _ in next(iter(TABLE.values()))[1])


class PayloadError(ValueError):
    """A payload that does not follow its schema: one line naming the field."""


# ---------------------------------------------------------------------------- schemas

def _obj(properties: dict[str, Any], *, optional: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    """A JSON object with exactly these properties, all required but the optional ones."""
    return {"type": "object", "required": [k for k in properties if k not in optional],
            "properties": properties, "additionalProperties": False, **extra}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    if "enum" in schema:
        return {**schema, "enum": schema["enum"] + [None]}
    if isinstance(schema.get("type"), str) and schema["type"] != "object":
        return {**schema, "type": [schema["type"], "null"]}
    return {"anyOf": [schema, {"type": "null"}]}


_STR = {"type": "string"}
_NAME = {"type": "string", "minLength": 1, "maxLength": 64}
_COUNT = {"type": "integer", "minimum": 0}
_ID = {"type": "string", "pattern": COCKPIT_ID.pattern}
_V = {"const": VERSION}
_SCORES = {"type": "object", "additionalProperties": {"type": "integer"}}
_TEAMS = {"type": "array", "items": _STR}

STATUS_SCHEMA = {"type": "string", "enum": [ONLINE, OFFLINE]}

STATE_SCHEMA = _obj({
    "v": _V,
    "cockpit": _ID,
    "name": _NAME,
    "phase": {"enum": list(PHASES)},
    "match": _nullable(_obj({"id": {"type": "integer", "minimum": 1},
                             "status": {"enum": list(STATUSES)},
                             "mode": {"enum": list(MODES)}})),
    "team": _nullable(_STR),
    "round": _nullable({"type": "integer", "minimum": 1}),
    "rounds": _nullable({"type": "integer", "minimum": 1}),
    "time_left": _nullable(_COUNT),
    "turn_seconds": _nullable({"type": "number"}),
    "completed": _COUNT,
    "mistakes": _COUNT,
    "counters_held": _COUNT,
    "scores": _SCORES,
    "target_points": _nullable({"type": "integer"}),
    "winner": _nullable(_TEAMS),
    "tier": _nullable({"enum": list(TIERS)}),
    "paused_for": {"type": "array", "items": _STR},
    "link": _obj({"connected": {"type": "boolean"}, "firmware": _nullable(_STR)}),
    "commands": {"type": "array", "items": {"enum": list(COMMANDS)}},  # the ones the cockpit takes now
    "end_when": {"type": "array", "items": {"enum": list(END_WHEN)}},  # the ends `end` takes now (rule 25)
    "dropped_events": _COUNT,
}, optional=("end_when",))

EVENT_SCHEMA = _obj({
    "v": _V,
    "cockpit": _ID,
    "seq": {"type": "integer", "minimum": 1},
    "match_id": _nullable({"type": "integer", "minimum": 1}),
    "at": {"type": "number"},
    # The engine's event as the pages see it; its details depend on its type, but never the card.
    "event": {"type": "object", "required": ["type", "t"],
              "properties": {"type": {"enum": list(event_types())}, "t": {"type": "number"}, "card": False}},
})

ACK_SCHEMA = _obj({
    "v": _V,
    "match": _obj({"id": {"type": "integer", "minimum": 1}, "created": _STR}),
    "counted": {"type": "boolean"},  # false: a repeat, or a result the venue refused (said in its log)
})

TURN_SCHEMA = _obj({
    "team": _STR,
    "round": {"type": "integer", "minimum": 1},
    "points": _COUNT,  # cards, plus the time counters held when five cards end the turn
    "cards": _COUNT,
    "counters": _COUNT,  # time counters held at the end of the turn
    "mistakes": _COUNT,
    "ended_by": {"enum": ["time", "five_cards", "mistakes"]},
    "seconds": {"type": "number", "minimum": 0},  # from the turn's start to its end, pauses included
})

RESULT_SCHEMA = _obj({
    "v": _V,
    "cockpit": _ID,
    "name": _NAME,
    "game": {"type": "string", "maxLength": 32},  # the game's id (a result without one: Penguin Airlines)
    "match": _obj({"id": {"type": "integer", "minimum": 1}, "created": _STR,
                   "status": {"enum": list(RESULT_STATUSES)}}),
    "finished_at": {"type": "number"},
    "mode": {"enum": list(MODES)},
    "teams": _TEAMS,
    "players": _COUNT,
    "scores": _SCORES,
    "winner": _nullable(_TEAMS),
    "tier": _nullable({"enum": list(TIERS)}),
    "turns": {"type": "array", "items": TURN_SCHEMA},
}, optional=("game",))

COMMAND_SCHEMA = _obj({
    "v": _V,
    "id": {"type": "string", "maxLength": 64},  # echoed in the reply
    "by": {"type": "string", "maxLength": 64},  # who asked, for the cockpit's log
    "when": {"enum": list(END_WHEN)},  # end: now, or at the end of the round (rule 25); now when left out
}, optional=("v", "id", "by", "when"))

REPLY_SCHEMA = _obj({
    "v": _V,
    "cockpit": _ID,
    "command": {"enum": list(COMMANDS)},
    "id": _nullable(_STR),
    "ok": {"type": "boolean"},
    "error": _nullable(_STR),
})

_DEVICE = _obj({"identifiers": {"type": "array", "items": _STR, "minItems": 1}, "name": _NAME,
                "manufacturer": _STR, "model": _STR, "sw_version": _STR})
_HA_COMMON = {
    "name": _NAME,
    "unique_id": {"type": "string", "pattern": "^penguin_panel_"},
    "availability_topic": _STR,
    "payload_available": {"const": ONLINE},
    "payload_not_available": {"const": OFFLINE},
    "device": _DEVICE,
    "origin": _obj({"name": _STR, "sw_version": _STR}),
    "icon": {"type": "string", "pattern": "^mdi:"},
}
HA_SENSOR_SCHEMA = _obj({
    **_HA_COMMON,
    "state_topic": _STR,
    "value_template": _STR,
    "device_class": {"enum": ["duration", "enum"]},
    "unit_of_measurement": _STR,
    "state_class": {"enum": ["measurement"]},
    "options": {"type": "array", "items": _STR},
    "json_attributes_topic": _STR,
    "json_attributes_template": _STR,
}, optional=("icon", "device_class", "unit_of_measurement", "state_class", "options", "json_attributes_topic",
             "json_attributes_template"))
HA_BINARY_SENSOR_SCHEMA = _obj({
    **_HA_COMMON,
    "state_topic": _STR,
    "value_template": _STR,
    "payload_on": {"const": "ON"},
    "payload_off": {"const": "OFF"},
    "device_class": {"const": "connectivity"},
}, optional=("icon",))
HA_BUTTON_SCHEMA = _obj({
    **_HA_COMMON,
    "command_topic": _STR,
    "payload_press": _STR,
    "qos": {"const": 1},
}, optional=("icon",))


# ---------------------------------------------------------------------------- topics

@dataclass(frozen=True)
class Topic:
    key: str
    pattern: str  # {prefix} {cockpit} {action} {discovery} {object}
    writers: tuple[str, ...]  # the broker users allowed to publish it (panel.mqtt.broker's ACL)
    retained: bool
    qos: int
    schema: dict[str, Any]
    about: str
    text: bool = False  # plain text, not JSON
    bytes: int = PAYLOAD_BYTES  # a bigger payload is dropped unread

    def render(self, **values: str) -> str:
        return self.pattern.format(**values)


_BASE = "{prefix}/v1/{cockpit}"
TOPICS: tuple[Topic, ...] = (
    Topic("status", f"{_BASE}/status", ("cockpit",), True, 1, STATUS_SCHEMA,
          "`online` once connected (and `offline` as the last will); the broker publishes `offline` when the cockpit goes away "
          "without saying goodbye, and the cockpit publishes it when it stops.", text=True),
    Topic("state", f"{_BASE}/state", ("cockpit",), True, 1, STATE_SCHEMA,
          "The match as the board shows it (never the card), at every change; the timer in whole "
          "seconds, so at most about once a second while a turn runs."),
    Topic("event", f"{_BASE}/event", ("cockpit",), False, 1, EVENT_SCHEMA,
          "Every game event, in order, numbered by `seq` (from 1 at each start of the cockpit). "
          f"Kept while the broker is away, the last {OUTBOX_EVENTS} of them; the state's "
          "`dropped_events` counts the older ones dropped."),
    Topic("result", f"{_BASE}/result", ("cockpit",), True, 1, RESULT_SCHEMA,
          "A match that finished or that the game master ended, once, with its turns. Rebuilt from "
          "the cockpit's own log and kept there until the venue acknowledges it (`ack`): after an outage "
          f"or while the venue is away the ones not yet acknowledged follow, in order, {RESULTS_WINDOW} at a time."),
    Topic("command", f"{_BASE}/command/{{action}}",
          ("venue", "homeassistant"), False, 1,
          COMMAND_SCHEMA,
          f"`{{action}}` is one of {', '.join(COMMANDS)}. `start` sets up a walk-up match (as the "
          "START button) or starts the next turn; the others are the game master's. The broker's "
          "ACL decides who may publish which; a retained command is refused. The payload is a JSON "
          "object, `{}` at least.", bytes=COMMAND_BYTES),
    Topic("reply", f"{_BASE}/reply", ("cockpit",), False, 1, REPLY_SCHEMA,
          "The answer to each command: done, or the game master page's reason for refusing it."),
    Topic("ack", f"{_BASE}/ack", ("venue",), False, 1, ACK_SCHEMA,
          "The venue has a result (counted, or a repeat, or refused and said in its log): the cockpit "
          "stops keeping it for the venue and sends the next."),
    Topic("venue_status", "{prefix}/v1/_venue/status", ("venue",), True, 1, STATUS_SCHEMA,
          "The venue's own `online` (and `offline` as its last will): a venue back online gets the "
          "results not yet acknowledged again. (`_venue` is no cockpit id: ids start with a letter or digit.)",
          text=True),
    Topic("ha_sensor", "{discovery}/sensor/{cockpit}/{object}/config", ("cockpit",), True, 1, HA_SENSOR_SCHEMA,
          "Home Assistant discovery: `{object}` is phase, time_left, team or scores. Empty (deleted) "
          "when the bridge is switched off."),
    Topic("ha_binary_sensor", "{discovery}/binary_sensor/{cockpit}/{object}/config", ("cockpit",),
          True, 1,
          HA_BINARY_SENSOR_SCHEMA,
          "Home Assistant discovery: `{object}` is `link`, the co-processor's link (connectivity)."),
    Topic("ha_button", "{discovery}/button/{cockpit}/{object}/config", ("cockpit",), True, 1,
          HA_BUTTON_SCHEMA,
          "Home Assistant discovery: `{object}` is pause or resume; a press publishes the command."),
)
TOPIC = {t.key: t for t in TOPICS}


def topic(key: str, *, prefix: str, cockpit: str, **values: str) -> str:
    return TOPIC[key].render(prefix=prefix, cockpit=cockpit, **values)


def parse_topic(name: str, prefix: str) -> tuple[str, str, str | None] | None:
    """'<prefix>/v1/c1/command/pause' -> ('c1', 'command', 'pause'); None when not ours."""
    head = f"{prefix}/v{VERSION}/"
    if not name.startswith(head):
        return None
    parts = name[len(head):].split("/")
    if len(parts) == 2 and parts[1] in ("status", "state", "event", "result", "reply", "ack"):
        cockpit, key, arg = parts[0], parts[1], None
    elif len(parts) == 3 and parts[1] == "command":
        cockpit, key, arg = parts[0], "command", parts[2]
    else:
        return None
    return (cockpit, key, arg) if COCKPIT_ID.match(cockpit) else None


# ---------------------------------------------------------------------------- checking

@lru_cache(maxsize=None)
def _validator(key: str, strict: bool):
    import fastjsonschema

    schema = TOPIC[key].schema
    return fastjsonschema.compile(schema if strict else _lenient(schema))


def _lenient(schema: Any) -> Any:
    """The schema without its `additionalProperties: false`: what a v1 reader accepts."""
    if isinstance(schema, dict):
        return {k: _lenient(v) for k, v in schema.items() if not (k == "additionalProperties" and v is False)}
    if isinstance(schema, list):
        return [_lenient(v) for v in schema]
    return schema


def validate(key: str, payload: Any, *, strict: bool = True) -> Any:
    """The payload when it follows the topic's schema, else PayloadError (one line)."""
    import fastjsonschema

    try:
        return _validator(key, strict)(payload)
    except fastjsonschema.JsonSchemaValueException as e:
        raise PayloadError(e.message.replace("data", "payload", 1)) from None


def check_size(key: str, raw: bytes | bytearray) -> None:
    """PayloadError when a payload is larger than its topic's bound (before anything reads it)."""
    most = TOPIC[key].bytes
    if len(raw) > most:
        raise PayloadError(f"payload is {len(raw)} bytes, larger than {most} bytes: dropped unread")


def decode(key: str, raw: bytes | bytearray, *, strict: bool = False) -> Any:
    """A received payload, parsed and checked; PayloadError (one line) otherwise. Bounded
    before it is parsed: its size, its nesting and the digits of its numbers."""
    check_size(key, raw)
    try:
        text = bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise PayloadError("payload is not UTF-8 text") from None
    if TOPIC[key].text:
        return validate(key, text, strict=strict)
    return validate(key, loads(text), strict=strict)


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def loads(text: str) -> Any:
    """JSON from a client: PayloadError (one line) for what is not JSON, nests deeper than
    JSON_DEPTH or has a number longer than NUMBER_DIGITS (Python would raise a ValueError
    past 4,300 digits and a RecursionError on deep nesting: a traceback per message)."""
    depth = most = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        depth += 1 if bracket in "[{" else -1
        most = max(most, depth)
    if most > JSON_DEPTH:
        raise PayloadError(f"payload nests deeper than {JSON_DEPTH} levels")
    try:
        return json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise PayloadError(f"payload is not JSON ({e.msg} at character {e.pos})") from None
    except (ValueError, RecursionError) as e:
        raise PayloadError(str(e) if isinstance(e, PayloadError) else "payload is not JSON we can read") from None


def _number(kind):
    def parse(digits: str):
        if len(digits) > NUMBER_DIGITS:
            raise PayloadError(f"payload has a number of {len(digits)} characters (at most {NUMBER_DIGITS})")
        return kind(digits)
    return parse


def _no_constant(name: str):
    raise PayloadError(f"payload has {name}, which is not a JSON number")


def check_result(result: dict[str, Any]) -> dict[str, Any]:
    """A result (already checked against its schema) within what its game's rules allow
    (`Game.result_limits`): PayloadError (one line) for more teams, longer names, more
    turns, more points, cards, counters or mistakes in a turn than a match can have."""
    try:
        game = game_of(result)
    except UnknownGame as e:
        raise PayloadError(f"a result of a game this venue does not know ({e})") from None
    most = game.result_limits
    if most is None:
        raise PayloadError(f"a result of {game.id}, whose matches score nothing at a venue")
    teams, scores, turns = result["teams"], result["scores"], result["turns"]

    def over(what: str, n: int, limit: int) -> None:
        if n > limit:
            raise PayloadError(f"{what}: {n}, more than its rules allow ({limit})")

    over("teams", len(teams), most.teams)
    over("players", result["players"], most.players)
    over("turns", len(turns), most.turns)
    over("a team's name, in characters", max((len(t) for t in [*teams, *scores]), default=0), most.name)
    if not set(scores) <= set(teams):
        raise PayloadError("scores: a team that is not among the teams")
    turns_of: dict[str, int] = {}
    for t in turns:
        if t["team"] not in teams:
            raise PayloadError(f"turns: team {t['team'][:40]!r} is not among the teams")
        over("points in a turn", t["points"], most.turn_points)
        over("cards in a turn", t["cards"], most.turn_cards)
        over("time counters in a turn", t["counters"], most.turn_counters)
        over("mistakes in a turn", t["mistakes"], most.turn_mistakes)
        turns_of[t["team"]] = turns_of.get(t["team"], 0) + 1
    for team, points in scores.items():
        over(f"points of {team!r}", points, most.turn_points * turns_of.get(team, 0))
    return result


def encode(payload: Any) -> bytes:
    if isinstance(payload, str):
        return payload.encode()
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


# ---------------------------------------------------------------------------- payloads

def state_payload(cockpit: str, name: str, state: dict[str, Any], *, dropped: int) -> dict[str, Any]:
    """The cockpit's public state (`Cockpit.public_state`, already without the card) as
    the state topic carries it. The venue counts the matches of the games it scores
    (`Game.at_venue`): while another game is played the cockpit is idle to it, and takes
    none of its commands."""
    counted = counted_at_venue(state)
    status = state.get("status")
    match_id = state.get("match_id") if counted else None
    in_play = match_id is not None and status != "abandoned"
    time_left = state.get("time_left") if in_play else None
    link = state.get("link") or {}
    scores = state.get("scores") if in_play else None
    return {
        "v": VERSION,
        "cockpit": cockpit,
        "name": name,
        "phase": state.get("phase", "idle") if in_play else "idle",
        "match": {"id": match_id, "status": status, "mode": state.get("mode", "competitive")} if match_id else None,
        "team": state.get("team") if in_play else None,
        "round": state.get("round") if in_play else None,
        "rounds": state.get("rounds") if in_play else None,
        "time_left": None if time_left is None else int(math.ceil(max(0.0, time_left) - 1e-9)),
        "turn_seconds": state.get("turn_seconds") if in_play else None,
        "completed": int(state.get("completed") or 0) if in_play else 0,
        "mistakes": int(state.get("mistakes") or 0) if in_play else 0,
        "counters_held": int(state.get("counters_held") or 0) if in_play else 0,
        "scores": dict(scores or {}),
        "target_points": state.get("target_points") if in_play else None,
        "winner": list(state["winner"]) if in_play and state.get("winner") else None,
        "tier": state.get("tier") if in_play else None,
        "paused_for": list(state.get("paused_for") or []) if in_play else [],
        "link": {"connected": bool(link.get("connected")), "firmware": link.get("firmware")},
        "commands": commands_now(state, in_play) if counted else [],
        "end_when": list(((state.get("actions") or {}).get("end") or {}).get("when") or []) if counted and in_play else [],
        "dropped_events": dropped,
    }


def counted_at_venue(d: dict[str, Any]) -> bool:
    """Whether the game a state or a stored match is of scores at a venue."""
    try:
        return game_of(d).at_venue
    except UnknownGame:
        return False


def commands_now(state: dict[str, Any], in_play: bool) -> list[str]:
    """The commands the cockpit takes now: the engine's allowed actions (`actions` in the
    public state); `start` also whenever no match is in play (the START button)."""
    allowed = state.get("actions") or {}
    return [c for c in COMMANDS if COMMAND_ACTIONS[c] in allowed
            or c == "start" and (not in_play or state.get("phase") == "finished")]


def event_payload(cockpit: str, seq: int, match_id: int | None, event: dict[str, Any], at: float) -> dict[str, Any]:
    """One game event as the pages see it (`public_event`: no card)."""
    event = dict(event)
    event.pop("card", None)  # public_event already took it out; never trust one caller
    return {"v": VERSION, "cockpit": cockpit, "seq": seq, "match_id": match_id, "at": round(at, 3), "event": event}


def result_payload(cockpit: str, name: str, *, game: str, match_id: int, created: str, status: str,
                   finished_at: float, result: dict[str, Any]) -> dict[str, Any]:
    """A finished match: what its game reports to a venue (`Game.venue_result`: its teams,
    scores, result and turns) in the result topic's frame, with the game's id (the venue
    checks the result against that game's `result_limits`)."""
    return {
        "v": VERSION, "cockpit": cockpit, "name": name, "game": game,
        "match": {"id": match_id, "created": created, "status": status},
        "finished_at": round(finished_at, 3),
        **result,
    }


def ack_payload(result: dict[str, Any], *, counted: bool) -> dict[str, Any]:
    return {"v": VERSION, "match": {"id": result["match"]["id"], "created": result["match"]["created"]},
            "counted": counted}


def reply_payload(cockpit: str, command: str, request_id: str | None, error: str | None) -> dict[str, Any]:
    return {"v": VERSION, "cockpit": cockpit, "command": command, "id": request_id, "ok": error is None,
            "error": error}


def parse_command(raw: bytes | bytearray) -> dict[str, Any]:
    """A command's payload, {"id"?, "by"?} ({} at least); PayloadError otherwise. An empty
    payload is not a command: it is what clears a retained message."""
    check_size("command", raw)
    if not bytes(raw).strip():
        raise PayloadError("payload is empty: send a JSON object, {} at least")
    return decode("command", raw, strict=True)


# ---------------------------------------------------------------------------- Home Assistant

HA_SENSORS = {  # object: (name, icon, value template, extra keys)
    "phase": ("Phase", "mdi:airplane", "{{ value_json.phase }}",
              {"device_class": "enum", "options": list(PHASES)}),
    "time_left": ("Time left", "mdi:timer-sand", "{{ value_json.time_left }}",
                  {"device_class": "duration", "unit_of_measurement": "s", "state_class": "measurement"}),
    "team": ("Current team", "mdi:account-group", "{{ value_json.team }}", {}),
    "scores": ("Scores", "mdi:scoreboard",
               "{% for team, points in value_json.scores.items() %}{{ team }} {{ points }}"
               "{% if not loop.last %} · {% endif %}{% endfor %}",
               {"json_attributes_template": "{{ value_json.scores | tojson }}"}),
}
HA_LINK = ("Co-processor link", "{{ 'ON' if value_json.link.connected else 'OFF' }}")


def discovery(cockpit: str, name: str, *, prefix: str, discovery_prefix: str) -> dict[str, dict[str, Any]]:
    """Home Assistant's discovery topics and payloads for one cockpit: one device with its
    sensors, the link's binary sensor and the pause and resume buttons."""
    state = topic("state", prefix=prefix, cockpit=cockpit)
    common = {
        "availability_topic": topic("status", prefix=prefix, cockpit=cockpit),
        "payload_available": ONLINE, "payload_not_available": OFFLINE,
        "device": {"identifiers": [f"penguin_panel_{cockpit}"], "name": name,
                   "manufacturer": "Penguin Panel project", "model": "Penguin Airlines cockpit",
                   "sw_version": __version__},
        "origin": {"name": "penguin-panel", "sw_version": __version__},
    }
    out: dict[str, dict[str, Any]] = {}
    for obj, (label, icon, template, extra) in HA_SENSORS.items():
        payload = {"name": label, "unique_id": f"penguin_panel_{cockpit}_{obj}", "icon": icon, **common,
                   "state_topic": state, "value_template": template, **extra}
        if "json_attributes_template" in extra:
            payload["json_attributes_topic"] = state
        out[TOPIC["ha_sensor"].render(discovery=discovery_prefix, cockpit=cockpit, object=obj)] = payload
    out[TOPIC["ha_binary_sensor"].render(discovery=discovery_prefix, cockpit=cockpit, object="link")] = {
        "name": HA_LINK[0], "unique_id": f"penguin_panel_{cockpit}_link", **common, "state_topic": state,
        "value_template": HA_LINK[1], "payload_on": "ON", "payload_off": "OFF", "device_class": "connectivity"}
    for action in HA_BUTTONS:
        out[TOPIC["ha_button"].render(discovery=discovery_prefix, cockpit=cockpit, object=action)] = {
            "name": action.capitalize(), "unique_id": f"penguin_panel_{cockpit}_{action}",
            "icon": "mdi:pause" if action == "pause" else "mdi:play", **common,
            "command_topic": topic("command", prefix=prefix, cockpit=cockpit, action=action),
            "payload_press": json.dumps({"v": VERSION, "by": "Home Assistant"}), "qos": 1}
    return out


def discovery_key(name: str) -> str:
    """The topic key of a discovery topic ('homeassistant/button/c1/pause/config' -> 'ha_button')."""
    component = name.split("/")[-4]
    return f"ha_{component}"


# ---------------------------------------------------------------------------- the document

def markdown() -> str:
    """The limits, the table and the schemas of docs/mqtt.md (between its `generated` markers)."""
    lines = [f"- Events kept while the broker is away: the last {OUTBOX_EVENTS} (older ones dropped and counted).",
             f"- Results: kept by the cockpit until the venue acknowledges each one (`ack`), sent in order, "
             f"at most {RESULTS_WINDOW} not yet acknowledged at once; one sent while the venue is online and not "
             f"acknowledged within {ACK_WAIT:g} s goes again.",
             f"- A payload: at most {PAYLOAD_BYTES} bytes (a command's {COMMAND_BYTES}), nesting at most "
             f"{JSON_DEPTH} levels, numbers at most {NUMBER_DIGITS} characters; anything larger is dropped "
             "unread, and the venue's broker refuses a packet over {PACKET_BYTES} bytes from anyone.".replace(
                 "{PACKET_BYTES}", str(PACKET_BYTES)),
             f"- Reconnecting: after {BACKOFF[0]:g} s, then twice as long each time, at most every {BACKOFF[1]:g} s "
             "(with ±20 % jitter, so many cockpits do not knock on a restarted broker at once).",
             "", "| topic | published by | retained | QoS | payload |", "|---|---|---|---|---|"]
    for t in TOPICS:
        payload = "plain text" if t.text else f"JSON, [schema](#{t.key})"
        writers = "; ".join(WRITER_WORDS[w] for w in t.writers)
        lines.append(f"| `{t.pattern}` | {writers} | {'yes' if t.retained else 'no'} | {t.qos} | {payload} |")
    lines.append("")
    for t in TOPICS:
        lines += [f"### {t.key}", "", f"`{t.pattern}`: {t.about}", "", "```json", _pretty(t.schema), "```", ""]
    return "\n".join(lines)


WRITER_WORDS = {"cockpit": "the cockpit", "venue": "the venue",
                "homeassistant": f"Home Assistant ({' and '.join(HA_BUTTONS)} only)"}


def _pretty(value: Any, indent: str = "") -> str:
    """JSON with one key per line, short objects and lists kept on one line."""
    flat = json.dumps(value, ensure_ascii=False)
    if len(indent) + len(flat) <= 100:
        return flat
    if isinstance(value, dict) and value:
        inner = indent + "  "
        items = [f"{inner}{json.dumps(k)}: {_pretty(v, inner)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        inner = indent + "  "
        return "[\n" + ",\n".join(inner + _pretty(v, inner) for v in value) + "\n" + indent + "]"
    return json.dumps(value, ensure_ascii=False)


BEGIN, END = "<!-- generated by python -m panel.mqtt.protocol: begin -->", "<!-- generated: end -->"


def document_section(text: str) -> str:
    """The generated part of docs/mqtt.md."""
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    return text[start:stop].strip("\n")


if __name__ == "__main__":  # rewrite docs/mqtt.md's generated part
    import sys
    from pathlib import Path

    doc = Path(__file__).resolve().parents[2] / "docs" / "mqtt.md"
    text = doc.read_text()
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    doc.write_text(text[:start] + "\n" + markdown() + "\n" + text[stop:])
    print(f"wrote {doc}", file=sys.stderr)
