"""Garbage collection between the owner's turns, never between a press and its light.

CPython collects its youngest objects whenever some 700 more were made than freed, in
whatever code is running then: often in a press, between its edge and its light. A young
collection costs 0.1-0.2 ms of CPU at full speed, an older one 2 ms or more (about 1 and
18 ms on a Pi Zero 2 W's share of a core). Once the cockpit serves (`hold`), automatic
collections wait for many more objects (`BACKSTOP`: only a loop busy with something else
for a long while reaches it), and the owner collects what is due after each batch of items
it takes (`collect_due`, at the loop's next turn: after the pages' sockets have written
what the batch told them). The work is the same; where it falls is not.
"""

from __future__ import annotations

import asyncio
import gc

YOUNG = 700  # CPython's own threshold for its youngest generation: a collection is due past it
BACKSTOP = 50 * YOUNG  # the automatic collector's threshold while held


def hold() -> None:
    """From now on the youngest generation is collected when `collect_due` finds it due;
    automatically only past BACKSTOP."""
    gc.set_threshold(BACKSTOP, *gc.get_threshold()[1:])


def after_batch(loop: asyncio.AbstractEventLoop) -> None:
    """The owner took a batch of items: a collection due is made at the loop's next turn."""
    if gc.get_count()[0] > YOUNG:
        loop.call_soon(collect_due)


def collect_due() -> None:
    """The collection CPython would have made by now, if one is due: the youngest
    generation, or an older one once enough younger collections have passed (CPython's
    own rule, but for its check that a whole collection is worth it: whole collections
    take only what was made since the start, which is frozen)."""
    young, middle, old = gc.get_count()
    if young <= YOUNG:
        return
    _, middle_after, old_after = gc.get_threshold()
    gc.collect(2 if old > old_after else 1 if middle > middle_after else 0)
