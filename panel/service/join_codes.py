"""The tower's join codes: the code a tower's phone joins a match with.

The next match's code is made ahead and kept in the store: the board shows it while no
match runs, so the tower's phone is ready before START sets the match up, and a restart
shows the same one.
"""

from __future__ import annotations

import secrets
from typing import Any, Callable

from panel.core.errors import StoreError, StoreWriteError
from panel.core.secret import same_secret

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a café
CODE_LENGTH = 6
SETTING = "next_code"  # the store's setting that keeps the next match's code


def make_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def code_ok(code: Any, expected: str) -> bool:
    """Whether `code` as typed (any case, spaces around) is `expected`, compared in constant
    time as bytes (a client's non-ASCII code is just a wrong one)."""
    return isinstance(code, str) and same_secret(code.strip().upper(), expected)


class JoinCodes:
    """The next match's code, kept in `store`; `unsaved(error)` hears a write that failed
    (the code is kept in memory: a restart makes another one, nothing is lost)."""

    def __init__(self, store: Any, *, unsaved: Callable[[StoreError], Any]):
        self.store = store
        self.unsaved = unsaved
        self.next: str = store.get_setting(SETTING) or self.renew()

    def renew(self) -> str:
        """A new next code (the last one went to the match just set up)."""
        self.next = make_code()
        try:
            self.store.set_setting(SETTING, self.next)
        except StoreWriteError as e:
            self.unsaved(e)
        return self.next
