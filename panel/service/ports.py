"""What the cockpit's core needs of its store, declared here so that the core never imports
the database adapter: the records it reads and writes, and the `MatchLog` it writes to.

panel/storage/store.py's `Store` is the one implementation (SQLite, a writer thread, group
commit); the errors it raises are the core's (panel.core.errors: StoreError and its kinds).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

ENTRY_KINDS = ("input", "action", "advance")


@dataclass(frozen=True)
class MatchRecord:
    id: int
    created: str
    settings: dict[str, Any]
    positions: dict[str, str]
    status: str
    code: str
    pruned: str | None = None  # when the retention setting removed its log (its summary stays)
    problem: str | None = None  # why its settings or positions cannot be read (then both are {})


@dataclass(frozen=True, slots=True)  # (slots: every press queues one)
class Entry:
    """One line of a match's log: `t` in match seconds (0 = when the match was set up)."""

    seq: int
    t: float
    kind: str  # input | action | advance
    data: dict[str, Any]


@dataclass(frozen=True)
class Summary:
    """A match's debrief as served (JSON text), made from its log up to entry `seq`."""

    match_id: int
    seq: int
    status: str
    json: str


class MatchLog(Protocol):
    """The cockpit's store as the core uses it. Writes are queued and durable once
    `flushed()` returns (StoreUnavailable while the card cannot be written; a write made
    then raises StoreWriteError, nothing of it kept); reads see the queued writes."""

    failure: str | None  # why the store cannot commit now, or None
    listener: Callable[[], None] | None  # told (on the store's thread) when `failure` changes

    # settings
    def get_setting(self, key: str, default: str | None = None) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...

    # matches
    def create_match(self, settings: dict[str, Any], positions: dict[str, str], code: str, *,
                     wake: bool = True) -> MatchRecord: ...
    def set_status(self, match_id: int, status: str) -> None: ...
    def set_aside(self, match_id: int, reason: str) -> None: ...
    def set_aside_reason(self, match_id: int) -> str | None: ...
    def match(self, match_id: int) -> MatchRecord | None: ...
    def latest_match(self) -> MatchRecord | None: ...
    def matches_page(self, *, before: int | None = None, limit: int = 50) -> list[MatchRecord]: ...
    def matches_after(self, after: int = 0, *, limit: int = 200, with_log: bool = False) -> list[MatchRecord]: ...
    def iter_matches(self, page: int = 200) -> Iterator[MatchRecord]: ...

    # the log and the summaries
    def append(self, match_id: int, t: float, kind: str, data: dict[str, Any], *, wake: bool = True,
               decided: bool = False) -> int: ...
    def wake_writer(self) -> None: ...  # the writer told of what append(wake=False) queued
    def last_seq(self, match_id: int) -> int: ...
    def entries(self, match_id: int) -> list[Entry]: ...
    def summary(self, match_id: int) -> Summary | None: ...
    def put_summary(self, summary: Summary) -> None: ...
    def remove_log(self, match_id: int, summary: Summary) -> None: ...

    # durability and reads off the loop
    async def flushed(self) -> None: ...
    async def writable(self) -> None: ...
    def sync(self) -> None: ...
    async def run(self, fn: Callable[..., Any], *args: Any) -> Any: ...
