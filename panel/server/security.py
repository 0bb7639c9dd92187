"""Who may run a match: the game master's PIN, sessions, CSRF tokens, the Host allow-list.

The cockpit runs on a café's LAN, so the threats are a curious player with a phone, a
web page in someone's browser posting to the Pi (cross-site forgery) and DNS rebinding.
- The PIN is made with `secrets` at first start, printed once on the console and kept
  only as a salted PBKDF2 hash in the settings table.
- A login gives an HttpOnly SameSite=Strict session cookie plus a CSRF token; every
  state-changing request must carry both, and its Origin/Referer, when sent, must name
  the host the request was sent to.
- Wrong PINs are limited per device with a lock that doubles with each one, and on the
  whole cockpit by a high ceiling that never closes the ways in a guest cannot spend (the
  cockpit's own screen, a device a game master signed in with): panel/server/logins.py.
  A login refused is refused before its PIN is hashed.
- A login pairs the browser: a long-lived HttpOnly cookie with a token kept as a hash
  (void when the PIN changes), its way in when the network's logins are closed.
- Sessions (kept as hashes of their tokens) and the counts of wrong PINs are kept in the
  store's settings, beside the PIN's hash: a restart signs nobody out and forgives nothing.
- The PIN's hash is checked off the event loop, one at a time: a flood of logins never
  holds up the presses, the pages or the watchdog.
- The join code (which opens the tower's card) is given only to a game master's session
  and to a room screen the game master paired: a screen token in a long-lived HttpOnly
  cookie, kept as a hash, void when the PIN changes. Anyone may look at the room screen
  (as anyone at the table may glance at the tower's card); nobody gets the code by asking
  the network.
- The Host header must be one of this machine's names or addresses (or --allow-host):
  a rebinding page's requests carry the attacker's host name and are refused.
"""

from __future__ import annotations

import asyncio
import hashlib
import ipaddress
import json
import secrets
import socket
import time
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import urlsplit

from panel.core.errors import StoreError
from panel.core.i18n import N_, Text
from panel.core.secret import same_secret
from panel.server.logins import (LOGIN_BUDGET, LOGIN_BUDGET_WINDOW, LOGIN_LIMIT, LOGIN_WINDOW,  # noqa: F401 (the API)
                                 LoginLimits, LoginRefused)
from panel.server.peers import this_computer

PIN_DIGITS = 6
PIN_MIN, PIN_MAX = 4, 12
_ITERATIONS = 120_000  # ~0.1 s on a Pi Zero 2 W per login: cheap for people, dear for guessing
SESSION_SECONDS = 12 * 3600
SCREENS_KEPT = 16  # paired room screens remembered (the oldest is forgotten first)
DEVICES_KEPT = 16  # browsers a game master signed in with, remembered (the oldest forgotten first)
SESSIONS_KEPT = 64  # sessions at once (the oldest ends first)


class PinError(ValueError):
    """What is wrong with a PIN: its one argument a Text, said in the page's language."""

    def __init__(self, message: str, **values: object):
        super().__init__(Text(message, **values))


def make_pin(digits: int = PIN_DIGITS) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(digits))


def check_pin_format(pin: object) -> str:
    """The PIN as a string, or PinError with one line saying what is wrong."""
    if isinstance(pin, int) and not isinstance(pin, bool):
        pin = str(pin)
    if not isinstance(pin, str):
        raise PinError(N_("pin must be a string of digits"))
    if not pin.isdigit() or not pin.isascii():
        raise PinError(N_("pin must be digits only"))
    if not PIN_MIN <= len(pin) <= PIN_MAX:
        raise PinError(N_("pin must have {least} to {most} digits"), least=PIN_MIN, most=PIN_MAX)
    return pin


def hash_pin(pin: str, *, salt: bytes | None = None) -> str:
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, _ITERATIONS)
    return f"pbkdf2_sha256${_ITERATIONS}${salt.hex()}${digest.hex()}"


def verify_pin(pin: str, stored: str) -> bool:
    try:
        scheme, iterations, salt, digest = stored.split("$")
        if scheme != "pbkdf2_sha256":
            return False
        got = hashlib.pbkdf2_hmac("sha256", pin.encode(), bytes.fromhex(salt), int(iterations))
    except (ValueError, TypeError):
        return False
    return same_secret(got.hex(), digest)


