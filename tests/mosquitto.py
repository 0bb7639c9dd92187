"""A real Mosquitto (Debian's `mosquitto`) on a free port for the MQTT tests, configured with
the listener and the ACL `penguin-panel broker-config` writes, plus an MQTT client that
collects what it receives so a test can wait for an exact message.

The broker's own log (every line, `log_type all`) is kept: a test waits for the line that
says the broker refused a client or a publish, never for a quiet moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pwd
import re
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any, Callable

import aiomqtt

from panel.mqtt.broker import HA_USER, VENUE_USER, Tls, acl, listener_conf
from panel.mqtt.settings import BridgeSettings, BrokerSettings
from waiting import GUARD, describe, until, wait_until

MOSQUITTO = "/usr/sbin/mosquitto"
STRANGER = "stranger"  # a user with a password and no line in the ACL
# The broker makes every client's id its user name (`use_username_as_clientid`), so one user
# has one connection at a time. A test's observers listen beside the real venue or Home
# Assistant: each one logs in as a twin of that user, with exactly its lines of the ACL.
TWINS = 6


def twin(user: str, i: int) -> str:
    return f"{user}-twin{i}"


def with_twins(text: str) -> str:
    """The ACL with each venue and Home Assistant block copied for the user's twins."""
    blocks = text.split("\n\n")
    out = list(blocks)
    for block in blocks:
        head, _, rest = block.partition("\n")
        for user in (VENUE_USER, HA_USER):
            if head == f"user {user}":
                out += [f"user {twin(user, i)}\n{rest}" for i in range(TWINS)]
    return "\n\n".join(out) + "\n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """The broker as a context manager; `restart()` stops and starts it on the same port
    and the same persistence file, as a venue's broker restarting."""

    def __init__(self, tmp: Path, *, cockpits: list[str] = ("c1", "c2"), tls: Tls | None = None,
                 prefix: str = "penguin-panel", max_queued: int | None = None):
        self.tmp = Path(tmp)
        self.tmp.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.tls_port = free_port() if tls else None
        self.cockpits = list(cockpits)
        twins = [twin(u, i) for u in (VENUE_USER, HA_USER) for i in range(TWINS)]
        self.passwords = {u: f"pw-{u}" for u in [*self.cockpits, VENUE_USER, HA_USER, STRANGER, *twins]}
        passwd = self.tmp / "passwd"
        for i, (user, pw) in enumerate(self.passwords.items()):
            subprocess.run(["mosquitto_passwd", "-b", *(["-c"] if i == 0 else []), str(passwd), user, pw],
                           check=True, capture_output=True)
        self.twins_free = {u: [twin(u, i) for i in range(TWINS)] for u in (VENUE_USER, HA_USER)}
        self.twins_kept: dict[str, str] = {}
        (self.tmp / "acl").write_text(with_twins(acl(self.cockpits, prefix=prefix)))
        if tls is not None:
            tls = Tls(tls.certfile, tls.keyfile, tls.cafile, self.tls_port, tls.client_certificates)
        conf = listener_conf(password_file=passwd, acl_file=self.tmp / "acl", port=self.port, bind="127.0.0.1",
                             tls=tls)
        conf += "\n".join([
            "persistence true", f"persistence_location {self.tmp}/", "autosave_interval 1",
            f"user {pwd.getpwuid(os.getuid()).pw_name}",  # as root it would switch to 'mosquitto'
            "log_dest stderr", "log_type all", "connection_messages true",
            # A smaller queue for an absent client than Mosquitto's 1,000, for a test to fill.
            *([f"max_queued_messages {max_queued}"] if max_queued else []), ""])
        self.conf = self.tmp / "mosquitto.conf"
        self.conf.write_text(conf)
        self.proc: subprocess.Popen | None = None
        self.lines: list[str] = []
        self._cond = threading.Condition()
        self.starts = 0

    # ------------------------------------------------------------------ life
    def start(self) -> None:
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stderr=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, text=True)
        self.starts += 1
        threading.Thread(target=self._read, args=(self.proc,), daemon=True).start()
        mark = f"start {self.starts}"
        self.wait_for_log(r"mosquitto version \S+ running", after=mark)

    def _read(self, proc: subprocess.Popen) -> None:
        with self._cond:
            self.lines.append(f"start {self.starts}")
            self._cond.notify_all()
        for line in proc.stderr:
            with self._cond:
                self.lines.append(line.rstrip())
                self._cond.notify_all()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()  # SIGTERM: Mosquitto saves its retained messages and exits
            try:
                self.proc.wait(GUARD)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc.stderr.close()
            self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> "Mosquitto":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ the log
    def wait_for_log(self, pattern: str, *, after: str | None = None, guard: float = GUARD) -> str:
        """The first broker log line matching `pattern` (after the line `after`, if given)."""
        rx = re.compile(pattern)

        def found() -> str | None:
            start = self.lines.index(after) + 1 if after in self.lines else (0 if after is None else None)
            return next((line for line in self.lines[start:] if rx.search(line)), None) if start is not None else None

        return wait_until(found, cond=self._cond, guard=guard,
                          what=lambda: f"the broker logging /{pattern}/; its log:\n" + "\n".join(self.lines[-40:]))

    def mark(self) -> str:
        """A point in the log to wait after."""
        with self._cond:
            token = f"mark {len(self.lines)}"
            self.lines.append(token)
            return token

    # ------------------------------------------------------------------ twins
    def take_twin(self, user: str | None, persistent: str | None) -> str | None:
        """A twin of the venue or Home Assistant for an observer (the same one again for the
        same persistent session); any other user as it is."""
        if user not in self.twins_free:
            return user
        if persistent is not None and persistent in self.twins_kept:
            return self.twins_kept[persistent]
        name = self.twins_free[user].pop(0)
        if persistent is not None:
            self.twins_kept[persistent] = name
        return name

    def give_back(self, user: str | None, name: str | None, persistent: str | None) -> None:
        if user in self.twins_free and persistent is None:
            self.twins_free[user].append(name)

    # ------------------------------------------------------------------ settings for our code
    def broker(self, user: str | None, **kw: Any) -> BrokerSettings:
        return BrokerSettings(host="127.0.0.1", port=self.port, username=user,
                              password=self.passwords.get(user) if user else None, **kw)

    def bridge(self, cockpit: str, **kw: Any) -> BridgeSettings:
        return BridgeSettings(host="127.0.0.1", port=self.port, username=cockpit, password=self.passwords[cockpit],
                              cockpit_id=cockpit, **kw)


