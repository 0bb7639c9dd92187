"""The cockpit: the owner of the match, on the event loop's thread.

Every input (GPIO, co-processor, browser) and every game master's request arrives on one
queue; the owner takes them in order, each as it comes (on the turn of the loop that
brings it), takes each into the match's log *before* the engine sees it (the log is the
truth: nothing is judged while the store cannot write), calls the engine with match time,
and tells the effects (the light first: the answer to the press), then hands the log's new
entries to the store (saving.py), then tells the web sockets the game events and the new
snapshot. Between
inputs one timer wakes it at the engine's next deadline (a timer running out, a token's
settle time), the next LED frame and, while a turn runs, four times a second so the timer
drains smoothly on the pages. Nothing else touches the match.

Match time: seconds since the match was set up, on this process's monotonic clock shifted
by an offset. After a restart the offset is chosen so match time continues from the
last logged entry, and a turn that was running comes back paused (reason "restart"),
with a pause entry logged so that a replay of the log agrees with the service.

The owner's parts, each its own module: restore.py (the match back after a restart),
walk_up.py (a press with no match in play), presentation.py (the state in the pages'
language, the tower's card), fan_out.py (the effects and the pages told), join_codes.py
(the tower's codes), saving.py (a store that cannot write). They read the match through
the cockpit and run on its turn; this module keeps the queue, the timers and the press
path (log first, then judge; lights first, then pages).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from operator import attrgetter
from typing import Any, Callable, Iterable

from panel.core.clock import SLACK
from panel.core.errors import Problem, Refused, StoreUnavailable, StoreWriteError
from panel.core.events import Action, GameEvent, InputEvent
from panel.core.i18n import SOURCE, Text
from panel.core.layout import Layout
from panel.core.statuses import STATUS_WHEN_OVER
from panel.games.base import Build, Engine, lights_source
from panel.games.registry import DEFAULT, game_of, own_settings
from panel.service import collections_off_press, game_master, inputs, restore as restoring, walk_up
from panel.service.fan_out import FanOut
from panel.service.join_codes import IDLE_SECONDS, JoinCodes, code_ok
from panel.core.layout_file import whole_panel
from panel.service.ports import MatchLog as Store, MatchRecord
from panel.service.presentation import SERVICE_FIELDS, Presentation, public_event  # noqa: F401 (their old home)
from panel.games.feed import entry_of
from panel.service.saving import RETRY_FIRST, RETRY_MOST, Saving  # noqa: F401 (their old home)

log = logging.getLogger("penguin-panel")

TICK = 0.25  # seconds between state pushes while a turn runs
TIME_PASSED = object()  # the owner's queue item for its timer's wake-up
# Seconds after a match is over until its game makes the next one ready (Game.prepare): at
# the loop's next turn, once the end is lit and told; a group presses START seconds later.
PREPARE_AFTER = 0.0


_NOTHING = object()  # (no item: Inbox._take takes only what is queued)


class Inbox(asyncio.Queue):
    """The owner's queue, used on the loop's thread only. Once the owner takes from it
    (`take_with`), an item put is taken at once, on the putter's own turn of the loop: a
    press goes from the pin's hand-over to the engine and its light with no second hop
    through the loop (a task's wake-up is about a tenth of a millisecond of a Pi Zero 2 W's
    core per press). An item put while one is being taken (by what that one does) waits
    its turn: every item is taken in the order it was put, one at a time."""

    _taker: Callable[[Any], None] | None = None
    _taking = False

    def take_with(self, taker: Callable[[Any], None] | None, *, then: Callable[[], None] = lambda: None) -> None:
        """From now on every item goes to `taker` as it comes (None: they wait), and
        `then()` runs after each batch; what is already queued is taken now."""
        self._taker, self._then = taker, then
        if taker is not None:
            self._take()

    def put_nowait(self, item: Any) -> None:
        if self._taker is not None and not self._taking and not self._queue:  # (empty(), without its call)
            self._take(item)  # (nearly always: a press with nothing before it, taken without the queue)
            return
        super().put_nowait(item)
        if self._taker is not None and not self._taking:
            self._take()

    def _take(self, first: Any = _NOTHING) -> None:
        self._taking = True
        try:
            if first is not _NOTHING:
                self._taker(first)
            while self._taker is not None and not self.empty():
                self._taker(self.get_nowait())
        finally:
            self._taking = False
        if self._taker is not None:
            self._then()


class Cockpit:
    """Owns the match. Use as an async context manager, or `await start()` / `await close()`."""

    def __init__(self, store: Store, *, layout_path: str | None = None, sim: bool = False,
                 sources: Iterable[Any] = (), effects: Iterable[Any] = (), defaults: dict[str, Any] | None = None,
                 touch_sensors: bool = False, language: str = SOURCE, clock: Callable[[], float] = time.monotonic,
                 tick: float = TICK, game_defaults: dict[str, dict[str, Any]] | None = None,
                 walk_up: dict[str, bool] | None = None, warnings: Iterable[str] = (),
                 unsaved: Text | None = None):
        self.store = store
        # Why nothing this cockpit plays is saved (a full disk at start: it plays on a copy in
        # memory), for the board and /admin; None when its store is the real one.
        self.unsaved = unsaved
        self.layout_path = layout_path
        self.sim = sim
        self.sources = list(sources)
        self._links = inputs.links(self.sources)  # the ones a turn may wait for (link_pause)
        self.effects = list(effects)
        # The defaults of new matches (the settings file's table of the default game and what
        # the game master saves on /admin) and each other game's from its own table: what a
        # match set up at the panel is played with.
        self.defaults = dict(defaults or {})
        self.build = Build(layout_path=layout_path, touch_sensors=touch_sensors,
                           defaults={DEFAULT: self.defaults, **(game_defaults or {})}, walk_up=dict(walk_up or {}))
        self.touch_sensors = touch_sensors
        self.language = language  # of every page, chosen on /admin (panel.core.i18n)
        self.clock = clock
        self.tick = tick
        self.queue: Inbox = Inbox()
        self.record: MatchRecord | None = None
        self.match: Engine | None = None
        # The match's lights at a match time (its show's view: `lights_snapshot`), once a match is on.
        self.lights_at: Callable[[float], dict[str, Any]] | None = None
        self._game_of: tuple[Any, Any] = (_NOTHING, None)  # (a match's settings, its game): `game`
        self._offset = 0.0  # monotonic clock minus match time
        self._t = 0.0  # the latest match time given to the engine
        # The panel's token positions now, whether or not a match runs: a new match starts
        # from them. Seeded from the layout's start positions (a built panel's sources
        # report the real ones when they start).
        self.positions: dict[str, str] = dict(self.any_layout().start_positions())
        self.warnings: list[str | Text | Problem] = list(warnings)  # for the game master: what the start found wrong
        self.presentation = Presentation(self)
        self.fan_out = FanOut(self, self.presentation)
        self._publish = self.fan_out.publish  # the hot path: no call of its own in between
        self.saving = Saving(store, publish=lambda: self._publish([]))
        # Why the last START with no match in play set nothing up (the board says it), or None.
        self.walk_up_problem: Text | None = None
        self.codes = JoinCodes(store, unsaved=self.saving.unsaved, clock=clock)
        self._timer: asyncio.TimerHandle | None = None  # the owner's wake-up for what comes next (_timeout)
        self.started = False
        self._closed = False

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self.store.listener = self.saving.listener(asyncio.get_running_loop(), self.queue)
        restoring.restore(self)  # the latest match back from the store's log
        self.codes.restarted(self.record.code if self.record is not None else None, in_play=self.active)
        try:
            await self.store.flushed()  # what the restore wrote (a restart's pause) is kept before anyone is served
        except StoreUnavailable as e:  # the card cannot be written: the cockpit starts, and says so
            self.saving.unsaved(e)
        self.queue.take_with(self._take, then=self._after_batch)  # the owner takes every input as it comes
        if not self.active:
            self._prepare_next()
        await inputs.start_all(self.sources, self.queue, clock=self.clock,
                               known=lambda: self.match.positions if self.active else self.positions)
        # The effects show what is (START lit for a walk-up match, a paused ring) from the
        # start, not from the first press; in turn with every input, on the owner's turn.
        self.queue.put_nowait((lambda: self._publish([]), asyncio.get_running_loop().create_future()))
        self.started = True

    async def close(self) -> None:
        inputs.close_all(self.sources)
        self._closed = True
        self.queue.take_with(None)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.fan_out.close()

    async def __aenter__(self) -> "Cockpit":
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    @property
    def running(self) -> bool:
        """The owner takes inputs: started and not closed (one input failing never stops it)."""
        return self.started and not self._closed

    def begin(self, match: Engine, *, at: float) -> None:
        """`match` on the cockpit, its time going on from `at` (0 for a new one)."""
        self.match = match
        self.lights_at = lights_source(match)
        self._offset = self.clock() - at
        self._t = at
        self.fan_out.forget_card()

    # ------------------------------------------------------------------ time
    def now(self) -> float:
        """Match time now (never behind what the engine has already seen)."""
        return max(self.clock() - self._offset, self._t)

    def stamp(self, mono: float) -> float:
        t = max(mono - self._offset, self._t)
        self._t = t
        return t

    # ------------------------------------------------------------------ views
    @property
    def active(self) -> bool:
        return self.match is not None and self.record is not None and self.record.status == "active"

    def any_layout(self) -> Layout:
        """The layout to check inputs against: the match's, or the whole panel between matches."""
        if self.match is not None and self.active and self.match.layout is not None:
            return self.match.layout
        return whole_panel(self.layout_path)

    @property
    def game(self):
        """The game of the match on the cockpit (the last one set up), None before any:
        looked up in the registry once per match's settings (they never change), not for
        every press's state for the pages and card for the towers."""
        record = self.record
        if record is None:
            return None
        if record.settings is not self._game_of[0]:
            self._game_of = (record.settings, game_of(record.settings))
        return self._game_of[1]

    def full_snapshot(self) -> dict[str, Any] | None:
        return self.match.snapshot(self.now()) if self.match is not None else None

    def lights_snapshot(self, now: float | None = None) -> dict[str, Any] | None:
        """What the effects draw from at match time `now` (default: now): the game's
        `lights`, else its whole snapshot."""
        if self.match is None:
            return None
        return self.lights_at(self.now() if now is None else now)

    # ------------------------------------------------------------------ the parts' own, as the callers know them
    # What the pages see, in their language (presentation.py): GET /api/state (the snapshot
    # without the card, plus the SERVICE_FIELDS), the game master's problems, the tower's card.
    public_state = property(attrgetter("presentation.state"))
    problems = property(attrgetter("presentation.problems"))
    tower_card = property(attrgetter("presentation.tower_card"))
    tower_view = property(attrgetter("presentation.tower_view"))
    completed_view = property(attrgetter("presentation.completed_view"))
    # The pages' sockets (fan_out.py): a page subscribed gets the language and the state now.
    subscribers = property(attrgetter("fan_out.subscribers"))
    subscribe = property(attrgetter("fan_out.subscribe"))
    unsubscribe = property(attrgetter("fan_out.unsubscribe"))
    set_language = property(attrgetter("fan_out.set_language"))  # the game master's choice, told to every page
    next_code = property(attrgetter("codes.next"), doc="The next match's join code, shown while no match runs.")
    store_error = property(attrgetter("saving.error"), doc="Why the last write failed, until one succeeds.")
    _retry_wait = property(attrgetter("saving.retry.next"), doc="The pause before the next try to log a deadline.")

    def link_status(self) -> dict[str, Any]:
        return inputs.link_status(self.sources, sim=self.sim)

    def join_code(self) -> str:
        """The code a tower joins with: the match's while one is played, else the next one's."""
        return self.record.code if self.active else self.codes.next

    def code_ok(self, code: str | None) -> bool:
        return code_ok(code, self.join_code())

    # ------------------------------------------------------------------ requests from the web
    async def input(self, control: str, value: bool | str) -> bool:
        """A browser's input, stamped now; returns once it is in the log and the log is on
        the card (True) or, with no match being played, once the panel's positions are
        updated (False)."""
        event = InputEvent(control, value, self.clock())
        return await self.call(lambda: self._input(event))

    async def call(self, fn: Callable[[], Any], *, durable: bool = True) -> Any:
        """Run `fn` on the owner's turn, in order with every input; its result or exception,
        once what it wrote is durable (an answer to a person or a script is a promise that
        a power cut will not take back; StoreUnavailable when the store cannot write), or
        at once with durable=False (a read)."""
        if durable:  # while the store cannot write, a request is a new try, or refused having changed nothing
            try:
                await self.store.writable()
            except StoreWriteError as e:
                raise self.saving.unsaved(e) from None
        future = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((fn, future))
        result = await future
        if durable:
            await self.store.flushed()
        return result

    async def create_match(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.call(lambda: game_master.set_up_match(self, body))

    async def action(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return await self.call(lambda: game_master.action(self, name, params))

    # ------------------------------------------------------------------ the owner
    def _take(self, item: Any) -> None:
        """One item of the queue (an input, an action, a call), as it comes."""
        try:
            if type(item) is InputEvent:  # (nearly every item: a press, taken with no call between)
                self._input(item)
            else:
                self._process(item)
        except Refused:
            pass  # a panel press the store could not take: said once, on the pages and in the log
        except Exception:  # never let one bad input stop the cockpit
            log.exception("the cockpit could not handle an input")
        finally:
            # What was logged is the store's now, even if nothing was told (fan_out.py
            # hands it over as soon as the lights are out).
            self.saving.flush()

    def _after_batch(self) -> None:
        self._rearm()
        collections_off_press.after_batch(asyncio.get_running_loop())

    def _rearm(self) -> None:
        """The owner's one timer set for what comes next: the engine's deadline, the next LED
        frame, the pages' tick, the idle table (`_timeout`); after every batch and every wake."""
        if self._timer is not None:
            self._timer.cancel()
        timeout = self._timeout()
        self._timer = None if timeout is None else asyncio.get_running_loop().call_later(timeout, self._wake)

    def _wake(self) -> None:
        self._timer = None
        self.queue.put_nowait(TIME_PASSED)  # taken in turn like any input, then the timer set again

    def _timeout(self) -> float | None:
        now = self.now()
        frames = self.fan_out.effects_wait(now)
        if not self.active:  # the LEDs' frames, and the moment the table counts as idle
            waits = [w for w in (frames, self.codes.idle_in()) if w is not None]
            return min(waits) if waits else None
        waits = [] if frames is None else [frames]
        due = self.match.next_deadline()
        if due is not None:
            # A deadline the store would not log waits for the next try, not for nothing (a spin).
            waits.append(max(due - now, self.saving.retry_in(self.clock)))
        if self.match.clock_running:
            waits.append(self.fan_out.next_tick - self.clock())
        return max(0.0, min(waits)) if waits else None

    def _on_timer(self) -> None:
        if not self.active and self.codes.idle_in() == 0:
            self._new_group()
        if self.active:
            t = self.stamp(self.clock())
            try:
                advanced = self.saving.may_try(self.clock) and self.advance(t)
            except Refused:  # the store would not log it: tried again later, each wait twice the last
                self.saving.refused_deadline(self.clock())
                advanced = False
            if not advanced and self.match.clock_running and self.clock() + SLACK >= self.fan_out.next_tick:
                self._publish([])  # the timer drains on the pages
        self.fan_out.frames(self.now())  # LED frames and buzzer notes between game events

    def advance(self, t: float) -> bool:
        """Run the match's clock to `t` when a deadline has passed, logged before it runs
        like any input (a replay advances at the same moment). True when it did."""
        due = self.match.next_deadline()
        if due is None or due > t + SLACK:
            return False
        t = self._t = max(t, due)
        self.saving.append(self.record.id, t, "advance", {})  # in the log first; Refused when it cannot
        events = self.match.advance(t)
        self._status_from_match()
        self._publish(events)
        return True

    def _process(self, item: Any) -> None:
        if item is TIME_PASSED:
            self._on_timer()
            return
        if isinstance(item, tuple):
            fn, future = item
            if future.done():
                return
            try:
                future.set_result(fn())
            except Exception as e:  # handed to the caller, which turns it into a reply
                future.set_exception(e)
            return
        if isinstance(item, InputEvent):
            self._input(item)
        elif isinstance(item, Action):
            if self.active:  # a source's action (the link lost or back): logged only if the engine takes it
                action = Action(item.name, self.stamp(item.t), item.params)
                self.advance(action.t)
                why = self.match.refusal(action)
                if why is None:
                    self.log_and_handle(action)
                else:
                    log.info("%s from an input source not taken: %s", action.name, why)

    def _input(self, event: InputEvent) -> bool:
        """One control changed: logged and judged when a match is played. True when logged."""
        record = self.record  # (`active`, written out: every press asks it)
        active = self.match is not None and record is not None and record.status == "active"
        if isinstance(event.value, str) and event.control in self.any_layout().tokens:
            self.positions[event.control] = event.value
        walked_up = False
        if event.value is True and not (active and not self.match.finished):  # no match in play
            walked_up = walk_up.press(self, event.control)  # a press a game takes sets its match up (walk_up.py)
            active = self.active
        if not active:
            self._publish([])
            return False
        match = self.match
        t = event.t - self._offset  # (stamp(), written out: every press comes this way)
        if t < self._t:
            t = self._t
        self._t = t
        stamped = InputEvent(event.control, event.value, t)
        due = match.next_deadline()  # (advance's test, written out: every press asks it)
        if due is not None and due <= t + SLACK:
            self.advance(t)  # a deadline due first, logged: the press is judged at its moment, as replayed
        asked = match.asks(stamped)
        why = match.refusal(asked) if asked is not None else None
        try:
            self.log_and_handle(stamped)
        except Refused:
            if walked_up:  # the match it set up is told all the same (its press was not logged)
                self._publish([])
            raise
        if why is not None:  # a fact all the same (a button down), but what it asked is refused: said
            self.fan_out.refused(stamped.control, asked, why)
        return True

    # ------------------------------------------------------------------ log first, then judge
    def log_and_handle(self, event: InputEvent | Action) -> list[GameEvent]:
        """`event` logged, then judged, then told (the owner only)."""
        events = self._log_and_apply(event)
        pause = inputs.link_pause(self._links, self.match, event.t) if self._links else None
        if pause is not None:  # published together with the start: no page sees the turn run
            try:
                events += self._log_and_apply(pause)
            except Refused:  # the store cannot write: said on the pages; the turn goes on unlogged
                pass
        if self.match.finished:
            self._status_from_match()
        self._publish(events)
        return events

    def _log_and_apply(self, event: InputEvent | Action) -> list[GameEvent]:
        kind, data = entry_of(event)
        self.saving.append(self.record.id, event.t, kind, data)  # in the log first; Refused when it cannot
        if event.t > self._t:
            self._t = event.t
        # Judged as it was logged: what feed.apply does with the entry, without reading the
        # input back from it (entry_event(kind, event.t, data) == event).
        return self.match.handle(event)

    def _status_from_match(self) -> None:
        """A match the engine has ended is stored as over, the way it ended."""
        if self.match.finished and self.record.status == "active":
            self.set_status(STATUS_WHEN_OVER[self.match.ended_by])

    def set_status(self, status: str) -> None:
        """The match's status, in the store when it can write (else kept in memory: it follows from the log)."""
        was_active = self.record.status == "active"
        self.saving.set_status(self.record.id, status)
        self.record = replace(self.record, status=status)
        if was_active and status != "active":  # its group keeps the code, or not (join_codes.py)
            # A match the game master ended before anything was scored ends as abandoned (an
            # engine's `unplayed`, Airlines rule 25), but the group at the table is the same.
            unplayed = bool(getattr(self.match, "unplayed", False))
            self.codes.over(self.record.code, abandoned=status == "abandoned" and not unplayed)
            self._prepare_next()

    def _prepare_next(self) -> None:
        """With no match in play (one over and its end told, the group reading its result,
        or none since the start), the game START plays next makes that match ready
        (`Game.prepare`, where the game has one): on the owner's turn, off every press; a
        START before it is done makes what it needs itself."""
        game = walk_up.first_asked(self.game)
        prepare = getattr(game, "prepare", None)
        if prepare is None:
            return
        settings = own_settings(self.record.settings) if self.record is not None else None
        build = self.build

        def ready() -> None:
            try:
                prepare(settings, build=build, positions=dict(self.positions), language=self.language)
            except Exception as e:  # (made at the next START instead: nothing is lost)
                log.info("the next match could not be made ready ahead: %s", e)

        def due() -> None:
            if not self._closed:
                self.queue.put_nowait((ready, asyncio.get_running_loop().create_future()))

        asyncio.get_running_loop().call_later(PREPARE_AFTER, due)

    def _new_group(self) -> None:
        """The table idle: a new code for the next group; the last group's phones must scan it."""
        code = self.codes.renew()
        self.fan_out.revoke_towers(code)
        log.info("no match in play for %d min: a new join code for the next group", IDLE_SECONDS // 60)
        self._publish([])