def _token_hash(token: str) -> str:
    # A random 256-bit token needs no salt; a client's odd text hashes like any other.
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@dataclass
class Session:
    """A game master's session. Its tokens are known in clear only to the login that made
    it (to hand them out); what is kept, and compared, is their hashes."""
    token_hash: str
    csrf_hash: str
    expires: float
    token: str = ""
    csrf: str = ""

    @classmethod
    def new(cls, expires: float) -> "Session":
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        return cls(_token_hash(token), _token_hash(csrf), expires, token, csrf)


def split_host(host: str) -> str:
    """'Example.local:8080' -> 'example.local'; '[::1]:80' -> '::1'."""
    host = host.strip().lower()
    if host.startswith("["):
        end = host.find("]")
        return host[1:end] if end > 0 else host
    if host.count(":") == 1:
        host = host.split(":", 1)[0]
    return host.rstrip(".")


def is_loopback(name: str | None) -> bool:
    """'localhost', 127.x.x.x or ::1: this machine only, out of a phone's reach."""
    if not name:
        return False
    try:
        return name == "localhost" or ipaddress.ip_address(name.split("%")[0]).is_loopback
    except ValueError:
        return False


def machine_hosts(extra: Iterable[str] = ()) -> set[str]:
    """localhost, this machine's name (also .local for mDNS) and its addresses."""
    names = {"localhost", "127.0.0.1", "::1"}
    try:
        hostname = socket.gethostname()
    except OSError:
        hostname = ""
    if hostname:
        names |= {hostname.lower(), f"{hostname.lower()}.local"}
        try:
            names.add(socket.getfqdn().lower())
            for info in socket.getaddrinfo(hostname, None):
                names.add(info[4][0].split("%")[0])
        except OSError:
            pass
    # The address of the interface with the default route: a UDP connect sends nothing.
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))
                names.add(s.getsockname()[0].split("%")[0])
        except OSError:
            pass
    for h in extra:
        if h:
            names.add(split_host(h))
    return names


