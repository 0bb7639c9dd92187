"""The event loop a server process runs on: uvloop's where it is installed, asyncio's own
otherwise.

Every press crosses the loop: gpiozero's thread hands the edge over (a wake-up through the
loop's self-pipe), the owner takes it, the pages' messages are queued with a callback each.
asyncio's own loop does that bookkeeping in Python, uvloop (libuv underneath, the loop
aiohttp and most asyncio servers deploy on) in C: benchmarks/latency.py measures what it takes
off each press's CPU (docs/performance.md), which a Pi Zero 2 W's core feels. It is the
same asyncio API, so nothing above this module knows which loop runs; where uvloop has no
build (it has none for Windows) the cockpit runs as well on asyncio's loop, only dearer.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Coroutine, TypeVar

log = logging.getLogger("penguin-panel")

T = TypeVar("T")


def new_event_loop() -> asyncio.AbstractEventLoop:
    """A new loop of the kind `run` runs on."""
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)` on the loop of `new_event_loop` (a loop of its own, closed after)."""
    with asyncio.Runner(loop_factory=new_event_loop) as runner:
        loop = runner.get_loop()
        if kind(loop) == "asyncio":
            log.info("uvloop is not installed: the event loop is asyncio's own (each press costs more CPU)")
        return runner.run(main)


def kind(loop: asyncio.AbstractEventLoop) -> str:
    """Which loop `loop` is, in a word: "uvloop" or "asyncio"."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"
