"""The cockpit: the one asyncio task that owns the match.

Every input (GPIO, co-processor, browser) and every game master's request arrives on one
`asyncio.Queue`; one task takes them in order, appends each to the store's log *before*
the engine sees it (the log is the truth), calls the engine with match time, and fans
the game events and the new snapshot out to the web sockets and the effects. Between
inputs it sleeps until the engine's next deadline (a timer running out, a token's settle
time) and, while a turn runs, wakes four times a second so the timer drains smoothly on
the pages. Nothing else touches the match.

Match time: seconds since the match was set up, on this process's monotonic clock shifted
by an offset. After a restart the offset is chosen so match time continues from the
last logged entry, and a turn that was running comes back paused (reason "restart"),
with a pause entry logged so that a replay of the log agrees with the service.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from dataclasses import replace
from typing import Any, Callable, Iterable

from panel.games.airlines.engine import allowed_actions, refusal
from panel.games.base import Build, Engine
from panel.games.registry import DEFAULT, UnknownGame, game_named, game_of, games, own_settings, stored
from panel.core.errors import UNSAVED, ConfigError, Problem, Refused, StoreError, StoreUnavailable, StoreWriteError
from panel.core.events import Action, GameEvent, InputEvent
from panel.core.i18n import N_, NOT_A_LANGUAGE, SOURCE, Text, Word, languages, text_of, translations
from panel.core.layout import Layout
from panel.service.effects import sim_leds
from panel.service.panel import whole_panel
from panel.service.replay import apply, replay
from panel.core.statuses import STATUS_WHEN_OVER
from panel.server.message import Message
from panel.service.ports import Entry, MatchLog as Store, MatchRecord

log = logging.getLogger("penguin-panel")

TICK = 0.25  # seconds between state pushes while a turn runs
RETRY_FIRST, RETRY_MOST = 0.5, 8.0  # seconds between tries to log a due deadline the store refused
# A timer woken at its deadline may read the clock a hair before it (float rounding of
# deadline - now, the clock's resolution): within this it is due, or the loop would spin
# until the clock passes it.
SLACK = 1e-6
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud across a café
CODE_LENGTH = 6
# What GET /api/state adds to the engine's snapshot: the service's, not the match's.
SERVICE_FIELDS = ("match_id", "status", "link", "walk_up_problem", "store_error")


class Inbox(asyncio.Queue):
    """The owner task's queue. `wait(timeout)` returns once an item is in or the timeout has
    passed, on a plain timer: no task to cancel and no exception for a timeout, since while
    a turn runs the owner wakes twenty times a second for the LED frames; and an input that
    arrives wakes the owner at the loop's next turn."""

    _waiter: asyncio.Future | None = None

    def put_nowait(self, item: Any) -> None:
        super().put_nowait(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, timeout: float | None) -> None:
        if not self.empty():
            return
        loop = asyncio.get_running_loop()
        waiter = self._waiter = loop.create_future()
        timer = None if timeout is None else loop.call_later(timeout, _wake, waiter)
        try:
            await waiter
        finally:
            self._waiter = None
            if timer is not None:
                timer.cancel()


def _wake(waiter: asyncio.Future) -> None:
    if not waiter.done():
        waiter.set_result(None)


def public_event(event: GameEvent) -> dict[str, Any]:
    """A game event as every page may see it: card_drawn without the card (only the tower
    with the join code gets the card, in its own message)."""
    d = event.as_dict()
    if event.type == "card_drawn":
        d.pop("card", None)
    return d


def _draw_card(card: dict[str, Any], layout: Layout, language: str) -> dict[str, Any]:
    """The tower's card drawn (a worker thread's job): its SVG and its lines in plain words."""
    from panel.service.drawing import card_lines, card_svg  # the game's drawing code, loaded only when a tower looks

    return {"svg": card_svg(card, layout, language), "lines": card_lines(card, layout, language)}


