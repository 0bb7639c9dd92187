"""The cockpit's input sources (the browser's simulator, the Pi's pins, the co-processor's
link): started with the owner's queue, told where the tokens stand, asked whether they
hear the panel, closed.

A source is any object with `start(queue)` and `close()`; it may also offer
`positions()` (where its tokens really stand), `status()` (its link, for /admin) and
`connected` (an asyncio.Event: whether it hears the panel now).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Any, Callable, Iterable

from panel.core.events import Action, InputEvent
from panel.core.i18n import N_

log = logging.getLogger("penguin-panel")

# gpiozero's callbacks and the co-processor's reader (and the store's writer, the drawing) run on threads of their own; the first two hand
# each edge to the owner's loop: a thread that wakes with an edge waits for the interpreter
# until the thread holding it lets go, at most this long (CPython's default is 5 ms, which
# on a Pi Zero 2 W's core is most of the 10 ms a press may take to light). The loop's work
# comes in short slices, so the hand-over costs a few microseconds more per slice, never more.
HAND_OVER = 0.001


async def start_all(sources: Iterable[Any], queue: Any, *, known: Callable[[], dict[str, str]],
                    clock: Callable[[], float]) -> None:
    """Each source started on `queue`. Where the tokens really stand (they may have moved
    while the cockpit was down): every difference from `known()` goes in as an input,
    logged like any other."""
    sys.setswitchinterval(min(sys.getswitchinterval(), HAND_OVER))
    for source in sources:
        await source.start(queue)
        positions = getattr(source, "positions", None)
        if positions is not None:
            was = known()
            for tid, pos in positions().items():
                if was.get(tid) != pos:
                    queue.put_nowait(InputEvent(tid, pos, clock()))


def close_all(sources: Iterable[Any]) -> None:
    for source in sources:
        try:
            source.close()
        except Exception:  # one source failing to close must not keep the others open
            log.exception("closing an input source failed")


def links(sources: Iterable[Any]) -> list[Any]:
    """The sources that can lose their panel (a co-processor's link: its `connected` event);
    none on a build wired to the Pi's pins alone, where no press asks `link_pause`."""
    return [s for s in sources if isinstance(getattr(s, "connected", None), asyncio.Event)]


def link_pause(links: Iterable[Any], match: Any, t: float) -> Action | None:
    """The pause a turn started (or resumed by the game master) at `t` while a co-processor
    is not heard needs (`links`: the sources `links()` found): it waits for the panel, as a
    turn does when the link is lost during it (the link's source resumes it once the board
    is back and in sync). None when the panel is heard or the engine would not pause now."""
    for link in links:  # (asked after every input on a build with a link: no generator made for it)
        if not link.connected.is_set():
            break
    else:
        return None
    pause = Action("pause", t, {"reason": "link"})
    return pause if match.refusal(pause) is None else None


def link_status(sources: Iterable[Any], *, sim: bool) -> dict[str, Any]:
    """The co-processor's link as /admin shows it (the browser simulator's in --sim)."""
    for source in sources:
        status = getattr(source, "status", None)
        if status is not None:
            return dict(status())
    if sim:
        return {"connected": True, "frames_received": 0, "frames_rejected": 0, "reconnects": 0,
                "firmware": N_("browser simulator")}  # /admin shows it in the page's language
    return {"connected": False, "frames_received": 0, "frames_rejected": 0, "reconnects": 0, "firmware": None}
