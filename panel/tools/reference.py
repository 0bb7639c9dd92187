"""The guide's reference pages (docs/reference/), generated from the code's own declarations
so they cannot drift: every `penguin-panel` command and option from the argparse parsers
(panel/tools/cli.py builds them), every settings-file and scenario key from the settings
declarations (the engine's SETTINGS, the schema tables of panel/run.py, the settings
dataclasses of panel/mqtt/settings.py and panel/venue/run.py, Kaboom's KEYS).

    penguin-panel docs reference --out docs/reference           # write the pages
    penguin-panel docs reference --out docs/reference --check   # stale? (a test runs it)

Types and defaults come from the declarations. A meaning comes from the declaration where
it declares one (the match settings' help); the tables that declare none take theirs from
MEANINGS below, and `reference_files` refuses a key without a meaning, or a meaning whose
key no declaration has, so a new key cannot reach the guide undescribed.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import typing
from typing import Any, Iterator

from panel.core import schema

# The meaning of each key whose declaration carries none, by "table.key".
MEANINGS = {
    "service.host": "address the pages are served on (127.0.0.1: this computer only; 0.0.0.0: the network)",
    "service.port": "port the pages are served on (0: any free port)",
    "service.db": "the cockpit's SQLite database (default $XDG_STATE_HOME/penguin-panel/panel.db)",
    "service.pin": "the game master's PIN, 4 to 12 digits (else one is made at first start and printed)",
    "service.allow_hosts": "other names the pages are reached by (requests naming another host are refused)",
    "service.layout": "the panel's layout file (default: the Penguin Airlines panel)",
    "service.hardware": "the built cockpit's hardware map (a shipped map's name or a file)",
    "service.sim_from_network": "with --sim: may other devices than this computer press the simulated panel",
    "service.keep_logs_days": "match logs are kept this many days (0: for ever); debriefs are always kept",
    "service.keep_logs_matches": "and only the newest N matches' logs (0: no limit)",
    "kaboom.walk_up": "a penguin's colour pressed with no match in play sets a Kaboom mission up",
    "kaboom.difficulty": "the walk-up mission's difficulty (easy, medium, advanced)",
    "kaboom.mission": "the walk-up mission's number (1 to 15, or \"custom\")",
    "kaboom.custom": "a custom mission's numbers (time_per_player, alert_seconds, recharge_seconds, "
                     "recharge_above_start)",
    "kaboom.missions": "a café's own copy of panel/games/kaboom/missions.toml",
    "pengo_jump.walk_up": "a Pengo Jump draw button pressed with no match in play sets a game up",
    "pengo_jump.mode": "the walk-up game's mode (happy: Happy Penguins, sea_lions: Sea Lions Adventure)",
    "pengo_jump.players": "the walk-up game's players: their names in the order they play, or how many (1: solo)",
    "mqtt.host": "the venue's MQTT broker (a host name or an address)",
    "mqtt.port": "the broker's port (default 1883, or 8883 with TLS)",
    "mqtt.tls": "connect with TLS (needed for ca_file and cert_file)",
    "mqtt.ca_file": "the certificate authority the broker's certificate is checked against",
    "mqtt.cert_file": "a client certificate to log in with (named like the cockpit)",
    "mqtt.key_file": "the client certificate's key",
    "mqtt.username": "the broker user (one per cockpit, named like its id)",
    "mqtt.password": "the broker user's password",
    "mqtt.topic_prefix": "the first levels of every topic (see the MQTT reference)",
    "mqtt.enabled": "false takes this cockpit off the broker and out of Home Assistant",
    "mqtt.cockpit_id": "this cockpit's id in the topics (default: the machine's name)",
    "mqtt.name": "its name on the venue board and in Home Assistant (default \"Cockpit <id>\")",
    "mqtt.homeassistant": "publish Home Assistant's discovery, so it finds the cockpit by itself",
    "mqtt.discovery_prefix": "Home Assistant's discovery prefix",
    "venue.host": "address the venue board is served on",
    "venue.port": "port the venue board is served on (0: any free port)",
    "venue.db": "the leaderboard's SQLite file (default $XDG_STATE_HOME/penguin-panel/venue.db)",
    "venue.pin": "the venue admin's PIN (else one is made at first start and printed)",
    "venue.allow_hosts": "other names the venue's pages are reached by",
    "venue.name": "the board's name, on the TV",
    "kaboom-scenario.mode": "\"kaboom\": the scenario is a Penguin Kaboom mission",
    "kaboom-scenario.players": "the penguins playing: colours, or tables { colour = ..., name = ... } "
                               "(none: they join on the panel)",
    "kaboom-scenario.difficulty": "easy, medium or advanced",
    "kaboom-scenario.mission": "1 to 15, or \"custom\" with a custom table",
    "kaboom-scenario.custom": "time_per_player, alert_seconds, recharge_seconds, recharge_above_start",
    "kaboom-scenario.seed": "the same seed deals the same alerts",
    "kaboom-scenario.layout": "the panel's layout file",
    "kaboom-scenario.missions": "a missions file instead of the shipped one",
    "kaboom-scenario.rules": "the numbers a stored mission was set up with (written by the cockpit, so its "
                             "log replays the same)",
}

# The type of each key whose declaration checks it with a reader of its own (schema.Check, Field).
TYPES = {
    "service.pin": "a string of 4 to 12 digits",
    "service.allow_hosts": "an array of strings",
    "service.keep_logs_days": "a whole number 0-100000",
    "service.keep_logs_matches": "a whole number 0-100000",
    "kaboom.difficulty": "easy, medium or advanced",
    "kaboom.mission": "a whole number 1-15, or \"custom\"",
    "kaboom.custom": "a table",
    "kaboom.missions": "a file name",
}

GENERATED = "<!-- generated by `penguin-panel docs reference --out docs/reference`: do not edit -->\n\n"


@contextlib.contextmanager
def _english() -> Iterator[None]:
    """The reference is in English (the guide's language) whatever the system locale."""
    keys = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: "C" for k in keys})
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# -- commands -----------------------------------------------------------------------------

