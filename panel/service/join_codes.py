"""The tower's join codes: the code a tower's phone joins a match with, and when a group
keeps it (the rule is the guide's, docs/cafes.md "When the code changes").

The next match's code is kept in the store: the board shows it while no match runs, so the
tower's phone is ready before START sets the match up, and a restart in the middle of a
match keeps it. A group playing again keeps its code, so its phones stay joined from one
match to the next; a new group gets a new one, and every phone holding the old code is
told to scan again. A new group is:
- the game master's new match on /admin (after a match was played with the code);
- the game master abandoning a match (the game master's way to replace it);
- a table with no match in play for IDLE_SECONDS (the last group has left);
- a restart with no match in play (nobody can tell how long the table stood).
START at the panel (or a Kaboom colour) plays with the code the board shows.
"""

from __future__ import annotations

import secrets
import time
from typing import Any, Callable

from panel.core.errors import StoreError, StoreWriteError

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a café
CODE_LENGTH = 6
SETTING = "next_code"  # the store's setting that keeps the next match's code
# 10 minutes with no match in play: a group playing again presses START well within it
# (the debrief read, the tokens reset); a café's next group sits down after it.
IDLE_SECONDS = 600.0


def make_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def code_ok(code: Any, expected: str) -> bool:
    """Whether `code` as typed (any case, spaces around) is `expected`, compared in constant
    time as bytes (a code typed with "–" or "Ñ" is simply not the code)."""
    if not isinstance(code, str):
        return False
    return secrets.compare_digest(code.strip().upper().encode("utf-8", "replace"), expected.encode())


class JoinCodes:
    """The next match's code, kept in `store`; `unsaved(error)` hears a write that failed
    (the code is kept in memory: a restart makes another one, nothing is lost).

    `version` changes with every new code: the pages that show the code ask for it again
    when it does (the state carries the version, never the code)."""

    def __init__(self, store: Any, *, unsaved: Callable[[StoreError], Any],
                 clock: Callable[[], float] = time.monotonic):
        self.store = store
        self.unsaved = unsaved
        self.clock = clock
        # Since when the next code is the last match's, still held by its group (None: a
        # code no match has used yet, or a match in play).
        self.kept_since: float | None = None
        self.version = secrets.token_hex(4)  # a restart too: a page asks again
        self.next: str = store.get_setting(SETTING) or self.renew()

    def renew(self) -> str:
        """A new next code: a new group, whose phones scan it; the last one's is void."""
        self._keep(make_code())
        self.kept_since = None
        self.version = secrets.token_hex(4)
        return self.next

    def for_match(self, *, new_group: bool) -> str:
        """The code of a match being set up: the next one, made new first when a new group
        plays (`new_group`: the game master's match) while the last group still holds it."""
        if self.kept_since is not None and new_group:
            self.renew()
        self.kept_since = None  # in play: not idle
        return self.next

    def over(self, code: str, *, abandoned: bool) -> None:
        """The match played with `code` is over: its group keeps the code for the next
        match, unless the game master abandoned it."""
        if abandoned:
            self.renew()
            return
        if code != self.next:
            self._keep(code)
        self.kept_since = self.clock()

    def restarted(self, last: str | None, *, in_play: bool) -> None:
        """At a start, the latest match's code `last`: still the next one with no match in
        play, it is renewed."""
        if not in_play and last == self.next:
            self.renew()

    def idle_in(self) -> float | None:
        """Seconds until the table counts as idle and the code is renewed (None: never)."""
        return None if self.kept_since is None else max(0.0, self.kept_since + IDLE_SECONDS - self.clock())

    def _keep(self, code: str) -> None:
        self.next = code
        try:
            self.store.set_setting(SETTING, code)
        except StoreWriteError as e:
            self.unsaved(e)
