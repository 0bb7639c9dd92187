"""The [mqtt] table of a settings file: where the broker is and who we are on it.

Checked up front, every problem at once with the file and the key (`mqtt.port: ...`), so
a typo is found at start, not an hour later when the broker is first needed. The keys
are the fields of the dataclasses below and nowhere else.

    [mqtt]                       # the cockpit's bridge (the venue's [mqtt] has the broker keys only)
    host = "venue-broker.local"
    port = 8883                  # default 1883, or 8883 with tls
    tls = true                   # the system's CAs, or ca_file for the venue's own
    ca_file = "/etc/penguin-panel/venue-ca.pem"
    username = "cockpit-1"       # and password, or a client certificate:
    password = "..."
    cert_file = "/etc/penguin-panel/cockpit-1.pem"
    key_file = "/etc/penguin-panel/cockpit-1.key"
    cockpit_id = "cockpit-1"     # default: this machine's name
    name = "By the window"       # on the venue board and in Home Assistant
    topic_prefix = "penguin-panel"
    homeassistant = true         # discovery under discovery_prefix ("homeassistant")
    enabled = true               # false: take this cockpit's topics off the broker, then stay off
"""

from __future__ import annotations

import os
import re
import socket
import ssl
import types
import typing
from dataclasses import dataclass, field, fields
from typing import Any

from panel.core import schema
from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, Word
from panel.mqtt.broker import reserved
from panel.mqtt.protocol import COCKPIT_ID, DEFAULT_DISCOVERY_PREFIX, DEFAULT_PREFIX, PREFIX


class Table:
    """A settings table declared as a frozen dataclass: its fields are its keys, their
    types the types the file must use (read with panel.core.schema); `_check` adds the
    checks of values."""

    @classmethod
    def schema(cls) -> schema.Table:
        hints = typing.get_type_hints(cls)
        return schema.Table(says=N_("must be a table"), fields={f.name: _field(hints[f.name]) for f in fields(cls)})

    @classmethod
    def from_table(cls, raw: Any, *, file: str | None = None, table: str = "mqtt"):
        problems = schema.Problems(file)
        values = cls.schema().read(raw, table, problems)
        if values is None:
            problems.raise_any()
        settings = cls(**{k: v for k, v in values.items() if k in raw and v is not None})
        settings._check(lambda key, reason: problems.add(schema.join(table, key) if key else table, reason))
        problems.raise_any()
        return settings

    def _check(self, bad) -> None:
        pass