def _sub_action(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def command_parsers(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser, str]]:
    """Every command's parser with its words ("wiring", "service install") and its help."""
    sub = _sub_action(parser)
    if sub is None:
        return
    helps = {a.dest: a.help or "" for a in sub._choices_actions}
    for name, p in sub.choices.items():
        words = p.prog.split(" ", 1)[1]
        yield words, p, helps.get(name, "")
        yield from command_parsers(p)


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """A parser's arguments and options, without -h and the sub-command slot."""
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def _option_row(formatter: argparse.HelpFormatter, a: argparse.Action) -> str:
    if a.option_strings:
        name = ", ".join(f"`{o}`" for o in a.option_strings)
        if a.nargs != 0:
            name += f" `{formatter._format_args(a, formatter._get_default_metavar_for_optional(a))}`"
    else:
        name = f"`{formatter._format_args(a, formatter._get_default_metavar_for_positional(a))}`"
    what = formatter._expand_help(a) if a.help and a.help is not argparse.SUPPRESS else ""
    if a.choices is not None and not isinstance(a, argparse._SubParsersAction):
        what += f" (one of: {', '.join(map(str, a.choices))})"
    if a.required and a.option_strings:
        what += " (required)"
    return f"| {_cell(name)} | {_cell(what)} |"


def commands_page() -> str:
    from panel.tools.cli import build_parser

    with _english():
        root = build_parser()
        out = ["# Commands\n", GENERATED,
               "Every `penguin-panel` command and its options, as its `--help` says them.\n"]
        for words, p, help_ in command_parsers(root):
            out.append(f"\n## `penguin-panel {words}`\n")
            if help_:
                out.append(f"{help_[0].upper()}{help_[1:]}.\n" if not help_.endswith(".") else f"{help_}\n")
            if p.description and p.description != help_:
                out.append(f"\n{p.description}\n")
            f = p._get_formatter()
            out.append(f"\n```\n{f._format_usage(p.usage, p._actions, p._mutually_exclusive_groups, '').strip()}"
                       "\n```\n")
            rows = [_option_row(f, a) for a in options(p)]
            if rows:
                out.append("\n| argument or option | what it does |\n| --- | --- |\n" + "\n".join(rows) + "\n")
            sub = _sub_action(p)
            if sub is not None:
                out.append("\nSub-commands: " + ", ".join(f"[`{n}`](#penguin-panel-{words.replace(' ', '-')}-{n})"
                                                           for n in sub.choices) + ".\n")
    return "".join(out)


