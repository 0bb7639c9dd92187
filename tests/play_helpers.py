"""Playing a real cockpit (panel.service.cockpit.Cockpit, sim, a real SQLite file) from a
test: set up a match, play the card in play the way the tower reads it, make a mistake.
Every helper goes through the cockpit's own entry points (create_match, action, input)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any, AsyncIterator

from panel.games.airlines.bot import BotCrew
from teams import TEAMS
from waiting import GUARD, until


async def new_match(cockpit, **over: Any) -> dict[str, Any]:
    """A match that never times out on a loaded machine and settles tokens at once."""
    body = {"teams": TEAMS, "turn_seconds": 600, "settle_ms": 0, "seed": 11, **over}
    return await cockpit.create_match(body)


def snapshot(cockpit) -> dict[str, Any]:
    return cockpit.full_snapshot()


async def play_card(cockpit) -> None:
    """Carry out the card in play correctly; returns once the engine has completed it."""
    snap = snapshot(cockpit)
    card, done, team = snap["card"], snap["completed"], snap["team"]
    assert card is not None, "no card in play"
    for ev in BotCrew(cockpit.match, accuracy=1.0).inputs_for_card(card, 0.0):
        await cockpit.input(ev.control, ev.value)
    await until(lambda: snapshot(cockpit)["completed"] > done or snapshot(cockpit)["team"] != team
                     or snapshot(cockpit)["phase"] != "in_turn")


def wrong_button(cockpit) -> str:
    """A button the card in play does not use: pressing it is a mistake."""
    snap = snapshot(cockpit)
    card = snap["card"]
    layout = cockpit.match.layout
    if card["kind"] == "simple":
        avoid = set(card.get("press", []))
        used = {s for s in layout.sections for b in avoid if b in layout.sections[s].buttons}
    else:  # a sequence card's section; an activation word's keypad (any of them)
        used = {card["section"]} if card.get("section") else {s.id for s in layout.sections.values()
                                                               if s.kind == "keypad"}
    for sid, section in sorted(layout.sections.items()):
        free = [b for b in sorted(section.buttons) if b != snap["stuck"]]  # a stuck one is no new mistake
        if sid not in used and free:
            return free[0]
    raise AssertionError("no wrong button on this panel")


async def mistake(cockpit) -> None:
    button = wrong_button(cockpit)
    await cockpit.input(button, True)
    await cockpit.input(button, False)


async def five_card_turn(cockpit) -> None:
    """Start the next turn and complete five cards."""
    await cockpit.action("start_turn", {})
    for _ in range(5):
        await play_card(cockpit)


@contextlib.asynccontextmanager
async def board_cockpit(db: Path, emu, hmap, layout, *, link_options: dict | None = None,
                        page=None, connected: bool = True, defaults: dict | None = None) -> AsyncIterator[tuple]:
    """A cockpit whose input source is the co-processor's link (LinkIO, the real SerialLink)
    to the emulated board `emu` over its pty, as the service wires a built cockpit; `page`
    subscribed. Yields (cockpit, link source, store), the link connected (unless not
    `connected`: a board left unplugged); `defaults`: the settings a match set
    up at the panel is played with."""
    from panel.link.from_map import link_for_map
    from panel.service.cockpit import Cockpit
    from panel.service.link_io import LinkIO
    from panel.storage.store import Store

    io = LinkIO(hmap, layout, link_options=link_options,
                link_factory=lambda m, **kw: link_for_map(m, finder=lambda: [emu.port] if emu.port else [], **kw))
    with Store(db) as store:
        cockpit = Cockpit(store, sources=[io], defaults=defaults)
        await cockpit.start()
        try:
            if page is not None:
                cockpit.subscribe(page)
            if connected:
                await asyncio.wait_for(io.connected.wait(), GUARD)
            yield cockpit, io, store
        finally:
            await cockpit.close()
