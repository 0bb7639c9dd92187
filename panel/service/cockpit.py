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
import dataclasses
import json
import logging
import secrets
import time
from typing import Any, Callable, Iterable

from ..engine import Match, MatchSettings, Refusal, allowed_actions, names, refusal
from ..engine.kaboom import KaboomMatch
from ..engine.kaboom_settings import KaboomSettings
from ..kaboom.build import kaboom_match, panel_for
from ..errors import ConfigError
from ..events import Action, GameEvent, InputEvent
from ..i18n import N_, SOURCE, languages
from ..layout import Layout
from .effects import sim_leds
from .replay import apply, layout_for, replay
from .store import Entry, MatchRecord, Store, StoreError, StoreWriteError

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
# The stored status of a match the engine has ended, by how it ended.
STATUS_WHEN_OVER = {"complete": "finished", "ended": "ended", "abandoned": "abandoned"}


class Refused(Exception):
    """A request the cockpit will not carry out now: `status` is the HTTP status to send."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status

    @classmethod
    def by_engine(cls, why: Refusal) -> "Refused":
        """The engine's refusal as HTTP: a request that is wrong in itself (a parameter at
        fault) is a 400, a request the moment does not allow a 409; the text is the engine's."""
        return cls(400 if why.param else 409, str(why))


def public_event(event: GameEvent) -> dict[str, Any]:
    """A game event as every page may see it: card_drawn without the card (only the tower
    with the join code gets the card, in its own message)."""
    d = event.as_dict()
    if event.type == "card_drawn":
        d.pop("card", None)
    return d