def command_names() -> set[str]:
    """Every command and option the parsers declare ("wiring", "wiring --check")."""
    from panel.tools.cli import build_parser

    with _english():
        names = set()
        for words, p, _help in command_parsers(build_parser()):
            names.add(words)
            names.update(f"{words} {o}" for a in options(p) for o in a.option_strings)
    return names


# -- settings -----------------------------------------------------------------------------

_SCHEMA_TYPES = {schema.Bool: "true or false", schema.Str: "a string", schema.Int: "a whole number",
                 schema.Number: "a number", schema.Choice: "one of its choices", schema.Array: "an array",
                 schema.Table: "a table"}
_HINT_TYPES = {str: "a string", int: "a whole number", bool: "true or false", tuple: "an array of strings",
               dict: "a table"}


def _schema_type(table: str, key: str, f: schema.Field) -> str:
    if f"{table}.{key}" in TYPES:
        return TYPES[f"{table}.{key}"]
    if isinstance(f, schema.Int) and (f.lo is not None or f.hi is not None):
        return f"a whole number {f.lo}-{f.hi}"
    return _SCHEMA_TYPES.get(type(f), "checked by its reader")


def _hint_type(hint: Any) -> str:
    if typing.get_origin(hint) is tuple:
        return _HINT_TYPES[tuple] if typing.get_args(hint)[0] is str else "an array"
    args = [a for a in typing.get_args(hint) if a is not type(None)] or [hint]
    types = [_HINT_TYPES.get(typing.get_origin(a) or a, "a value") for a in args]
    return " or ".join(dict.fromkeys(types))


def _toml(v: Any) -> str:
    if isinstance(v, Shown):
        return str(v)
    if v is None or v == () or v == "":
        return "(none)"
    if isinstance(v, bool):
        return f"`{str(v).lower()}`"
    if isinstance(v, str):
        return f'`"{v}"`'
    return f"`{v}`"


class Shown(str):
    """A default said in words, not a TOML value."""


def _meaning(table: str, key: str) -> str:
    return MEANINGS.get(f"{table}.{key}", "")


def schema_rows(table: str, declared: schema.Table, *, defaults: dict[str, Any] | None = None) -> list[tuple]:
    return [(table, k, _schema_type(table, k, f), _toml((defaults or {}).get(k, f.default)), _meaning(table, k))
            for k, f in declared.fields.items()]


def dataclass_rows(table: str, cls: type, *, keys: tuple[str, ...] | None = None) -> list[tuple]:
    hints = typing.get_type_hints(cls)
    rows = []
    for f in dataclasses.fields(cls):
        if keys is not None and f.name not in keys:
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        rows.append((table, f.name, _hint_type(hints[f.name]), _toml(default), _meaning(table, f.name)))
    return rows


def match_rows(table: str, place: str) -> list[tuple]:
    from panel.games.airlines.engine.settings import SETTINGS, names

    kinds = {"number": "a number", "choice": "one of its choices", "flag": "true or false",
             "teams": "an array of tables { name, players }", "path": "a file name"}
    allowed = names(place) if place else tuple(s.name for s in SETTINGS)
    rows = []
    for s in SETTINGS:
        if s.name not in allowed:
            continue
        kind = kinds[s.kind]
        if s.kind == "number":
            kind = f"a {'whole ' if s.whole else ''}number {s.low:g}-{int(s.high) if s.whole else f'{s.high:g}'}"
        elif s.kind == "choice":
            kind = "one of: " + ", ".join(s.choices)
        default = s.as_dict()["default"]
        if s.kind == "teams":
            default = ", ".join(t["name"] for t in default)
        rows.append((table, s.name, kind, _toml(default) if s.kind != "teams" else default, s.help))
    return rows