@dataclass(frozen=True)
class BrokerSettings(Table):
    """How to reach the broker: shared by the cockpit's bridge and the venue."""

    host: str = "localhost"
    port: int | None = None  # 1883, or 8883 with TLS
    tls: bool = False
    ca_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    topic_prefix: str = DEFAULT_PREFIX

    @property
    def real_port(self) -> int:
        return self.port if self.port is not None else (8883 if self.tls else 1883)

    @property
    def where(self) -> str:
        return f"{self.host}:{self.real_port}"

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context (checked at start: a bad certificate is a ConfigError)."""
        if not self.tls:
            return None
        try:
            ctx = ssl.create_default_context(cafile=self.ca_file)
            if self.cert_file:
                ctx.load_cert_chain(self.cert_file, self.key_file)
        except (ssl.SSLError, OSError) as e:
            where = self.cert_file or self.ca_file
            raise ConfigError(Problem(None, None, Text(N_("{file}: cannot be used for TLS ({why})"), file=where,
                                                       why=getattr(e, "reason", None) or e))) from None
        return ctx

    def _check(self, bad) -> None:
        if not self.host.strip():
            bad("host", Text(N_("must name the broker (a host name or an address)")))
        if self.port is not None and not 1 <= self.port <= 65535:
            bad("port", Text(N_("must be a port number 1-65535, not {value}"), value=self.port))
        if not PREFIX.match(self.topic_prefix):
            bad("topic_prefix", Text(N_("{value}: letters, digits, - and _ in levels split by / "
                                        "(no + or #, no leading or trailing /)"), value=repr(self.topic_prefix)))
        if self.password is not None and self.username is None:
            bad("password", Text(N_("needs a username")))
        if self.username is not None and (not self.username.strip() or not self.username.isprintable()):
            bad("username", Text(N_("must be a user name (text on one line, not empty), or left out")))
        if (self.cert_file or self.ca_file) and not self.tls:
            bad("tls", Text(N_("must be true to use ca_file or cert_file")))
        if self.key_file and not self.cert_file:
            bad("key_file", Text(N_("needs cert_file (the client certificate)")))
        unreadable = False
        for key in ("ca_file", "cert_file", "key_file"):
            path = getattr(self, key)
            if path and os.path.exists(path) and not os.path.isfile(path):  # a FIFO would hang the start
                bad(key, Text(N_("{file}: is not a regular file"), file=path))
                unreadable = True
            elif path and not os.access(path, os.R_OK):
                bad(key, Text(N_("{file}: cannot be read") if os.path.exists(path) else N_("{file}: file not found"),
                             file=path))
                unreadable = True
            elif path and not os.path.isfile(path):  # a FIFO or a device would hang the start on reading it
                bad(key, Text(N_("{file}: not a regular file"), file=path))
                unreadable = True
        if self.tls and not unreadable:
            try:
                self.ssl_context()
            except ConfigError as e:
                bad("cert_file" if self.cert_file else "ca_file", e.problems[0].said)


@dataclass(frozen=True)
class BridgeSettings(BrokerSettings):
    """The cockpit's [mqtt] table: the broker, plus who this cockpit is."""

    enabled: bool = True
    cockpit_id: str = ""  # default: this machine's name
    name: str = ""  # default: "Cockpit <id>"
    homeassistant: bool = True
    discovery_prefix: str = DEFAULT_DISCOVERY_PREFIX

    def __post_init__(self) -> None:
        if not self.cockpit_id:
            object.__setattr__(self, "cockpit_id", default_cockpit_id())
        if not self.name:
            object.__setattr__(self, "name", f"Cockpit {self.cockpit_id}")

    def _check(self, bad) -> None:
        super()._check(bad)
        if not COCKPIT_ID.match(self.cockpit_id):
            bad("cockpit_id", Text(N_("{value}: 1 to 32 of a-z, 0-9, - and _, starting with a letter or digit"),
                                  value=repr(self.cockpit_id)))
        elif reserved(self.cockpit_id):
            bad("cockpit_id", Text(N_("{value}: the name of the broker's {value} account, not a cockpit's: "
                                      "choose another id"), value=repr(self.cockpit_id)))
        if len(self.name) > 64:
            bad("name", Text(N_("at most 64 characters")))
        elif not self.name.isprintable():  # the board, the venue and Home Assistant show it
            bad("name", Text(N_("must be text on one line, without control characters")))
        if not PREFIX.match(self.discovery_prefix):
            bad("discovery_prefix", Text(N_("{value}: topic levels without + or #"), value=repr(self.discovery_prefix)))


def default_cockpit_id() -> str:
    """This machine's name as a cockpit id ('Cockpit.local' -> 'cockpit')."""
    try:
        host = socket.gethostname().split(".")[0].lower()
    except OSError:
        host = ""
    host = re.sub(r"[^a-z0-9_-]+", "-", host).strip("-_")[:32]
    return host or "cockpit"


_TYPE_WORDS = {str: N_("a string"), int: N_("a whole number"), bool: N_("true or false"),
               tuple: N_("an array of strings")}
_TESTS = {str: lambda v: isinstance(v, str), int: schema.whole, bool: lambda v: isinstance(v, bool),
          tuple: lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v)}


def _field(hint: Any) -> schema.Field:
    """The schema field of a dataclass field's type (str | None -> str; tuple[str, ...] -> tuple)."""
    if isinstance(hint, types.UnionType):
        hint = next(a for a in hint.__args__ if a is not type(None))
    want = typing.get_origin(hint) or hint
    return schema.Check(says=N_("must be {what}, not {value}"), values={"what": Word(_TYPE_WORDS[want])},
                        test=lambda v: None if _TESTS[want](v) else N_("must be {what}, not {value}"),
                        convert=tuple if want is tuple else (lambda v: v))