def make_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Cockpit:
    """Owns the match. Use as an async context manager, or `await start()` / `await close()`."""

    def __init__(self, store: Store, *, layout_path: str | None = None, sim: bool = False,
                 sources: Iterable[Any] = (), effects: Iterable[Any] = (), defaults: dict[str, Any] | None = None,
                 touch_sensors: bool = False, language: str = SOURCE, clock: Callable[[], float] = time.monotonic,
                 tick: float = TICK, kaboom_defaults: dict[str, Any] | None = None, kaboom_walk_up: bool = False,
                 warnings: Iterable[str] = ()):
        self.store = store
        self.layout_path = layout_path
        self.sim = sim
        self.sources = list(sources)
        self.effects = list(effects)
        self.defaults = dict(defaults or {})
        # Penguin Kaboom's defaults from the settings file's [kaboom] table (difficulty,
        # mission, a café's missions file): what a walk-up mission is set up with.
        self.kaboom_defaults = dict(kaboom_defaults or {})
        self.kaboom_walk_up = kaboom_walk_up
        self.touch_sensors = touch_sensors
        self.language = language  # of every page, chosen on /admin (panel.i18n)
        self.clock = clock
        self.tick = tick
        self.queue: asyncio.Queue = asyncio.Queue()
        self.subscribers: set[Any] = set()
        self.record: MatchRecord | None = None
        self.match: Match | None = None
        self._offset = 0.0  # monotonic clock minus match time
        self._t = 0.0  # the latest match time given to the engine
        # The panel's token positions now, whether or not a match runs: a new match starts
        # from them. Seeded from the layout's start positions (a built panel's sources
        # report the real ones when they start).
        self.positions: dict[str, str] = dict(self.any_layout().start_positions())
        self._last_card: str | None = None
        self.warnings: list[str] = list(warnings)  # for the game master: what the start found wrong
        self.store_error: str | None = None  # why the last write failed, until one succeeds
        self._retry_at: float | None = None  # clock time of the next try to log a due deadline
        self._retry_wait = RETRY_FIRST
        # The next match's join code, made ahead and kept: the board shows it while no match
        # runs, so the tower's phone is ready before START sets the match up.
        self.next_code = store.get_setting("next_code") or self._new_next_code()
        # Why the last START with no match in play set nothing up (the board says it), or None.
        self.walk_up_problem: str | None = None
        self._task: asyncio.Task | None = None
        self._next_tick = 0.0
        self.started = False

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        self.restore()
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
        self.started = True

    async def close(self) -> None:
        for source in self.sources:
            try:
                source.close()
            except Exception:  # one source failing to close must not keep the others open
                log.exception("closing an input source failed")
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
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
            reason = self.store.set_aside_reason(record.id) or "reason not kept"
            self.warnings.append(f"match {record.id} was set aside at an earlier start ({reason}); "
                                 "set up a new match")
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
            over = "abandon" if record.status == "abandoned" or isinstance(match, KaboomMatch) else "end"
            match.handle(Action(over, last))
        if self.record.status == "active" and match.clock_running:
            try:
                self._log_and_handle(Action("pause", last, {"reason": "restart"}))
            except Refused:  # the store cannot write: said on the pages; the turn goes on unlogged
                pass
        log.info("match %s restored from %d logged inputs at %.1f s, %s", record.id, len(entries), last,
                 match.phase.value)

    def _set_aside(self, record: MatchRecord, problem: str) -> None:
        message = f"match {record.id} could not be restored ({problem}): it is set aside and the cockpit started with no match"
        try:
            self.store.set_aside(record.id, problem)
        except StoreError as e:
            message += f" (it could not be marked as set aside either: {e})"
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
        if self.match is not None and self.active:
            return self.match.layout
        return layout_for(self.layout_path, "blue", True)

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
            state["positions"] = dict(self.positions) if not self.active else state["positions"]
        state["match_id"] = self.record.id if self.record else None
        state["status"] = self.record.status if self.record else None
        state["walk_up_problem"] = self.walk_up_problem
        state["link"] = self.link_status()
        state["store_error"] = self.store_error
        return state

    def problems(self) -> list[str]:
        """What the game master should know: the start's findings, a store that cannot write."""
        now = [f"the cockpit cannot save: {self.store_error}; presses and actions are refused until it can"] \
            if self.store_error else []
        return now + self.warnings

    def tower_card(self, full: dict[str, Any] | None = None) -> dict[str, Any] | None:
        full = full if full is not None else self.full_snapshot()
        card = (full or {}).get("card")
        if card is None or not self.active:
            return None
        card = dict(card)
        if "colours" not in card and self.match is not None:
            # A simple card: the colours of the buttons to press, in card order.
            buttons = self.match.layout.buttons
            card["colours"] = [buttons[b].colour for b in card.get("press", []) if b in buttons]
        return card

    def completed_view(self) -> dict[str, Any]:
        """The completed cards of the turn in progress, or of the last turn between turns, each
        numbered as the game master's challenge menu numbers them, drawn for the pages."""
        from .drawing import card_svg

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
            svg = card_svg(card.as_dict(), self.match.layout, self.language) if card is not None else None
            cards.append({"index": i + 1, "number": number, "svg": svg})
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
        """A browser's input, stamped now; returns once it is in the log (True) or, with no
        match being played, once the panel's positions are updated (False)."""
        event = InputEvent(control, value, self.clock())
        return await self.call(lambda: self._input(event))

    async def call(self, fn: Callable[[], Any]) -> Any:
        """Run `fn` on the owner task, in order with every input; its result or exception."""
        future = asyncio.get_running_loop().create_future()
        self.queue.put_nowait((fn, future))
        return await future

    async def create_match(self, body: dict[str, Any]) -> dict[str, Any]:
        return await self.call(lambda: self._create_match(body))

    async def action(self, name: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        return await self.call(lambda: self._action(name, params))

    # ------------------------------------------------------------------ the owner task
    async def _run(self) -> None:
        while True:
            timeout = self._timeout()
            try:
                if timeout is None:
                    item = await self.queue.get()
                else:
                    item = await asyncio.wait_for(self.queue.get(), timeout)
            except TimeoutError:
                self._guard(self._on_timer)
                continue
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
            if layout.cockpit_role(event.control) == "start" and self._walk_up():
                log.info("START pressed with no match in play: match %s set up", self.record.id)
            elif self._kaboom_walk_up() and self._kaboom_colour(event.control) and self._walk_up(kaboom=True):
                log.info("a penguin's colour pressed with no match in play: Kaboom mission %s set up, "
                         "players join with their colours", self.record.id)
        if not self.active:
            self._publish([])
            return False
        self._log_and_handle(InputEvent(event.control, event.value, self._stamp(event.t)))
        return True

    def _in_play(self) -> bool:
        return self.active and not self.match.finished

    def _kaboom_walk_up(self) -> bool:
        """Whether a penguin's colour pressed with no match in play sets up a Kaboom mission:
        when the last match was one (the café plays Kaboom), or the settings file's [kaboom]
        table says walk_up = true. Otherwise the colour buttons of a café that plays
        Penguin Airlines only are left alone between matches."""
        last = self.record.settings if self.record is not None else {}
        return last.get("mode") == "kaboom" or bool(self.kaboom_walk_up)

    def _kaboom_colour(self, control: str) -> str | None:
        """The penguin whose button `control` is on this panel (None: not one, or a layout
        without a [kaboom] table)."""
        try:
            _, mapping = panel_for(self.layout_path)
        except ConfigError:
            return None
        role = mapping.role(control)
        return role[1] if role and role[0] == "colour" else None

    def _walk_up(self, *, kaboom: bool = False) -> bool:
        """A café's cockpit plays without anyone at /admin: with no match in play, START
        sets one up (the settings file's defaults; after a finished match, the same game,
        teams or penguins and rules again, with a new deck or draw) and the same press
        starts it. Where Kaboom is played at the panel (see `_kaboom_walk_up`), a penguin's
        colour pressed instead sets up a Penguin Kaboom mission (the last one's difficulty
        and mission, or the [kaboom] defaults) that the players join with their colours,
        this press the first; START then starts it."""
        if self._in_play():
            return False
        last = self.record.settings if self.record is not None else {}
        if kaboom or last.get("mode") == "kaboom":
            body: dict[str, Any] = {"mode": "kaboom"}
            if last.get("mode") == "kaboom":
                body.update({k: last[k] for k in ("difficulty", "mission", "custom") if last.get(k) is not None})
                if not kaboom and isinstance(self.match, KaboomMatch):  # START: the same penguins again,
                    body["players"] = [{"colour": c, "name": n} for c, n in self.match.players.items()]  # joined too
        elif self.record is not None:  # the same settings again, a new deck
            body = {k: v for k, v in last.items() if k in names("form") and k != "seed"}
        else:
            body = {} if "teams" in self.defaults else {"teams": MatchSettings().as_dict()["teams"]}
        if self.active:
            self._set_status("finished")
        try:
            self._create_match(body)
        except Refused as e:  # e.g. default teams a settings file got wrong: said, not raised
            log.warning("no match could be set up at the panel: %s", e)
            pressed = "A penguin's button" if kaboom else "START"
            self.walk_up_problem = (f"{pressed} could not set up a match ({e}): set it up on the game master's page, "
                                    "or name the teams and players in the settings file")
            return False
        return True

    def _log_and_handle(self, event: InputEvent | Action) -> list[GameEvent]:
        if isinstance(event, InputEvent):
            entry = Entry(0, event.t, "input", {"control": event.control, "value": event.value})
        else:
            entry = Entry(0, event.t, "action", {"name": event.name, "params": event.params})
        self._append(entry.t, entry.kind, entry.data)  # the log first
        self._t = max(self._t, event.t)
        events = apply(self.match, entry)
        self._status_from_match()
        self._publish(events)
        return events

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

    def _unsaved(self, e: StoreWriteError) -> Refused:
        """A write failed: shown on the pages, logged once; the Refused to give whoever asked."""
        if self.store_error is None:  # one line when it starts, one when it ends: no flood
            log.warning("the store cannot write (%s): presses and actions are refused until it can", e)
        if self.store_error != str(e):
            self.store_error = str(e)
            self._publish([])
        return Refused(503, f"the cockpit cannot save ({e}): nothing was changed, try again when it can")

    def _saved(self) -> None:
        self._retry_at, self._retry_wait = None, RETRY_FIRST
        if self.store_error is not None:
            log.warning("the store writes again")
            self.store_error = None

    def _set_status(self, status: str) -> None:
        """The match's status in the store. Every status follows from the log (a start sets
        it from the log when the row says otherwise), so one the store cannot write is kept
        in memory and the match goes on."""
        try:
            self.store.set_status(self.record.id, status)
        except StoreWriteError as e:
            self._unsaved(e)
            self.record = dataclasses.replace(self.record, status=status)
            return
        self._saved()
        self.record = self.store.match(self.record.id)

    # ------------------------------------------------------------------ game master
    def _create_match(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise Refused(400, "the body must be a JSON object")
        why = refusal(self.match, Action("new_match", self.now()))
        if why is not None:
            raise Refused.by_engine(why)
        try:
            if body.get("mode") == "kaboom":
                match: Match | KaboomMatch = self._new_kaboom(body)
            else:
                # What the game master chose, over the defaults; the build's own (layout file,
                # touch sensors) over both. Every match its own deck unless a seed is asked for.
                base = {**self.defaults, "seed": secrets.randbelow(2**31), "layout": self.layout_path,
                        "touch_sensors": self.touch_sensors}
                settings = MatchSettings.from_dict(body, key="", allowed=names("form"), base=base)
                layout = layout_for(settings.layout, settings.side, settings.expansion)
                match = Match(settings, layout, positions=dict(self.positions))
        except ConfigError as e:
            raise Refused(400, "; ".join(str(p) for p in e.problems)) from None
        except ValueError as e:
            raise Refused(400, str(e)) from None
        settings = match.settings
        code = self.next_code
        try:
            match_id = self.store.create_match(settings.as_dict(), dict(self.positions), code)
        except StoreWriteError as e:
            raise self._unsaved(e) from None
        self._saved()
        self._new_next_code()
        self.record = self.store.match(match_id)
        self.match = match
        self._offset = self.clock()
        self._t = 0.0
        self._last_card = None
        self.walk_up_problem = None
        for sub in list(self.subscribers):  # the old join code is void; towers that joined ahead stay
            if getattr(sub, "view", None) == "tower" and getattr(sub, "code", None) != code:
                sub.revoke()
        if isinstance(match, KaboomMatch):
            log.info("match %s set up: Kaboom, %s, %s, penguins %s", match_id, settings.rules.name,
                     settings.difficulty, ", ".join(match.colours) or "to join at the panel")
        else:
            log.info("match %s set up: %s, teams %s, join code %s", match_id, settings.mode,
                     ", ".join(t.name for t in settings.teams), code)
        self._publish([])
        return {"match_id": match_id, "code": code}

    def _new_kaboom(self, body: dict[str, Any]) -> KaboomMatch:
        """A Kaboom mission from the game master's form or the walk-up: what they chose over
        the [kaboom] defaults; the layout and the missions file are the build's. A new draw
        of the first player unless a seed is asked for."""
        unknown = sorted(k for k in body if k not in KaboomSettings.FORM)
        if unknown:
            raise Refused(400, f"{unknown[0]}: unknown setting for Kaboom (expected one of: "
                               f"{', '.join(KaboomSettings.FORM)})")
        raw = {**self.kaboom_defaults, "seed": secrets.randbelow(2**31), **body, "layout": self.layout_path}
        return kaboom_match(raw, dict(self.positions))

    def _action(self, name: Any, params: dict[str, Any]) -> list[dict[str, Any]]:
        """A game master's action, carried out if the engine allows it at this moment; the
        engine's refusal otherwise, as HTTP. No rule is kept here."""
        if name == "new_match":
            raise Refused(400, "action: a new match is set up with POST /api/admin/match")
        t = self._stamp(self.clock())
        if self.active:
            self._advance(t)  # asked at its moment: the timer may have run out meanwhile
        # A parameter sent as null is one left out (the log is written back as TOML, which has no null).
        action = Action(name, t, {k: v for k, v in params.items() if v is not None})
        why = refusal(self.match, action)
        if why is not None:
            raise Refused.by_engine(why)
        return [public_event(e) for e in self._log_and_handle(action)]

    # ------------------------------------------------------------------ fan-out
    def set_language(self, language: str) -> None:
        """The game master chose the pages' language: kept in the store, and every page told
        (each loads that catalog and shows itself again); towers get the card redrawn."""
        if language not in languages():
            raise Refused(400, f"language: {language!r} is not one of this cockpit's languages "
                               f"({', '.join(languages())})")
        self.language = language
        self.store.set_setting("language", language)
        full = self.full_snapshot()
        card_msg = None
        for sub in list(self.subscribers):
            sub.send({"type": "language", "language": language})
            if getattr(sub, "view", None) == "tower":
                card_msg = card_msg or self._card_message(full)
                sub.send(card_msg)

    def subscribe(self, sub: Any) -> None:
        """Add a page's socket; it gets the language and the state now (and the LEDs or the card)."""
        self.subscribers.add(sub)
        sub.send({"type": "language", "language": self.language})
        full = self.full_snapshot()
        sub.send({"type": "state", "state": self.public_state(full)})
        if sub.view == "sim":
            sub.send(sim_leds(full or {"phase": "idle"}, now=self.now()))
        if sub.view == "tower":
            sub.send(self._card_message(full))

    def unsubscribe(self, sub: Any) -> None:
        self.subscribers.discard(sub)

    def _card_message(self, full: dict[str, Any] | None) -> dict[str, Any]:
        return {"type": "card", **self.tower_view(full)}

    def tower_view(self, full: dict[str, Any] | None = None) -> dict[str, Any]:
        """The card in play for the tower: the card, its drawing and its lines in plain words."""
        from .drawing import card_lines, card_svg  # the pages' drawing code, loaded only when a tower looks

        card = self.tower_card(full)
        if card is None or self.match is None:
            return {"card": None, "svg": None, "lines": []}
        layout = self.match.layout
        return {"card": card, "svg": card_svg(card, layout, self.language), "lines": card_lines(card, layout)}

    def _publish(self, events: list[GameEvent]) -> None:
        self._next_tick = self.clock() + self.tick
        full = self.full_snapshot()
        state = {"type": "state", "state": self.public_state(full)}
        leds = None
        card_msg = None
        card = self.tower_card(full)
        card_key = json.dumps(card, sort_keys=True)
        if card_key != self._last_card:
            self._last_card = card_key
            if any(getattr(s, "view", None) == "tower" for s in self.subscribers):
                card_msg = self._card_message(full)
        event_msgs = [{"type": "event", "event": public_event(e)} for e in events]
        for sub in list(self.subscribers):
            for m in event_msgs:
                sub.send(m)
            sub.send(state)
            if sub.view == "sim":
                leds = leds or sim_leds(full or {"phase": "idle"}, now=self.now())
                sub.send(leds)
            elif sub.view == "tower" and card_msg is not None:
                sub.send(card_msg)
        now = self.now()
        for effect in self.effects:
            try:
                effect.on_events(events, full or {"phase": "idle"}, now)
            except Exception:  # an LED or buzzer fault must not stop the game
                log.exception("an effect failed")