class Security:
    """The PIN, the sessions, the paired browsers and the login limits. The store keeps the
    PIN's hash, the paired tokens' hashes, the sessions and the counts of wrong PINs."""

    def __init__(self, store, *, allow_hosts: Iterable[str] = (), clock: Callable[[], float] = time.time,
                 session_seconds: float = SESSION_SECONDS):
        self._store = store
        self._clock = clock  # the wall clock: sessions and counts outlive the process
        self._session_seconds = session_seconds
        self._sessions: dict[str, Session] = self._load_sessions()  # by the token's hash
        self._limits = LoginLimits(store, clock=lambda: self._clock())
        self._hash_lock = asyncio.Lock()
        self.allowed_hosts = machine_hosts(allow_hosts)

    @property
    def _failures(self) -> dict:
        return self._limits._failures

    # ------------------------------------------------------------------ the PIN
    def ensure_pin(self) -> str | None:
        """Make a PIN when none is stored yet; return it (to print) or None."""
        if self._store.get_setting("pin_hash"):
            return None
        pin = make_pin()
        self.set_pin(pin)
        return pin

    def set_pin(self, pin: object) -> None:
        """Set the PIN now (at start and from the command line; the pages use change_pin)."""
        self._keep_hash(hash_pin(check_pin_format(pin)))

    async def change_pin(self, pin: object) -> None:
        """Set the PIN with its hash made off the event loop."""
        pin = check_pin_format(pin)
        self._keep_hash(await self._hashing(hash_pin, pin))

    def _keep_hash(self, stored: str) -> None:
        self._store.set_setting("pin_hash", stored)
        for kind in ("screen_tokens", "device_tokens"):  # and unpairs every room screen and browser
            self._store.set_setting(kind, "[]")
        self._sessions.clear()  # a new PIN logs everybody out
        self._save_sessions()
        self._limits.clear()

    # ------------------------------------------------------------------ paired browsers
    def pair_screen(self) -> str:
        """A token for a room screen that may show the join code (a game master asked)."""
        return self._pair("screen_tokens", SCREENS_KEPT)

    def screen_ok(self, token: str | None) -> bool:
        return self._paired("screen_tokens", token)

    def pair_device(self) -> str:
        """A token for a browser a game master signed in with: its way in when the network's
        logins are closed (see logins.py)."""
        return self._pair("device_tokens", DEVICES_KEPT)

    def device_ok(self, token: str | None) -> bool:
        return self._paired("device_tokens", token)

    def _pair(self, kind: str, most: int) -> str:
        token = secrets.token_urlsafe(32)
        kept = self._hashes(kind)[-(most - 1):] + [_token_hash(token)]
        self._store.set_setting(kind, json.dumps(kept))
        return token

    def _paired(self, kind: str, token: str | None) -> bool:
        if not token:
            return False
        digest = _token_hash(token)
        return any(same_secret(digest, h) for h in self._hashes(kind))

    def _hashes(self, kind: str) -> list[str]:
        try:
            kept = json.loads(self._store.get_setting(kind) or "[]")
        except ValueError:
            return []
        return [h for h in kept if isinstance(h, str)] if isinstance(kept, list) else []

    def check_pin(self, pin: object) -> bool:
        stored = self._store.get_setting("pin_hash")
        if not stored or not isinstance(pin, (str, int)) or isinstance(pin, bool):
            return False
        return verify_pin(str(pin), stored)

    async def _hashing(self, fn: Callable, *args):
        """fn(*args) in the loop's executor, one at a time (PBKDF2 takes 30-100 ms of a core:
        two at once would only slow both, and more would starve the service's other threads)."""
        async with self._hash_lock:
            return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    # ------------------------------------------------------------------ sessions
    async def login(self, pin: object, client: str, *, device: str | None = None) -> Session:
        """A session for the right PIN; LoginRefused (403 wrong, 429 over a limit) otherwise.
        `client`: the request's address; `device`: its paired-device token, if it sent one.
        A paired device and this computer are limited on their own only (logins.py)."""
        paired = self.device_ok(device)
        key = f"device {_token_hash(device or '')[:16]}" if paired else client
        spends_budget = not paired and not this_computer(client)
        self._limits.start(key, spends_budget=spends_budget)
        stored = self._store.get_setting("pin_hash")
        ok = False
        try:
            if stored and isinstance(pin, (str, int)) and not isinstance(pin, bool):
                ok = await self._hashing(verify_pin, str(pin), stored)
        finally:
            self._limits.done(key, spends_budget=spends_budget, ok=ok)
        if not ok:
            raise LoginRefused(403, N_("wrong PIN"))
        now = self._clock()
        self._expire(now)
        session = Session.new(now + self._session_seconds)
        self._sessions[session.token_hash] = session
        self._save_sessions()
        return session

    def session(self, token: str | None) -> Session | None:
        if not token:
            return None
        s = self._sessions.get(_token_hash(token))
        if s is None:
            return None
        if s.expires < self._clock():
            self._sessions.pop(s.token_hash, None)
            return None
        return s

    def end_session(self, token: str | None) -> None:
        if self._sessions.pop(_token_hash(token or ""), None) is not None:
            self._save_sessions()

    def _expire(self, now: float) -> None:
        for digest in [d for d, s in self._sessions.items() if s.expires < now]:
            del self._sessions[digest]
        while len(self._sessions) >= SESSIONS_KEPT:
            del self._sessions[min(self._sessions, key=lambda d: self._sessions[d].expires)]

    def _load_sessions(self) -> dict[str, Session]:
        try:
            kept = json.loads(self._store.get_setting("sessions") or "[]")
            return {t: Session(t, c, float(e)) for t, c, e in kept if isinstance(t, str) and isinstance(c, str)}
        except (ValueError, TypeError):
            return {}  # unreadable: everybody signs in again

    def _save_sessions(self) -> None:
        kept = [[s.token_hash, s.csrf_hash, s.expires] for s in self._sessions.values()]
        try:
            self._store.set_setting("sessions", json.dumps(kept))
        except StoreError:  # a full disk: the sessions hold until a restart
            pass

    # ------------------------------------------------------------------ requests
    def host_allowed(self, host: str | None) -> bool:
        if not host:
            return False
        name = split_host(host)
        if name in self.allowed_hosts:
            return True
        try:  # any loopback address is this machine
            return ipaddress.ip_address(name).is_loopback
        except ValueError:
            return False

    @staticmethod
    def same_origin(origin: str | None, referer: str | None, host: str | None) -> bool:
        """True when Origin (or, without it, Referer) names the Host the request went to."""
        source = origin if origin is not None else referer
        if source is None:
            return True  # non-browser clients send neither; cookie + CSRF token still apply
        if source == "null" or not host:
            return False
        try:
            netloc = urlsplit(source).netloc
        except ValueError:
            return False
        return netloc.lower() == host.strip().lower()

    def check_csrf(self, session: Session, token: str | None) -> bool:
        return bool(token) and same_secret(_token_hash(token), session.csrf_hash)
