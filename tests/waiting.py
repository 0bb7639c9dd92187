"""Waiting in the tests: for an exact signal, never for a length of time.

A test waits for something that happens: a predicate that comes true (a match's phase, a
page's state, a line a thread hands out). `until` waits on an asyncio loop: the predicate
is checked after every turn of the loop, or each time an `asyncio.Event` the code under
test sets is set. `wait_until` waits in one thread for another: checked each time a
`threading.Condition` is notified, else polled. Both return the predicate's value.

The guard only turns a hang into a failure that says what never came true (the
predicate's own line of source, or `what`); it is no measure of speed, and generous,
for a loaded 2-core machine.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import time
from typing import Any, Callable

GUARD = 60.0  # seconds: a hung wait fails the test instead of hanging it (never a measure of speed)
POLL = 0.005  # seconds between two looks when nothing signals a change


def describe(predicate: Callable[..., Any]) -> str:
    """Where a predicate is written and its source (a lambda's line), for a failure message."""
    try:
        lines, line = inspect.getsourcelines(predicate)
    except (OSError, TypeError):
        return repr(predicate)
    return f"{inspect.getsourcefile(predicate)}:{line}: " + " ".join(s.strip() for s in lines)[:300]


def _never(predicate: Callable[[], Any], what: str | Callable[[], str] | None, guard: float) -> str:
    said = what() if callable(what) else what
    return f"never came true within {guard:g} s: {said if said is not None else describe(predicate)}"


async def until(predicate: Callable[[], Any], *, changed: asyncio.Event | None = None, guard: float = GUARD,
                what: str | Callable[[], str] | None = None) -> Any:
    """Wait on the running loop until `predicate()` is true; its value. With `changed`, it is
    checked again each time that event is set (and the event cleared before each wait),
    else after every turn of the loop. AssertionError naming what never came true."""
    deadline = time.monotonic() + guard
    while True:
        value = predicate()
        if value:
            return value
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(_never(predicate, what, guard))
        if changed is None:
            await asyncio.sleep(POLL)
        else:
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), left)
            except TimeoutError:
                pass


def wait_until(predicate: Callable[[], Any], *, cond: threading.Condition | None = None, guard: float = GUARD,
               what: str | Callable[[], str] | None = None) -> Any:
    """Wait in this thread until `predicate()` is true (another thread makes it so); its
    value. With `cond`, it is checked under that condition each time it is notified, else
    polled. AssertionError naming what never came true."""
    deadline = time.monotonic() + guard
    if cond is None:
        while not (value := predicate()):
            if time.monotonic() > deadline:
                raise AssertionError(_never(predicate, what, guard))
            time.sleep(POLL)
        return value
    with cond:
        while not (value := predicate()):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(_never(predicate, what, guard))
            cond.wait(left)
        return value