class Observer:
    """An MQTT client that keeps every message it receives, for a test to wait on."""

    def __init__(self, broker: Mosquitto, user: str | None = VENUE_USER, *, topics: list[str] = ("#",),
                 persistent: str | None = None):
        """`persistent`: a client id with a session the broker keeps while we are away
        (clean_session false), so `async with` it again gets what came meanwhile."""
        self.broker = broker
        self.user = user
        self.topics = list(topics)
        self.persistent = persistent
        self.messages: list[aiomqtt.Message] = []
        self._new = asyncio.Event()  # set at each message (the waits' own: they clear it)
        self._task: asyncio.Task | None = None
        self.client: aiomqtt.Client | None = None

    async def __aenter__(self) -> "Observer":
        self.login = self.broker.take_twin(self.user, self.persistent)
        self.client = aiomqtt.Client("127.0.0.1", self.broker.port, username=self.login,
                                     password=self.broker.passwords.get(self.login),
                                     identifier=self.persistent or f"observer-{id(self)}",
                                     clean_session=self.persistent is None)
        await self.client.__aenter__()
        for t in self.topics:
            await self.client.subscribe(t, qos=1)
        self._task = asyncio.create_task(self._collect())
        return self

    async def _collect(self) -> None:
        with contextlib.suppress(aiomqtt.MqttError):
            async for m in self.client.messages:
                self.messages.append(m)
                self._new.set()

    async def __aexit__(self, *exc) -> None:
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task
        with contextlib.suppress(aiomqtt.MqttError):
            await self.client.__aexit__(None, None, None)
        self.broker.give_back(self.user, self.login, self.persistent)

    async def wait(self, predicate: Callable[[aiomqtt.Message], bool], *, start: int = 0,
                   guard: float = GUARD) -> aiomqtt.Message:
        """The first message from index `start` on that satisfies `predicate`."""
        return await until(lambda: next((m for m in self.messages[start:] if predicate(m)), None), changed=self._new,
                           guard=guard, what=lambda: f"{describe(predicate)}; messages: {len(self.messages)}")

    def on(self, topic: str) -> list[aiomqtt.Message]:
        return [m for m in self.messages if str(m.topic) == topic]
