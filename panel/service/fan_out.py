"""Telling everyone what happened: the panel's lights and sounds first (they are the answer
to the press), then the log's new entries handed to the store, then every page's
socket, each message made once however many pages are connected; the towers get the card
in play, drawn off the owner's turn.

Called on the owner's turn only, after every logged input, action and deadline.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from panel.core.clock import SLACK
from panel.core.errors import Refused
from panel.core.events import Action, GameEvent
from panel.core.i18n import NOT_A_LANGUAGE, languages
from panel.core.refusal import Refusal
from panel.server.message import Message
from panel.service.effects import sim_leds
from panel.service.presentation import Presentation

if TYPE_CHECKING:
    from panel.service.cockpit import Cockpit

log = logging.getLogger("penguin-panel")

IDLE = {"phase": "idle"}  # what the effects draw with no match on the cockpit (read, never changed)


class FanOut:
    """`owner`'s match told to its effects and to the pages' sockets (`subscribers`)."""

    def __init__(self, owner: "Cockpit", presentation: Presentation):
        self.owner = owner
        self.presentation = presentation
        self.subscribers: set[Any] = set()
        self.next_tick = 0.0  # clock time of the next state push a running turn needs
        self._last_card: str | None = None  # the key of the card the towers were last sent
        self._card_seen: tuple | None = None  # what that key was made from (see _card_changed)
        self._tasks: set[asyncio.Task] = set()

    def publish(self, events: list[GameEvent]) -> None:
        o = self.owner
        self.next_tick = o.clock() + o.tick
        now = o.now()
        # The panel's lights and sounds first: they are the answer to the press, drawn from
        # the part of the state they need; the pages' whole state is made after them.
        if o.effects:
            lights = IDLE if o.match is None else o.lights_at(now)  # (lights_snapshot(now), without its call)
            for effect in o.effects:
                try:
                    effect.on_events(events, lights, now)
                except Exception:  # an LED or buzzer fault must not stop the game
                    log.exception("an effect failed")
        o.saving.flush()  # the log's entries the engine has judged: now the store's
        full = None if o.match is None else o.match.snapshot(now)  # (full_snapshot(), at the lights' moment)
        if self.subscribers:
            # Each message made (and serialised) once, however many pages are connected.
            present = self.presentation
            messages = [Message(type="event", event=e) for e in present.events(events)] if events else []
            messages.append(Message(type="state", state=present.state(full)))
            leds = None
            for sub in list(self.subscribers):
                for message in messages:
                    sub.send(message)
                if sub.view == "sim":
                    leds = leds or Message(sim_leds(full or {"phase": "idle"}, now=now, layout_path=o.layout_path))
                    sub.send(leds)
        self._card_changed(full)

    def refused(self, control: str, asked: Action, why: Refusal) -> None:
        """A press on the panel (or /sim) whose action the rules refuse: every page told
        why, in the players' words ("it is the red penguin's turn"); a game's pages say it."""
        message = Message(type="refused", refused=self.presentation.refusal(control, asked, why))
        for sub in list(self.subscribers):
            sub.send(message)

    def frames(self, now: float) -> None:
        """The effects whose deadline has come (LED frames, buzzer notes between game events) updated."""
        lights = None
        for effect in self.owner.effects:
            d = getattr(effect, "deadline", None)
            if d is not None and d <= now + SLACK:
                lights = lights or self.owner.lights_snapshot(now) or IDLE
                try:
                    effect.update(lights, max(now, d))
                except Exception:
                    log.exception("an effect failed")

    def effects_wait(self, now: float) -> float | None:
        """Seconds until the next effect's frame, None when none waits."""
        due = [d for d in (getattr(e, "deadline", None) for e in self.owner.effects) if d is not None]
        return max(0.0, min(due) - now) if due else None

    def subscribe(self, sub: Any) -> None:
        """Add a page's socket; it gets the language and the state now (and the LEDs or the card)."""
        o = self.owner
        self.subscribers.add(sub)
        sub.send(Message(type="language", language=o.language))
        full = o.full_snapshot()
        sub.send(Message(type="state", state=self.presentation.state(full)))
        if sub.view == "sim":
            sub.send(Message(sim_leds(full or {"phase": "idle"}, now=o.now(), layout_path=o.layout_path)))
        if sub.view == "tower":
            self._spawn(self._send_card([sub]))

    def unsubscribe(self, sub: Any) -> None:
        self.subscribers.discard(sub)

    def set_language(self, language: str) -> None:
        """The game master chose the pages' language: kept in the store, and every page told
        (each loads that catalog and shows itself again), with the state in it (the words the
        service says: plain names, problems); towers get the card redrawn."""
        if language not in languages():
            raise Refused(400, NOT_A_LANGUAGE, param="language", value=repr(language), languages=", ".join(languages()))
        o = self.owner
        o.language = language
        o.store.set_setting("language", language)
        full = o.full_snapshot()
        messages = (Message(type="language", language=o.language),
                    Message(type="state", state=self.presentation.state(full)))
        for sub in list(self.subscribers):
            for message in messages:
                sub.send(message)
        self._card_changed(full)

    def revoke_towers(self, code: str) -> None:
        """A new match: the old join code is void; towers that joined ahead (with `code`) stay."""
        for sub in list(self.subscribers):
            if getattr(sub, "view", None) == "tower" and getattr(sub, "code", None) != code:
                sub.revoke()

    def forget_card(self) -> None:
        """A match newly on the cockpit: its first card goes to the towers whatever the last was."""
        self._last_card = self._card_seen = None

    def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    # ------------------------------------------------------------------ the tower's card
    def _card_changed(self, full: dict[str, Any] | None) -> None:
        # The card's key is made again only when what it is made from is not the very same:
        # the engine keeps its view (and the card in it) across most presses, read and never
        # changed, so the same card object is the same card. (Held here: its id cannot be reused.)
        o = self.owner
        seen = (full.get("card") if full else None, o.match, o.active, o.language)
        last = self._card_seen
        if last is not None and last[0] is seen[0] and last[1] is seen[1] and last[2] == seen[2] and last[3] == seen[3]:
            return
        self._card_seen = seen
        present = self.presentation
        key = present.card_key(present.tower_card(full))
        if key != self._last_card:
            self._last_card = key
            towers = [s for s in self.subscribers if getattr(s, "view", None) == "tower"]
            if towers:
                self._spawn(self._send_card(towers))

    async def _send_card(self, towers: list[Any]) -> None:
        key = self._last_card
        view = await self.presentation.tower_view()
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