def make_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Cockpit:
    """Owns the match. Use as an async context manager, or `await start()` / `await close()`."""

    def __init__(self, store: Store, *, layout_path: str | None = None, sim: bool = False,
                 sources: Iterable[Any] = (), effects: Iterable[Any] = (), defaults: dict[str, Any] | None = None,
                 touch_sensors: bool = False, language: str = SOURCE, clock: Callable[[], float] = time.monotonic,
                 tick: float = TICK, game_defaults: dict[str, dict[str, Any]] | None = None,
                 walk_up: dict[str, bool] | None = None, warnings: Iterable[str] = ()):
        self.store = store
        self.layout_path = layout_path
        self.sim = sim
        self.sources = list(sources)
        self.effects = list(effects)
        # The defaults of new matches (the settings file's [match] table and what the game
        # master saves on /admin) and each other game's from its own table ([kaboom]): what a
        # match set up at the panel is played with.
        self.defaults = dict(defaults or {})
        self.build = Build(layout_path=layout_path, touch_sensors=touch_sensors,
                           defaults={DEFAULT: self.defaults, **(game_defaults or {})}, walk_up=dict(walk_up or {}))
        self.touch_sensors = touch_sensors
        self.language = language  # of every page, chosen on /admin (panel.core.i18n)
        self.clock = clock
        self.tick = tick
        self.queue: Inbox = Inbox()
        self.subscribers: set[Any] = set()
        self.record: MatchRecord | None = None
        self.match: Engine | None = None
        self._offset = 0.0  # monotonic clock minus match time
        self._t = 0.0  # the latest match time given to the engine
        # The panel's token positions now, whether or not a match runs: a new match starts
        # from them. Seeded from the layout's start positions (a built panel's sources
        # report the real ones when they start).
        self.positions: dict[str, str] = dict(self.any_layout().start_positions())
        self._last_card: str | None = None  # the key of the card the towers were last sent
        self._art: tuple[str, str | None] | None = None  # (card key, its SVG): the last card drawn
        self._tasks: set[asyncio.Task] = set()
        self.warnings: list[str | Text | Problem] = list(warnings)  # for the game master: what the start found wrong
        self.store_error: str | None = None  # why the last write failed, until one succeeds
        self._retry_at: float | None = None  # clock time of the next try to log a due deadline
        self._retry_wait = RETRY_FIRST
        # The next match's join code, made ahead and kept: the board shows it while no match
        # runs, so the tower's phone is ready before START sets the match up.
        self.next_code = store.get_setting("next_code") or self._new_next_code()
        # Why the last START with no match in play set nothing up (the board says it), or None.
        self.walk_up_problem: Text | None = None
        self._task: asyncio.Task | None = None
        self._next_tick = 0.0
        self.started = False

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        loop = asyncio.get_running_loop()

        def store_changed() -> None:  # on the store's writer thread: handled on the owner task
            loop.call_soon_threadsafe(lambda: self.queue.put_nowait((self._store_changed, loop.create_future())))

        self.store.listener = store_changed
        self.restore()
        try:
            await self.store.flushed()  # what the restore wrote (a restart's pause) is kept before anyone is served
        except StoreUnavailable as e:  # the card cannot be written: the cockpit starts, and says so
            self._unsaved(e)
        self._task = asyncio.create_task(self._run(), name="cockpit")
        for source in self.sources:
            await source.start(self.queue)
            positions = getattr(source, "positions", None)
            if positions is not None:
                # Where the tokens really stand (they may have moved while we were down):
                # every difference goes in as an input, logged like any other.
                known = self.match.positions if self.active else self.positions
                for tid, pos in positions().items():
                    if known.get(tid) != pos:
                        self.queue.put_nowait(InputEvent(tid, pos, self.clock()))
        # The effects show what is (START lit for a walk-up match, a paused ring) from the
        # start, not from the first press; in turn with every input, on the owner task.
        self.queue.put_nowait((lambda: self._publish([]), asyncio.get_running_loop().create_future()))
        self.started = True

    async def close(self) -> None:
        for source in self.sources:
            try:
                source.close()
            except Exception:  # one source failing to close must not keep the others open
                log.exception("closing an input source failed")
        task, self._task = self._task, None
        for t in [task, *self._tasks]:
            if t is not None:
                t.cancel()
        if task is not None:
            try:
                await task
            except asyncio.CancelledError:
                pass

    async def __aenter__(self) -> "Cockpit":
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def restore(self) -> None:
        """Load the latest match from the store by replaying its log. A match whose rows
        cannot be read or replayed is set aside with the reason (its rows stay for a look)
        and the cockpit starts with no match: a bad row must not keep the café's cockpit
        down in a restart loop."""
        record = self.store.latest_match()
        if record is None:
            return
        if record.status == "set_aside":
            reason = self.store.set_aside_reason(record.id) or N_("reason not kept")
            self.warnings.append(Text(N_("match {id} was set aside at an earlier start ({reason}); set up a new match"),
                                      id=record.id, reason=Word(reason)))
            return
        problem, entries = record.problem, []
        if problem is None:
            try:
                entries = self.store.entries(record.id)
                match, last = replay(record, entries)
            except ConfigError as e:
                problem = "its settings are refused: " + "; ".join(str(p) for p in e.problems)
            except StoreError as e:
                problem = str(e)
            except Exception as e:  # whatever a garbled row makes the engine say: one line, no restart loop
                problem = f"its log cannot be replayed ({type(e).__name__}: {str(e)[:160]})"
        if problem is not None:
            self._set_aside(record, problem)
            return
        self.record, self.match = record, match
        self._offset = self.clock() - last
        self._t = last
        self.positions.update(match.positions)
        self._last_card = None
        if record.status == "active" and match.finished:
            # Killed between the last input and the status update: the log says how it ended.
            self._set_status(STATUS_WHEN_OVER[match.ended_by])
        elif record.status != "active" and not match.finished:
            # Ended or abandoned before the engine was told (an older log): tell it now, so
            # the pages see a match that is over. Not logged: the record is closed.
            over = "end" if record.status != "abandoned" and "end" in game_of(record.settings).actions else "abandon"
            match.handle(Action(over, last))
        if self.record.status == "active" and match.clock_running:
            try:
                self._log_and_handle(Action("pause", last, {"reason": "restart"}))
            except Refused:  # the store cannot write: said on the pages; the turn goes on unlogged
                pass
        log.info("match %s restored from %d logged inputs at %.1f s, %s", record.id, len(entries), last,
                 match.phase.value)

    def _set_aside(self, record: MatchRecord, problem: str) -> None:
        message = Text(N_("match {id} could not be restored ({problem}): it is set aside and the cockpit started "
                          "with no match"), id=record.id, problem=problem)
        try:
            self.store.set_aside(record.id, problem)
        except StoreError as e:
            message = Text(N_("match {id} could not be restored ({problem}): it is set aside and the cockpit started "
                              "with no match (it could not be marked as set aside either: {error})"),
                           id=record.id, problem=problem, error=Word(str(e)))
        log.warning("%s", message)
        self.warnings.append(message)

    # ------------------------------------------------------------------ time
    def now(self) -> float:
        """Match time now (never behind what the engine has already seen)."""
        return max(self.clock() - self._offset, self._t)

    def _stamp(self, mono: float) -> float:
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
        """The game of the match on the cockpit (the last one set up), None before any."""
        return game_of(self.record.settings) if self.record is not None else None

    def link_status(self) -> dict[str, Any]:
        for source in self.sources:
            status = getattr(source, "status", None)
            if status is not None:
                return dict(status())
        if self.sim:
            return {"connected": True, "frames_received": 0, "frames_rejected": 0, "reconnects": 0,
                    "firmware": N_("browser simulator")}  # /admin shows it in the page's language
        return {"connected": False, "frames_received": 0, "frames_rejected": 0, "reconnects": 0, "firmware": None}

    def full_snapshot(self) -> dict[str, Any] | None:
        return self.match.snapshot(self.now()) if self.match is not None else None

    def public_state(self, full: dict[str, Any] | None = None) -> dict[str, Any]:
        """GET /api/state: the snapshot without the card, plus the SERVICE_FIELDS."""
        if self.match is None:
            state: dict[str, Any] = {"phase": "idle", "positions": dict(self.positions), "finished": False,
                                     "actions": allowed_actions(None)}
        else:
            state = dict(full if full is not None else self.match.snapshot(self.now()))
            state.pop("card", None)
            state = self.game.present(state, self.match, translations(self.language))
            state["positions"] = dict(self.positions) if not self.active else state["positions"]
        state["match_id"] = self.record.id if self.record else None
        state["status"] = self.record.status if self.record else None
        tr = translations(self.language)
        state["walk_up_problem"] = self.walk_up_problem.text(tr) if self.walk_up_problem else None
        state["link"] = self.link_status()
        state["store_error"] = tr.gettext(self.store_error) if self.store_error else None
        return state

    def _public_event(self, event: GameEvent) -> dict[str, Any]:
        if self.match is None:
            return public_event(event)
        return self.game.present_event(public_event(event), self.match, translations(self.language))

    def problems(self) -> list[str]:
        """What the game master should know, in the pages' language: the start's findings,
        a store that cannot write."""
        now = [Text(N_("the cockpit cannot save: {reason}; presses and actions are refused until it can"),
                    reason=Word(self.store_error))] if self.store_error else []
        tr = translations(self.language)
        return [text_of(w, tr) for w in now + self.warnings]

    def tower_card(self, full: dict[str, Any] | None = None) -> dict[str, Any] | None:
        full = full if full is not None else self.full_snapshot()
        card = (full or {}).get("card")
        if card is None or not self.active:
            return None
        return self.game.tower_card(card, self.match)

    async def completed_view(self) -> dict[str, Any]:
        """The completed cards of the turn in progress, or of the last turn between turns, each
        numbered as the game master's challenge menu numbers them, drawn for the pages: read
        on the owner task, drawn on a worker thread."""
        from panel.service.drawing import card_svg

        view = await self.call(self._completed, durable=False)
        layout, language = (self.match.layout, self.language) if self.match is not None else (None, None)

        def draw() -> list[dict[str, Any]]:
            return [{"index": i, "number": n, "svg": card_svg(c, layout, language) if c is not None else None}
                    for i, n, c in view["cards"]]

        return {"turn": view["turn"], "cards": await asyncio.get_running_loop().run_in_executor(None, draw)}

    def _completed(self) -> dict[str, Any]:
        full = self.full_snapshot()
        if full is None:
            return {"turn": None, "cards": []}
        if full["phase"] in ("in_turn", "paused"):
            turn = {"team": full["team"], "round": full["round"], "in_progress": True}
            numbers = full["completed_cards"]
        elif full["last_turn"] is not None:
            last = full["last_turn"]
            turn = {"team": last["team"], "round": last["round"], "in_progress": False, "points": last["points"]}
            numbers = last["completed"]
        else:
            return {"turn": None, "cards": []}
        cards = []
        for i, number in enumerate(numbers):
            card = self.match.card(number)
            cards.append((i + 1, number, card.as_dict() if card is not None else None))
        return {"turn": turn, "cards": cards}

    def join_code(self) -> str:
        """The code a tower joins with: the match's while one is played, else the next one's."""
        return self.record.code if self.active else self.next_code

    def code_ok(self, code: str | None) -> bool:
        return isinstance(code, str) and secrets.compare_digest(code.strip().upper(), self.join_code())

    def _new_next_code(self) -> str:
        self.next_code = make_code()
        try:
            self.store.set_setting("next_code", self.next_code)
        except StoreWriteError as e:  # kept in memory: a restart makes another one, nothing lost
            self._unsaved(e)
        return self.next_code

    # ------------------------------------------------------------------ requests from the web
    async def input(self, control: str, value: bool | str) -> bool:
        """A browser's input, stamped now; returns once it is in the log and the log is on
        the card (True) or, with no match being played, once the panel's positions are
        updated (False)."""
        event = InputEvent(control, value, self.clock())
        return await self.call(lambda: self._input(event))

    async def call(self, fn: Callable[[], Any], *, durable: bool = True) -> Any:
        """Run `fn` on the owner task, in order with every input; its result or exception,
        once what it wrote is durable (an answer to a person or a script is a promise that
        a power cut will not take back; StoreUnavailable when the store cannot write), or
        at once with durable=False (a read)."""
        if durable:  # while the store cannot write, a request is a new try, or refused having changed nothing
            try:
                await self.store.writable()
            except StoreWriteError as e:
                raise self._unsaved(e) from None
        future = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((fn, future))
        result = await future
        if durable:
            await self.store.flushed()
        return result

    async def create_match(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.call(lambda: self._create_match(body))

    async def action(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return await self.call(lambda: self._action(name, params))

    # ------------------------------------------------------------------ the owner task
    async def _run(self) -> None:
        while True:
            if self.queue.empty():
                await self.queue.wait(self._timeout())
                if self.queue.empty():
                    self._guard(self._on_timer)
                    continue
            item = self.queue.get_nowait()
            self._guard(lambda: self._process(item))

    def _guard(self, fn: Callable[[], None]) -> None:
        try:
            fn()
        except Refused:
            pass  # a panel press the store could not take: said once, on the pages and in the log
        except Exception:  # never let one bad input stop the cockpit
            log.exception("the cockpit could not handle an input")

    def _timeout(self) -> float | None:
        if not self.active:
            return self._effects_wait(self.now())
        now = self.now()
        waits = []
        due = self.match.next_deadline()
        if due is not None:
            # A deadline the store would not log waits for the next try, not for nothing (a spin).
            retry = self._retry_at - self.clock() if self._retry_at is not None else 0.0
            waits.append(max(due - now, retry))
        if self.match.clock_running:
            waits.append(self._next_tick - self.clock())
        for effect in self.effects:
            d = getattr(effect, "deadline", None)
            if d is not None:
                waits.append(d - now)
        return max(0.0, min(waits)) if waits else None

    def _effects_wait(self, now: float) -> float | None:
        due = [d for d in (getattr(e, "deadline", None) for e in self.effects) if d is not None]
        return max(0.0, min(due) - now) if due else None

    def _on_timer(self) -> None:
        if self.active:
            t = self._stamp(self.clock())
            try:
                advanced = (self._retry_at is None or self.clock() >= self._retry_at) and self._advance(t)
            except Refused:  # the store would not log it: tried again later, each wait twice the last
                self._retry_at = self.clock() + self._retry_wait
                self._retry_wait = min(self._retry_wait * 2, RETRY_MOST)
                advanced = False
            if not advanced and self.match.clock_running and self.clock() + SLACK >= self._next_tick:
                self._publish([])  # the timer drains on the pages
        now = self.now()
        full = None
        for effect in self.effects:  # LED frames and buzzer notes between game events
            d = getattr(effect, "deadline", None)
            if d is not None and d <= now + SLACK:
                full = full or self.full_snapshot() or {"phase": "idle"}
                try:
                    effect.update(full, max(now, d))
                except Exception:
                    log.exception("an effect failed")

    def _advance(self, t: float) -> bool:
        """Run the match's clock to `t` when a deadline has passed, logged before it runs
        like any input (a replay advances at the same moment). True when it did."""
        due = self.match.next_deadline()
        if due is None or due > t + SLACK:
            return False
        t = self._t = max(t, due)
        self._append(t, "advance", {})
        events = self.match.advance(t)
        self._status_from_match()
        self._publish(events)
        return True

    def _process(self, item: Any) -> None:
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
                action = Action(item.name, self._stamp(item.t), item.params)
                self._advance(action.t)
                why = self.match.refusal(action)
                if why is None:
                    self._log_and_handle(action)
                else:
                    log.info("%s from an input source not taken: %s", action.name, why)

    def _input(self, event: InputEvent) -> bool:
        """One control changed: logged and judged when a match is played. True when logged."""
        layout = self.any_layout()
        if event.control in layout.tokens and isinstance(event.value, str):
            self.positions[event.control] = event.value
        if event.value is True and not self._in_play():
            game = self._walk_up_game(event.control)
            if game is not None and self._walk_up(game, event.control):
                log.info("%s pressed with no match in play: match %s set up (%s)", event.control, self.record.id,
                         game.id)
        if not self.active:
            self._publish([])
            return False
        self._log_and_handle(InputEvent(event.control, event.value, self._stamp(event.t)))
        return True

    def _in_play(self) -> bool:
        return self.active and not self.match.finished

    def _walk_up_game(self, control: str):
        """The game a press of `control` with no match in play sets a match up for, if any:
        the last match's game is asked first (START plays it again), then the others."""
        last = self.game or game_named(DEFAULT)
        for game in [last, *(g for g in games() if g is not last)]:
            settings = self.record.settings if game is self.game else None
            if game.walks_up(control, build=self.build, last=settings):
                return game
        return None

    def _walk_up(self, game, control: str) -> bool:
        """A café's cockpit plays without anyone at /admin: with no match in play, a press the
        game takes (START; a Kaboom penguin's colour) sets one up, with the settings file's
        defaults or, after a match of the same game, the same group and rules again (a new
        deck or draw), and the same press goes on to the new match."""
        again = game is self.game
        body = game.walk_up_body(control, self.record.settings if again else None, self.match if again else None,
                                 build=self.build, language=self.language)
        if self.active:
            self._set_status("finished")
        try:
            self._create_match({"game": game.id, **body})
        except Refused as e:  # e.g. default teams a settings file got wrong: said, not raised
            log.warning("no match could be set up at the panel: %s", e)
            self.walk_up_problem = Text(game.walk_up_problem, why=e.said)
            return False
        return True

    def _log_and_handle(self, event: InputEvent | Action) -> list[GameEvent]:
        events = self._log_and_apply(event)
        pause = Action("pause", event.t, {"reason": "link"})
        if self._panel_unheard() and self.match.refusal(pause) is None:
            # A turn started, or resumed by the game master, while the co-processor is not
            # heard: it waits for the panel, as a turn does when the link is lost during it
            # (the link's source resumes it once the board is back and in sync). Published
            # together: no page sees the turn run.
            try:
                events += self._log_and_apply(pause)
            except Refused:  # the store cannot write: said on the pages; the turn goes on unlogged
                pass
        self._status_from_match()
        self._publish(events)
        return events

    def _log_and_apply(self, event: InputEvent | Action) -> list[GameEvent]:
        if isinstance(event, InputEvent):
            entry = Entry(0, event.t, "input", {"control": event.control, "value": event.value})
        else:
            entry = Entry(0, event.t, "action", {"name": event.name, "params": event.params})
        self._append(entry.t, entry.kind, entry.data)  # the log first
        self._t = max(self._t, event.t)
        return list(apply(self.match, entry))

    def _panel_unheard(self) -> bool:
        """A source that can lose its panel (the co-processor's link) does not hear it now."""
        return any(not source.connected.is_set() for source in self.sources
                   if isinstance(getattr(source, "connected", None), asyncio.Event))

    def _status_from_match(self) -> None:
        """A match the engine has ended is stored as over, the way it ended."""
        if self.match.finished and self.record.status == "active":
            self._set_status(STATUS_WHEN_OVER[self.match.ended_by])

    def _append(self, t: float, kind: str, data: dict[str, Any]) -> None:
        """One entry into the match's log; Refused (503) when the store cannot write it."""
        try:
            self.store.append(self.record.id, t, kind, data)
        except StoreWriteError as e:
            raise self._unsaved(e) from None
        self._saved()

    def _unsaved(self, e: StoreError) -> Refused:
        """A write failed: shown on the pages, logged once; the Refused to give whoever asked."""
        if self.store_error is None:  # one line when it starts, one when it ends: no flood
            log.warning("the store cannot write (%s): presses and actions are refused until it can", e)
        if self.store_error != str(e):
            self.store_error = str(e)
            self._publish([])
        return Refused(503, UNSAVED, reason=Word(str(e)))

    def _saved(self) -> None:
        self._retry_at, self._retry_wait = None, RETRY_FIRST
        if self.store_error is not None:
            log.warning("the store writes again")
            self.store_error = None

    def _store_changed(self) -> None:
        """The store's writer failed to commit, or commits again after failing (it keeps what
        waits and tries again on its own): the pages say so, and a deadline that waited for
        the store is taken at once."""
        if self.store.failure is not None:
            self._unsaved(StoreUnavailable(self.store.failure))
        elif self.store_error is not None:
            self._saved()
            self._publish([])

    def _set_status(self, status: str) -> None:
        """The match's status in the store. Every status follows from the log (a start sets
        it from the log when the row says otherwise), so one the store cannot write is kept
        in memory and the match goes on."""
        try:
            self.store.set_status(self.record.id, status)
        except StoreWriteError as e:
            self._unsaved(e)
        else:
            self._saved()
        self.record = replace(self.record, status=status)

    # ------------------------------------------------------------------ game master
    def _create_match(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise Refused(400, N_("the body must be a JSON object"))
        why = refusal(self.match, Action("new_match", self.now()))
        if why is not None:
            raise Refused.by_engine(why)
        try:
            game = game_of(body)
        except UnknownGame:
            raise Refused(400, N_("game: {value} is not a game of this cockpit ({games})"), value=repr(body.get("game")),
                          games=", ".join(g.id for g in games())) from None
        try:
            match = game.set_up(own_settings(body), build=self.build, positions=self.positions,
                                language=self.language)
        except ConfigError as e:
            # Said now, in the pages' language: the message is the problems' own words.
            raise Refused(400, "; ".join(p.text(translations(self.language)) for p in e.problems)) from None
        except ValueError as e:  # the engine's own checks: a Text, said in the pages' language
            raise Refused(400, text_of(e.args[0] if e.args else e, translations(self.language))) from None
        code = self.next_code
        try:
            self.record = self.store.create_match(stored(game, match), dict(self.positions), code)
        except StoreWriteError as e:
            raise self._unsaved(e) from None
        self._saved()
        match_id = self.record.id
        self._new_next_code()
        self.match = match
        self._offset = self.clock()
        self._t = 0.0
        self._last_card = None
        self.walk_up_problem = None
        for sub in list(self.subscribers):  # the old join code is void; towers that joined ahead stay
            if getattr(sub, "view", None) == "tower" and getattr(sub, "code", None) != code:
                sub.revoke()
        log.info("match %s set up: %s", match_id, game.describe(match, code))
        self._publish([])
        return {"match_id": match_id, "code": code}

    def _action(self, name: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
        """A game master's action, carried out if the engine allows it at this moment; the
        engine's refusal otherwise, as HTTP. No rule is kept here."""
        if name == "new_match":
            raise Refused(400, N_("action: a new match is set up with POST /api/admin/match"))
        t = self._stamp(self.clock())
        if self.active:
            self._advance(t)  # asked at its moment: the timer may have run out meanwhile
        # A parameter sent as null is one left out (the log is written back as TOML, which has no null).
        action = Action(name, t, {k: v for k, v in params.items() if v is not None})
        why = refusal(self.match, action)
        if why is not None:
            raise Refused.by_engine(why)
        return [self._public_event(e) for e in self._log_and_handle(action)]

    # ------------------------------------------------------------------ fan-out
    def set_language(self, language: str) -> None:
        """The game master chose the pages' language: kept in the store, and every page told
        (each loads that catalog and shows itself again), with the state in it (the words the
        service says: plain names, problems); towers get the card redrawn."""
        if language not in languages():
            raise Refused(400, NOT_A_LANGUAGE, param="language", value=repr(language), languages=", ".join(languages()))
        self.language = language
        self.store.set_setting("language", language)
        full = self.full_snapshot()
        messages = (Message(type="language", language=language), Message(type="state", state=self.public_state(full)))
        for sub in list(self.subscribers):
            for message in messages:
                sub.send(message)
        self._card_changed(full)

    def subscribe(self, sub: Any) -> None:
        """Add a page's socket; it gets the language and the state now (and the LEDs or the card)."""
        self.subscribers.add(sub)
        sub.send(Message(type="language", language=self.language))
        full = self.full_snapshot()
        sub.send(Message(type="state", state=self.public_state(full)))
        if sub.view == "sim":
            sub.send(Message(sim_leds(full or {"phase": "idle"}, now=self.now(), layout_path=self.layout_path)))
        if sub.view == "tower":
            self._spawn(self._send_card([sub]))

    def unsubscribe(self, sub: Any) -> None:
        self.subscribers.discard(sub)

    # ------------------------------------------------------------------ the tower's card
    def _card_key(self, card: dict[str, Any] | None) -> str:
        return json.dumps([card, self.language], sort_keys=True)

    async def tower_view(self) -> dict[str, Any]:
        """The card in play for the tower: the card, its drawing (SVG, in the cockpit's
        language) and its lines in plain words. Drawn on a worker thread, once per card:
        drawing takes milliseconds the presses cannot spare."""
        card = self.tower_card()
        if card is None or self.match is None:
            return {"card": None, "svg": None, "lines": []}
        key = self._card_key(card)
        if self._art is None or self._art[0] != key:
            drawn = await asyncio.get_running_loop().run_in_executor(None, _draw_card, card, self.match.layout,
                                                                     self.language)
            self._art = (key, drawn)
        return {"card": card, **self._art[1]}

    def _card_changed(self, full: dict[str, Any] | None) -> None:
        key = self._card_key(self.tower_card(full))
        if key != self._last_card:
            self._last_card = key
            towers = [s for s in self.subscribers if getattr(s, "view", None) == "tower"]
            if towers:
                self._spawn(self._send_card(towers))

    async def _send_card(self, towers: list[Any]) -> None:
        key = self._last_card
        view = await self.tower_view()
        if key != self._last_card:
            return  # another card came meanwhile: its own message is on its way
        message = Message(type="card", **view)
        for sub in towers:
            if sub in self.subscribers:
                sub.send(message)

    def _spawn(self, coro) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("sending the card failed: %s", task.exception())

    def _publish(self, events: list[GameEvent]) -> None:
        self._next_tick = self.clock() + self.tick
        full = self.full_snapshot()
        now = self.now()
        # The panel's lights and sounds first: they are the answer to the press.
        for effect in self.effects:
            try:
                effect.on_events(events, full or {"phase": "idle"}, now)
            except Exception:  # an LED or buzzer fault must not stop the game
                log.exception("an effect failed")
        if self.subscribers:
            # Each message made (and serialised) once, however many pages are connected.
            messages = [Message(type="event", event=self._public_event(e)) for e in events]
            messages.append(Message(type="state", state=self.public_state(full)))
            leds = None
            for sub in list(self.subscribers):
                for message in messages:
                    sub.send(message)
                if sub.view == "sim":
                    leds = leds or Message(sim_leds(full or {"phase": "idle"}, now=now, layout_path=self.layout_path))
                    sub.send(leds)
        self._card_changed(full)
