"""Who may run a match: the game master's PIN, sessions, CSRF tokens, the Host allow-list.

The cockpit runs on a café's LAN, so the threats are a curious player with a phone, a
web page in someone's browser posting to the Pi (cross-site forgery) and DNS rebinding.
- The PIN is made with `secrets` at first start, printed once on the console and kept
  only as a salted PBKDF2 hash in the settings table.
- A login gives an HttpOnly SameSite=Strict session cookie plus a CSRF token; every
  state-changing request must carry both, and its Origin/Referer, when sent, must name
  the host the request was sent to.
- Wrong PINs are rate-limited per client (after 5 in a minute, 429) and on the whole
  cockpit (after 30 in ten minutes from all addresses together, 429 for everyone until
  the oldest is ten minutes old): rotating addresses buys an attacker nothing. A login
  refused by either limit is refused before its PIN is hashed.
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

import hashlib
import asyncio
import hmac
import ipaddress
import json
import secrets
import socket
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterable
from urllib.parse import urlsplit

from panel.core.i18n import N_, Text

PIN_DIGITS = 6
PIN_MIN, PIN_MAX = 4, 12
_ITERATIONS = 120_000  # ~0.1 s on a Pi Zero 2 W per login: cheap for people, dear for guessing
LOGIN_LIMIT = 5  # wrong PINs per client address ...
LOGIN_WINDOW = 60.0  # ... in this many seconds
LOGIN_BUDGET = 30  # wrong PINs from all addresses together ...
LOGIN_BUDGET_WINDOW = 600.0  # ... in this many seconds: 3 guesses a minute at most
SESSION_SECONDS = 12 * 3600
SCREENS_KEPT = 16  # paired room screens remembered (the oldest is forgotten first)


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
    return hmac.compare_digest(got.hex(), digest)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()  # a random 256-bit token needs no salt


@dataclass
class Session:
    token: str
    csrf: str
    expires: float


class LoginRefused(Exception):
    """A login refused: `status` the HTTP status, its one argument a Text (the page's language)."""

    def __init__(self, status: int, message: str, **values: object):
        super().__init__(Text(message, **values))
        self.status = status


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
    """The PIN, the sessions and the rate limit. The store keeps the PIN's hash."""

    def __init__(self, store, *, allow_hosts: Iterable[str] = (), clock: Callable[[], float] = time.monotonic,
                 session_seconds: float = SESSION_SECONDS):
        self._store = store
        self._clock = clock
        self._session_seconds = session_seconds
        self._sessions: dict[str, Session] = {}
        self._failures: dict[str, deque[float]] = {}  # per client address
        self._all_failures: deque[float] = deque()  # from every address
        self._checking: dict[str, int] = {}  # logins being hashed now, per client address
        self._hash_lock = asyncio.Lock()
        self.allowed_hosts = machine_hosts(allow_hosts)

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
        self._store.set_setting("screen_tokens", "[]")  # and unpairs every room screen
        self._sessions.clear()  # a new PIN logs everybody out

    # ------------------------------------------------------------------ room screens
    def pair_screen(self) -> str:
        """A token for a room screen that may show the join code (a game master asked)."""
        token = secrets.token_urlsafe(32)
        kept = self._screen_hashes()[-(SCREENS_KEPT - 1):] + [_token_hash(token)]
        self._store.set_setting("screen_tokens", json.dumps(kept))
        return token

    def screen_ok(self, token: str | None) -> bool:
        if not token:
            return False
        digest = _token_hash(token)
        return any(hmac.compare_digest(digest, h) for h in self._screen_hashes())

    def _screen_hashes(self) -> list[str]:
        try:
            kept = json.loads(self._store.get_setting("screen_tokens") or "[]")
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
    async def login(self, pin: object, client: str) -> Session:
        """A session for the right PIN; LoginRefused (403 wrong, 429 over a limit) otherwise.
        The limits count the logins being checked as well as the failures, so a burst of
        simultaneous guesses is cut at the limit, not after every guess was hashed."""
        now = self._clock()
        self._forget_failures(now)
        fails = self._failures.get(client, ())
        if len(fails) + self._checking.get(client, 0) >= LOGIN_LIMIT:
            raise LoginRefused(429, N_("too many wrong PINs: wait a minute and try again"))
        if len(self._all_failures) + sum(self._checking.values()) >= LOGIN_BUDGET:
            wait = max(1, round((self._all_failures[0] + LOGIN_BUDGET_WINDOW - now) / 60)) if self._all_failures else 1
            raise LoginRefused(429, N_("too many wrong PINs on this cockpit: logins are closed for {minutes} min "
                                       "(game masters signed in stay signed in)"), minutes=wait)
        stored = self._store.get_setting("pin_hash")
        ok = False
        self._checking[client] = self._checking.get(client, 0) + 1
        try:
            if stored and isinstance(pin, (str, int)) and not isinstance(pin, bool):
                ok = await self._hashing(verify_pin, str(pin), stored)
        finally:
            self._checking[client] -= 1
            if not self._checking[client]:
                del self._checking[client]
        now = self._clock()
        if not ok:
            self._failures.setdefault(client, deque()).append(now)
            self._all_failures.append(now)
            raise LoginRefused(403, N_("wrong PIN"))
        self._failures.pop(client, None)
        self._expire(now)
        session = Session(secrets.token_urlsafe(32), secrets.token_urlsafe(32), now + self._session_seconds)
        self._sessions[session.token] = session
        return session

    def _forget_failures(self, now: float) -> None:
        while self._all_failures and now - self._all_failures[0] > LOGIN_BUDGET_WINDOW:
            self._all_failures.popleft()
        for client in list(self._failures):  # at most LOGIN_BUDGET addresses have failures
            q = self._failures[client]
            while q and now - q[0] > LOGIN_WINDOW:
                q.popleft()
            if not q:
                del self._failures[client]

    def session(self, token: str | None) -> Session | None:
        if not token:
            return None
        s = self._sessions.get(token)
        if s is None:
            return None
        if s.expires < self._clock():
            self._sessions.pop(token, None)
            return None
        return s

    def end_session(self, token: str | None) -> None:
        self._sessions.pop(token or "", None)

    def _expire(self, now: float) -> None:
        for token in [t for t, s in self._sessions.items() if s.expires < now]:
            del self._sessions[token]

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
        return bool(token) and hmac.compare_digest(session.csrf, token)
