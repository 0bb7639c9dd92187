"""Café play through the real cockpit, for the benchmarks: walk-up matches back to back.

A crew presses START (a match is set up with the defaults: two teams, 12 points to win),
plays the cards the tower reads out with `panel.games.airlines.bot.BotCrew` (human gaps, slips now and
then, sliders and tokens moved as the cards say), hands over for the next turn with START,
and the next crew walks up a minute after a match ends. Every input goes onto the cockpit's
queue stamped with the cockpit's clock, as the panel's hardware sources put them: nothing
waits for the store, as nothing waits on a real panel.

`play(cockpit, seconds)` plays in real time (what a café's Pi sees: the writes per hour);
`play_fast(cockpit, matches)` plays the same kind of matches with the cockpit's clock moved
by the driver, as fast as the cockpit takes them (building months of history).
"""

from __future__ import annotations

import asyncio
import random
from typing import Any, Callable

from panel.games.airlines.bot import BotCrew
from panel.games.airlines.engine import Phase
from panel.core.events import InputEvent

START = "cockpit.start"
HANDOVER = 5.0  # seconds between turns: the next crew takes the panel
NEXT_CREW = 60.0  # seconds between matches
PACE = 2.0  # mean seconds between two instructions: read, find, press


class VirtualClock:
    """The cockpit's clock, moved by the driver: months of play in minutes."""

    def __init__(self, t: float = 1000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


def _plan(cockpit, crew: BotCrew | None, now: float) -> list[tuple[float, str, Any]]:
    """What the crew does next, as (moment, control, value) from `now`."""
    match = cockpit.match
    if cockpit.record is None or cockpit.record.status != "active" or match is None or match.finished:
        return [(now + NEXT_CREW, START, True), (now + NEXT_CREW + 0.15, START, False)]
    phase = match.phase
    if phase is Phase.BETWEEN_TURNS:
        return [(now + HANDOVER, START, True), (now + HANDOVER + 0.15, START, False)]
    if phase is Phase.IN_TURN:
        card = match.snapshot(cockpit.now())["card"]
        if card is not None:
            return [(now + (e.t - 0.0), e.control, e.value) for e in crew.inputs_for_card(card, 0.0)]
    return [(now + 1.0, START, True), (now + 1.15, START, False)]  # paused or odd: START (resumes nothing)


async def _settled(cockpit) -> None:
    """Until the cockpit has taken everything queued so far (a barrier through its own
    queue; not a promise to anyone, so it does not make the store commit)."""
    await cockpit.call(lambda: None, durable=False)


def _crew(cockpit, crew: BotCrew | None, rng: random.Random) -> BotCrew | None:
    if cockpit.match is None or (crew is not None and crew.match is cockpit.match):
        return crew
    return BotCrew(cockpit.match, seed=rng.randrange(1 << 30), accuracy=0.9, pace=PACE)


async def play(cockpit, seconds: float, *, seed: int = 1, on_input: Callable[[], None] | None = None) -> int:
    """Café play in real time for `seconds`; returns the number of inputs made."""
    rng = random.Random(seed)
    crew = None
    made = 0
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while loop.time() < end:
        crew = _crew(cockpit, crew, rng)
        base = loop.time()
        for at, control, value in _plan(cockpit, crew, 0.0):
            await asyncio.sleep(max(0.0, base + at - loop.time()))
            if loop.time() >= end:
                break
            turn = cockpit.match.phase if cockpit.match is not None else None
            cockpit.queue.put_nowait(InputEvent(control, value, cockpit.clock()))
            made += 1
            if on_input:
                on_input()
            await asyncio.sleep(0)
            if cockpit.match is not None and turn is Phase.IN_TURN and cockpit.match.phase is not Phase.IN_TURN:
                break  # the turn ended (time, five cards, two mistakes): plan again
        await _settled(cockpit)
    return made


async def play_fast(cockpit, clock: VirtualClock, matches: int, *, seed: int = 1) -> int:
    """`matches` whole café matches as fast as the cockpit takes them, its clock moved by
    the driver; returns the number of inputs made."""
    rng = random.Random(seed)
    made = 0
    done = 0
    crew = None
    last_id = cockpit.record.id if cockpit.record is not None else None
    while True:
        if cockpit.record is not None and cockpit.record.id != last_id:
            last_id = cockpit.record.id
            done += 1
            if done > matches:
                break
        crew = _crew(cockpit, crew, rng)
        base = clock.t
        for at, control, value in _plan(cockpit, crew, 0.0):
            due = cockpit.match.next_deadline() if cockpit.active else None
            if due is not None and clock.t + (due - cockpit.now()) < base + at:
                # The turn's time runs out before this input: the cockpit's timer runs then,
                # as its own wait would have woken it (the production path for deadlines).
                clock.t += max(0.0, due - cockpit.now())
                await cockpit.call(cockpit._on_timer, durable=False)
            clock.t = max(clock.t, base + at)
            turn = cockpit.match.phase if cockpit.match is not None else None
            cockpit.queue.put_nowait(InputEvent(control, value, clock.t))
            made += 1
            await _settled(cockpit)
            if cockpit.match is not None and turn is Phase.IN_TURN and cockpit.match.phase is not Phase.IN_TURN:
                break
    return made
