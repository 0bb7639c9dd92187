"""How many wrong PINs a device may try, and when: the game master can always sign in.

A limit per address that resets every minute let a phone guessing 5 times a minute spend
the cockpit-wide budget forever, and that budget closed the logins for everyone, the game
master too. So, as fail2ban and OpenSSH's PerSourcePenalties do:

- each device (its address, or its paired-device token) has a few free tries
  (LOGIN_LIMIT); after them each wrong PIN locks it out for twice as long as the one
  before (LOGIN_WINDOW, then 2, 4, 8 ... minutes, at most LOCK_MAX), and its count is
  forgotten only after a long quiet time (FORGET_FACTOR locks): one device, at any pace,
  spends a handful of guesses an hour;
- the cockpit-wide budget (LOGIN_BUDGET in LOGIN_BUDGET_WINDOW) is a high ceiling against
  many addresses, and it never closes the ways in that a guest cannot spend: the cockpit's
  own screen (a browser on this computer) and a device the game master already signed in
  with (its paired-device token). Each of them still has its own per-device lock;
- logins being checked count as failures until they are known, so a burst of guesses at
  once is cut at the limit, not after every guess was hashed;
- the counts are kept in the store's settings (with the PIN's hash they guard), so a
  restart does not wipe them.
"""

from __future__ import annotations

import json
import logging
import math
from collections import deque
from typing import Any, Callable

from panel.core.errors import StoreError
from panel.core.i18n import N_, Text

log = logging.getLogger("penguin-panel")

LOGIN_LIMIT = 5  # wrong PINs a device may try before the first lock
LOGIN_WINDOW = 60.0  # the first lock (seconds); each further wrong PIN doubles it
LOCK_MAX = 3600.0  # the longest lock: a forgotten PIN costs the game master an hour at most
FORGET_FACTOR = 4  # a device's count is forgotten after this many locks (or LOGIN_WINDOW) of quiet
LOGIN_BUDGET = 60  # wrong PINs from new devices on the network together ...
LOGIN_BUDGET_WINDOW = 600.0  # ... in this many seconds: 6 guesses a minute at most, however many addresses
KEPT = 256  # devices whose count is kept (the oldest quiet ones are forgotten first)
SETTING = "login_failures"


class LoginRefused(Exception):
    """A login refused: `status` the HTTP status, its one argument a Text (the page's language)."""

    def __init__(self, status: int, message: str, **values: object):
        super().__init__(Text(message, **values))
        self.status = status


def lock_seconds(failures: int) -> float:
    """How long a device with `failures` wrong PINs in a row is locked out after its last."""
    if failures < LOGIN_LIMIT:
        return 0.0
    return min(LOCK_MAX, LOGIN_WINDOW * 2 ** min(failures - LOGIN_LIMIT, 32))


class LoginLimits:
    """The wrong PINs per device and from new network devices together, kept in `store`'s
    settings. `key` is who tries: an address or a paired device; `spends_budget` whether
    that way in counts against the cockpit-wide ceiling."""

    def __init__(self, store: Any, *, clock: Callable[[], float]):
        self._store, self._clock = store, clock
        self._failures: dict[str, tuple[int, float]] = {}  # key -> (wrong PINs in a row, when the last)
        self._all_failures: deque[float] = deque()  # from new network devices
        self._checking: dict[str, int] = {}  # logins being checked now, per key
        self._checking_budget = 0  # of which spend the budget
        self._load()

    def start(self, key: str, *, spends_budget: bool) -> None:
        """A login from `key` may be checked now (call `done` after), or LoginRefused (429)."""
        now = self._clock()
        self._forget(now)
        failures, last = self._failures.get(key, (0, now))
        pending = self._checking.get(key, 0)
        wait = min(last + lock_seconds(failures) - now, LOCK_MAX)  # bounded: a clock set back
        if failures + pending >= LOGIN_LIMIT and (pending or wait > 0):
            raise LoginRefused(429, N_("too many wrong PINs from this device: wait {minutes} min and try again"),
                               minutes=max(1, math.ceil(max(wait, LOGIN_WINDOW) / 60)))
        if spends_budget and len(self._all_failures) + self._checking_budget >= LOGIN_BUDGET:
            oldest = self._all_failures[0] if self._all_failures else now
            minutes = max(1, math.ceil((oldest + LOGIN_BUDGET_WINDOW - now) / 60))
            raise LoginRefused(429, N_("too many wrong PINs on this cockpit: logins from new devices are closed for "
                                       "{minutes} min (the cockpit's own screen, the devices a game master signed in "
                                       "with and the game masters signed in still get in)"), minutes=minutes)
        self._checking[key] = pending + 1
        self._checking_budget += spends_budget

    def done(self, key: str, *, spends_budget: bool, ok: bool) -> None:
        """The login started from `key` was checked: the right PIN (`ok`) or not."""
        self._checking[key] -= 1
        if not self._checking[key]:
            del self._checking[key]
        self._checking_budget -= spends_budget
        now = self._clock()
        if ok:
            self._failures.pop(key, None)
        else:
            self._failures[key] = (self._failures.get(key, (0, now))[0] + 1, now)
            if spends_budget:
                self._all_failures.append(now)
        self._save()

    def _forget(self, now: float) -> None:
        while self._all_failures and now - self._all_failures[0] > LOGIN_BUDGET_WINDOW:
            self._all_failures.popleft()
        for key, (failures, last) in list(self._failures.items()):
            if now - last > max(LOGIN_WINDOW, FORGET_FACTOR * lock_seconds(failures)):
                del self._failures[key]

    def clear(self) -> None:
        """A new PIN: every count starts again."""
        self._failures.clear()
        self._all_failures.clear()
        self._save()

    # ------------------------------------------------------------------ kept in the store
    def _load(self) -> None:
        try:
            kept = json.loads(self._store.get_setting(SETTING) or "{}")
            devices = {str(k): (int(n), float(t)) for k, (n, t) in kept.get("devices", {}).items()}
            budget = deque(sorted(float(t) for t in kept.get("budget", [])))
        except (ValueError, TypeError, AttributeError):
            log.warning("the kept count of wrong PINs is unreadable: it starts again from none")
            return
        self._failures, self._all_failures = devices, budget

    def _save(self) -> None:
        self._forget(self._clock())
        if len(self._failures) > KEPT:  # an attacker's many addresses: the quietest go first
            for key, _ in sorted(self._failures.items(), key=lambda kv: kv[1][1])[:len(self._failures) - KEPT]:
                del self._failures[key]
        kept = {"devices": {k: [n, t] for k, (n, t) in self._failures.items()}, "budget": list(self._all_failures)}
        try:
            self._store.set_setting(SETTING, json.dumps(kept))
        except StoreError as e:  # a full disk: the counts hold in memory until the next restart
            log.warning("the count of wrong PINs could not be saved (%s): it holds until a restart", e)