def settings_tables() -> dict[str, tuple[str, list[tuple]]]:
    """Each file's tables: title -> (what it is, rows (table, key, type, default, meaning))."""
    from panel.games.kaboom.game import DEFAULTS_TABLE as KABOOM_DEFAULTS  # the game checks its own table
    from panel.games.kaboom.settings import KaboomSettings
    from panel.games.pengo_jump.game import DEFAULTS_TABLE as PENGO_DEFAULTS
    from panel.mqtt.settings import BridgeSettings, BrokerSettings
    from panel.run import DEFAULT_PORT, SERVICE
    from panel.service.history import DEFAULT_KEEP_DAYS, Retention
    from panel.venue.run import VenueSettings

    # the defaults `resolve` and Retention apply when a key is left out (no schema default)
    service_defaults = {"host": Shown('`"0.0.0.0"` (`"127.0.0.1"` with --sim)'), "port": DEFAULT_PORT,
                        "keep_logs_days": DEFAULT_KEEP_DAYS, "keep_logs_matches": 0}
    assert set(Retention.KEYS) <= set(SERVICE.fields)
    return {
        "The cockpit's settings file": (
            "`penguin-panel play --settings FILE` (on a Pi: `/etc/penguin-panel/settings.toml`). "
            "Every table is optional; every key is checked at start, one line per mistake.",
            schema_rows("service", SERVICE, defaults=service_defaults) + match_rows("match", "file")
            + schema_rows("kaboom", KABOOM_DEFAULTS) + schema_rows("pengo_jump", PENGO_DEFAULTS)
            + dataclass_rows("mqtt", BridgeSettings)),
        "The venue's settings file": (
            "`penguin-panel venue --settings FILE` (`/etc/penguin-panel/venue.toml`).",
            dataclass_rows("venue", VenueSettings) + dataclass_rows("mqtt", BrokerSettings)),
        "A Penguin Airlines scenario's [match] table": (
            "`penguin-panel replay FILE`: the match a scenario plays (see [Scenarios](../scenarios.md)).",
            match_rows("match", "")),
        "A Penguin Kaboom scenario's [match] table": (
            "A scenario with `mode = \"kaboom\"` in `[match]`.",
            [("kaboom-scenario", "mode", "a string", _toml(KaboomSettings.mode), _meaning("kaboom-scenario", "mode"))]
            + dataclass_rows("kaboom-scenario", KaboomSettings, keys=KaboomSettings.KEYS)),
    }


def settings_page() -> str:
    out = ["# Settings files\n", GENERATED,
           "Every key of the settings files and scenarios, with its type, its default and its meaning, "
           "from the declarations the readers check them with.\n"]
    for title, (what, rows) in settings_tables().items():
        out.append(f"\n## {title}\n\n{what}\n\n| key | type | default | meaning |\n| --- | --- | --- | --- |\n")
        for table, key, kind, default, meaning in rows:
            shown = f"[{table}] {key}" if not table.endswith("scenario") else key
            out.append(f"| `{shown}` | {_cell(kind)} | {_cell(default)} | {_cell(meaning)} |\n")
    return "".join(out)


def settings_keys() -> set[str]:
    return {f"{title}: {t}.{k}" for title, (_w, rows) in settings_tables().items() for t, k, *_ in rows}


def undescribed() -> list[str]:
    """Keys with no meaning, and MEANINGS no declaration has (both must be none)."""
    rows = [r for _w, rs in settings_tables().values() for r in rs]
    missing = [f"{t}.{k}: no meaning (add it to MEANINGS in panel/tools/reference.py)" for t, k, *_, m in rows
               if not m]
    have = {f"{t}.{k}" for t, k, *_ in rows}
    extra = [f"{k}: in MEANINGS but no declaration has it" for k in MEANINGS if k not in have]
    return missing + extra


def reference_files() -> dict[str, str]:
    problems = undescribed()
    if problems:
        raise ValueError("; ".join(problems))
    return {"commands.md": commands_page(), "settings.md": settings_page()}
