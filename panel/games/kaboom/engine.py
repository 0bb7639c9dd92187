"""The Penguin Kaboom engine: one mission's clocks, alerts and ending, judged input by input.

Penguin Kaboom's only electronic part is its app: one countdown per player colour, the
active player's running; a pass hands the turn to the player with the most time left; a
recharge adds time to the player with the least; an alert sounds every so often and the
players flip an alert card; the mission is closed with a covered button and every
player's finger on their colour. This engine is that app, for the cockpit's panel.

Pure Python like the Airlines engine: time is passed in with every call, nothing here
reads a clock or touches hardware, and the one random choice (who plays when clocks tie)
draws from a generator seeded by the settings, so the same inputs always give the same
events. The house rules it applies are numbered in docs/kaboom.md; "Kaboom rule N" below
points there. Whether an action may happen now is `refusal`'s answer, in the same shape as
the Airlines engine's, so the replay and the service treat both games alike.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Callable
from typing import Any, ClassVar

from panel.core.events import Action, GameEvent, InputEvent
from panel.games.kaboom.events import ACTIONS  # everything a person, a button or a script can ask
from panel.games.kaboom.mapping import KaboomMapping
from panel.core.layout import Layout
from panel.core.clock import Countdown, at
from panel.games.kaboom.settings import COLOURS, KaboomSettings
from panel.core.i18n import N_, Either, Text, Word
from panel.core.refusal import Refusal, unknown


class Phase(enum.Enum):
    SETUP = "setup"  # colours chosen, clocks full, nothing runs until START
    PLAYING = "playing"  # the active player's clock runs, and the alert clock
    PAUSED = "paused"  # the game master or a lost link stopped every clock
    CLOSING = "closing"  # mission confirmed: clocks stopped, waiting for every finger
    FINISHED = "finished"


# Why the clocks stop (Kaboom rule 11): the game master, a restart of the service, a lost
# link to the panel; a resume that names no reason lifts the first two.
PAUSES = ("pause", "restart", "link")
LIFTED_BY_GAME_MASTER = ("pause", "restart")

_PLAY_PHASES = {Phase.PLAYING, Phase.PAUSED, Phase.CLOSING}


def malformed(action: Action) -> Refusal | None:
    """What is wrong with a Kaboom action whatever the moment: its name, its parameters'
    names and values. The scenario reader asks this up front; `refusal` asks it first."""
    why = unknown(action, ACTIONS, N_("{name} is not a Kaboom action (expected one of: {actions})"))
    if why is not None:
        return why
    name, params = action.name, action.params
    takes = ACTIONS[name]
    if "colour" in takes and params.get("colour") not in COLOURS:
        return Refusal(N_("{colour} is not a penguin colour ({colours})"), "colour",
                       colour=repr(params.get("colour")),
                       colours=", ".join(COLOURS))
    if "reason" in params and params["reason"] not in PAUSES:
        return Refusal(N_("{reason} is not a reason to pause ({reasons})"), "reason", reason=repr(params["reason"]),
                       reasons=", ".join(PAUSES))
    return None


class KaboomMatch:
    """One mission. Feed it with `handle(event)` for every InputEvent or Action, in time
    order, and call `advance(now)` when `next_deadline()` comes (a clock at zero, an alert).

    `mapping` says which panel control is which (the layout's [kaboom] table); without
    it only Actions are understood. `layout` is the panel (the service keeps the tokens'
    positions through any match, this one too) and `positions` where its tokens stand at
    set-up; the protection is on at set-up whatever they say (Kaboom rule 9).
    """

    def __init__(self, settings: KaboomSettings, mapping: KaboomMapping | None = None, *,
                 layout: Layout | None = None, positions: dict[str, str] | None = None):
        if mapping is not None:
            missing = [c for c in settings.colours if c not in mapping.players]
            if missing:
                raise ValueError(Text(N_("this panel has no button for the {colour} penguin"),
                                      colour=Either(Word(c) for c in missing)))
        self.settings = settings
        self.rules = settings.rules
        self.mapping = mapping
        # Who plays: the set-up's players, and before the start whoever joins by pressing their colour.
        self.players: dict[str, str | None] = {p.colour: p.name for p in settings.players}
        # The game master's players stay when they press their colour before the start (Kaboom
        # rule 1): only a penguin who joined at the panel leaves by pressing it again.
        self.set_up = frozenset(self.players)
        self.clocks = {c: Countdown(self.rules.time_per_player) for c in self.players}
        self.alert_clock = Countdown(self.rules.alert_seconds)
        self._rng = random.Random(settings.seed)
        self.phase = Phase.SETUP
        self.active: str | None = None
        self.face_up = self.rules.alerts_face_up
        self.waiting = 0  # alerts sounded that no one has reported flipped yet
        self.sounded = 0
        self.layout = layout
        self.positions: dict[str, str] = layout.start_positions() if layout is not None else {}
        self.positions.update({k: v for k, v in (positions or {}).items() if k in self.positions})
        # Kaboom rule 9: every mission starts protected, wherever the lever stands at its
        # set-up (a lever an Airlines card or the last mission left down lifts nothing): the
        # players lift the protection during the mission, by moving it.
        self.cover_open = False
        self.held: set[str] = set()  # colours whose button is down now
        self.pause_reasons: set[str] = set()
        self.outcome: str | None = None
        self.reason: str | None = None  # why it failed: clock_out or last_alert
        self.failed_colour: str | None = None
        self.ended_by: str | None = None  # complete or abandoned, once the mission is over
        self.now = 0.0
        self._allowed: dict[str, dict[str, list]] | None = None  # kept until the next input or advance

    # ------------------------------------------------------------------ public API

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def clock_running(self) -> bool:
        """A clock runs: the pages and lights move with time alone."""
        return self.phase is Phase.PLAYING

    def time_left(self, colour: str, now: float | None = None) -> float:
        return self.clocks[colour].left(self.now if now is None else max(now, self.now))

    def next_deadline(self) -> float | None:
        if self.phase is not Phase.PLAYING:
            return None
        return min(self.clocks[self.active].deadline, self.alert_clock.deadline)

    def advance(self, now: float) -> list[GameEvent]:
        """Run the clocks to `now`: the active clock may reach zero, alerts may sound."""
        out: list[GameEvent] = []
        self._allowed = None
        while self.phase is Phase.PLAYING:
            out_at = self.clocks[self.active].deadline
            alert_at = self.alert_clock.deadline
            if out_at <= now and out_at <= alert_at:
                # A clock reaching zero at the very moment an alert is due: the mission is
                # already lost (Kaboom rule 8), no alert sounds.
                self.now = max(self.now, out_at)
                self._fail("clock_out", out_at, out, colour=self.active)
            elif alert_at <= now:
                self.now = max(self.now, alert_at)
                self._alert(alert_at, out)
            else:
                break
        self.now = max(self.now, now)
        return out

    def handle(self, event: InputEvent | Action) -> list[GameEvent]:
        """Judge one input at its time `event.t` (the clocks first run to it). An action
        `refusal` refuses at that moment changes nothing (Kaboom rule 13)."""
        out = self.advance(event.t)
        t = self.now
        if isinstance(event, Action):
            self._act(event, t, out)
            return out
        self._allowed = None
        if event.control in self.positions and isinstance(event.value, str):
            self.positions[event.control] = event.value
        role = self.mapping.role(event.control) if self.mapping is not None else None
        if role is None:
            return out
        kind, colour = role
        if kind == "colour" and isinstance(event.value, bool):
            (self.held.add if event.value else self.held.discard)(colour)
        elif kind == "cover" and isinstance(event.value, str):
            self._cover(event.value == self.mapping.cover_open, t, out)
        asked = self.asks(event)
        if asked is not None:
            self._act(asked, t, out)
        elif kind == "colour" and event.value is True and self.phase is Phase.CLOSING:
            self._check_fingers(t, out)  # Kaboom rule 10
        return out

    def asks(self, event: InputEvent) -> Action | None:
        """The action a control's change asks for now: a player's colour pressed during the
        mission is a pass, the recharge button a recharge, the mission button a confirm...
        None for a release, a finger while the mission is being closed, the protection
        moving (a fact, never refused), or a control the game does not use."""
        role = self.mapping.role(event.control) if self.mapping is not None else None
        if role is None or event.value is not True:
            return None
        kind, colour = role
        if kind == "colour":
            if self.phase is Phase.SETUP:  # Kaboom rule 1: a penguin joins, or leaves, before the start
                leaves = colour in self.players and colour not in self.set_up
                return Action("leave" if leaves else "join", event.t, {"colour": colour})
            return None if self.phase is Phase.CLOSING else Action("pass", event.t, {"colour": colour})
        if kind == "cover":
            return None
        return Action("confirm" if kind == "mission" else kind, event.t)

    def refusal(self, action: Action) -> Refusal | None:
        """May `action` happen now (at `self.now`), and if not, why, in words for the
        players: the one answer the engine obeys and the replay and the service ask. A
        request wrong in itself names the parameter at fault."""
        why = malformed(action)
        if why is not None:
            return why
        name, params = action.name, action.params
        if name == "new_match":
            return None if self.finished else Refusal(N_("a mission is still being played: abandon it first"))
        if self.phase is Phase.FINISHED:
            return Refusal(N_("the mission is over: set up a new one"))
        if name == "abandon":  # Kaboom rule 12
            return None
        family = self._REFUSALS.get(name, KaboomMatch._playing_refusal)
        return family(self, name, params)

    def _setup_refusal(self, name: str, params: dict[str, Any]) -> Refusal | None:  # Kaboom rule 1
        colour = params.get("colour")
        if self.phase is not Phase.SETUP:
            return Refusal(N_("the mission has already started"))
        if name == "start":
            return None if self.players else Refusal(N_("no player yet: each player presses their colour to join"))
        if self.mapping is not None and colour not in self.mapping.players:
            return Refusal(N_("this panel has no button for the {colour} penguin"), "colour", colour=Word(colour))
        if name == "join":
            joined = colour in self.players
            return Refusal(N_("the {colour} penguin has already joined"), colour=Word(colour)) if joined else None
        if colour not in self.players:
            return Refusal(N_("the {colour} penguin has not joined"), colour=Word(colour))
        return None

    def _cover_refusal(self, name: str, params: dict[str, Any]) -> Refusal | None:
        if self.cover_open == (name == "lift_cover"):
            return Refusal(N_("the mission button's cover is already lifted") if self.cover_open else
                           N_("the mission button's cover is already down"))
        return None

    def _alert_refusal(self, name: str, params: dict[str, Any]) -> Refusal | None:  # Kaboom rules 6 and 7
        if self.phase is Phase.SETUP:
            return Refusal(N_("the mission has not started"))
        if name == "alert_flipped":
            return None if self.waiting else Refusal(N_("no alert is waiting to be flipped"))
        return None if self.face_up else Refusal(N_("no alert card is face up"))

    def _pause_refusal(self, name: str, params: dict[str, Any]) -> Refusal | None:  # Kaboom rule 11
        if self.phase not in (Phase.PLAYING, Phase.PAUSED):
            return Refusal(N_("no clock is running to pause"))
        return Refusal(N_("already paused")) if params.get("reason", "pause") in self.pause_reasons else None

    def _resume_refusal(self, name: str, params: dict[str, Any]) -> Refusal | None:
        if not any(r in self.pause_reasons for r in self._lifted_by(params.get("reason"))):
            if "link" in self.pause_reasons:
                return Refusal(N_("the panel's link is lost: the mission resumes by itself when the panel is heard "
                               "again (check its USB cable)"))
            return Refusal(N_("not paused"))
        return None

    def _playing_refusal(self, name: str, params: dict[str, Any]) -> Refusal | None:
        """pass, recharge, confirm: only while the clocks run."""
        phase = self.phase
        if phase is Phase.SETUP:
            return Refusal(N_("the mission has not started: press START"))
        if phase is Phase.PAUSED:
            return Refusal(N_("the game is paused"))
        if phase is Phase.CLOSING:
            return Refusal(N_("the mission is being closed: every player puts a finger on their colour"))
        if name == "pass":  # Kaboom rule 2
            colour = params.get("colour")
            if colour not in self.players:
                return Refusal(N_("no player has the {colour} penguin"), "colour", colour=Word(colour))
            if colour != self.active:
                return Refusal(N_("it is the {colour} penguin's turn"), colour=Word(self.active))
            return None
        if name == "confirm" and not self.cover_open:
            return Refusal(N_("lift the mission button's cover first"))  # Kaboom rule 9
        return None

    # Each action's family of checks; any other action (pass, recharge, confirm) is played on the clock.
    _REFUSALS: ClassVar[dict[str, Callable[["KaboomMatch", str, dict[str, Any]], Refusal | None]]] = {
        "join": _setup_refusal, "leave": _setup_refusal, "start": _setup_refusal,
        "lift_cover": _cover_refusal, "lower_cover": _cover_refusal,
        "alert_flipped": _alert_refusal, "alert_deactivated": _alert_refusal,
        "pause": _pause_refusal, "resume": _resume_refusal,
    }

    @staticmethod
    def _lifted_by(reason: Any) -> tuple[str, ...]:
        return LIFTED_BY_GAME_MASTER if reason is None else (reason,)

    @property
    def colours(self) -> tuple[str, ...]:
        """The players' colours, in the order they were set up or joined."""
        return tuple(self.players)

    def allowed(self) -> dict[str, dict[str, list]]:
        """The actions `refusal` allows now, with the colours it allows them for (joining,
        leaving, passing), JSON-ready for the pages like the Airlines engine's answer. Kept
        until the next input or advance."""
        if self._allowed is None:
            out: dict[str, dict[str, list]] = {}
            for name, takes in ACTIONS.items():
                if "colour" in takes:
                    ok = [c for c in COLOURS if self.refusal(Action(name, self.now, {"colour": c})) is None]
                    if ok:
                        out[name] = {"colour": ok}
                elif self.refusal(Action(name, self.now)) is None:
                    out[name] = {}
            self._allowed = out
        return {name: {k: list(v) for k, v in options.items()} for name, options in self._allowed.items()}

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """The whole visible state, JSON-ready, for pages and lights."""
        now = self.now if now is None else max(now, self.now)
        rules = self.rules
        return {
            "game": "kaboom",
            "phase": self.phase.value,
            "mission": {"number": self.settings.mission, "name": rules.name, "difficulty": self.settings.difficulty,
                        **rules.as_dict()},
            "players": [{"colour": c, "name": name, "time_left": self.clocks[c].left(now),
                         "running": self.clocks[c].running, "held": c in self.held}
                        for c, name in self.players.items()],
            "active": self.active,
            "start_seconds": rules.time_per_player,
            "alerts": {"total": rules.alerts, "face_up": self.face_up, "remaining": rules.alerts - self.face_up,
                       "waiting": self.waiting, "sounded": self.sounded,
                       "next_in": self.alert_clock.left(now) if self.phase in _PLAY_PHASES else None},
            "cover_open": self.cover_open,
            "paused_for": sorted(self.pause_reasons),
            "positions": dict(self.positions),
            "ended_by": self.ended_by,
            "actions": self.allowed(),
            "finished": self.finished,
            "outcome": self.outcome,
            "reason": self.reason,
            "failed_colour": self.failed_colour,
            "panel": self.mapping.as_dict() if self.mapping is not None else None,  # which control is which
        }

    # ------------------------------------------------------------------ actions

    def _act(self, action: Action, t: float, out: list[GameEvent]) -> None:
        self._allowed = None
        if self.refusal(action) is not None:
            return  # Kaboom rule 13: refused, it changes nothing
        name, params = action.name, action.params
        if name == "join":
            colour = params["colour"]
            self.players[colour] = None  # called by their colour
            self.clocks[colour] = Countdown(self.rules.time_per_player)
            out.append(GameEvent(t, "player_joined", {"colour": colour, "players": list(self.players)}))
        elif name == "leave":
            colour = params["colour"]
            del self.players[colour], self.clocks[colour]
            out.append(GameEvent(t, "player_left", {"colour": colour, "players": list(self.players)}))
        elif name == "start":
            self._start(t, out)
        elif name == "pass":
            self._pass(t, out)
        elif name == "recharge":
            self._recharge(t, out)
        elif name in ("lift_cover", "lower_cover"):
            self._cover(name == "lift_cover", t, out)
        elif name == "confirm":
            self._confirm(t, out)
        elif name == "alert_flipped":
            self._alert_flipped(t, out)
        elif name == "alert_deactivated":
            self.face_up -= 1
            out.append(GameEvent(t, "alert_deactivated", self._alert_counts()))
        elif name == "pause":
            self._pause(params.get("reason", "pause"), t, out)
        elif name == "resume":
            for reason in self._lifted_by(params.get("reason")):
                if reason in self.pause_reasons:
                    self._resume(reason, t, out)
        elif name == "abandon":
            self._stop_clocks(t)
            self._finish("abandoned", None, t, out, "mission_abandoned")
            self.ended_by = "abandoned"

    def _draw(self, candidates: list[str]) -> str:
        """Kaboom rule 3: one of equals, drawn from the seeded generator (the same seed and inputs
        always draw the same)."""
        return candidates[0] if len(candidates) == 1 else self._rng.choice(candidates)

    def _start(self, t: float, out: list[GameEvent]) -> None:
        """Kaboom rule 1: every clock full; the first player is drawn, as every clock ties."""
        first = self._draw(list(self.colours))
        self.phase = Phase.PLAYING
        self.active = first
        self.clocks[first].start(t)
        self.alert_clock.start(t)
        out.append(GameEvent(t, "mission_started", {"first": first, "players": list(self.colours),
                                                    "names": {c: n for c, n in self.players.items() if n},
                                                    "seconds": self.rules.time_per_player,
                                                    **self._alert_counts()}))

    def _pass(self, t: float, out: list[GameEvent]) -> None:
        """Kaboom rule 2: the turn goes to the other player with the most time left."""
        passer = self.active
        self.clocks[passer].stop(t)
        others = [c for c in self.colours if c != passer] or [passer]
        most = max(self.clocks[c].left(t) for c in others)
        tied = [c for c in others if self.clocks[c].left(t) == most]
        nxt = self._draw(tied)
        self.active = nxt
        self.clocks[nxt].start(t)
        out.append(GameEvent(t, "turn_passed", {"from": passer, "to": nxt,
                                                "why": "tie_break" if len(tied) > 1 else "pass",
                                                "time_left": self.clocks[passer].left(t),
                                                "to_time_left": self.clocks[nxt].left(t)}))

    def _recharge(self, t: float, out: list[GameEvent]) -> None:
        """Kaboom rule 4: the player with the least time left gets the mission's recharge,
        never above the starting time when the mission says so."""
        least = min(self.clocks[c].left(t) for c in self.colours)
        tied = [c for c in self.colours if self.clocks[c].left(t) == least]
        to = self._draw(tied)
        seconds = float(self.rules.recharge_seconds)
        capped = False
        if not self.rules.recharge_above_start:
            room = max(0.0, at(self.rules.time_per_player - least))
            if room < seconds:
                seconds, capped = room, True
        self.clocks[to].add(seconds, t)
        out.append(GameEvent(t, "recharge", {"to": to, "seconds": seconds, "capped": capped,
                                             "before": least, "time_left": self.clocks[to].left(t)}))

    def _cover(self, lifted: bool, t: float, out: list[GameEvent]) -> None:
        """The protection is a real control: where it stands is a fact even when nothing
        is judged (set-up, pause, after the end); it is told while the mission lasts."""
        if lifted == self.cover_open:
            return
        self.cover_open = lifted
        if not self.finished:
            out.append(GameEvent(t, "cover_lifted" if lifted else "cover_lowered", {}))

    def _confirm(self, t: float, out: list[GameEvent]) -> None:
        """Kaboom rule 9: the mission button, cover lifted, closes the mission: the clocks stop and
        every player puts a finger on their colour (Kaboom rule 10)."""
        self._stop_clocks(t)
        self.phase = Phase.CLOSING
        out.append(GameEvent(t, "mission_confirmed", {"by": self.active, "time_left": self._times(t)}))
        self._check_fingers(t, out)

    def _check_fingers(self, t: float, out: list[GameEvent]) -> None:
        if all(c in self.held for c in self.colours):
            self._finish("success", None, t, out, "mission_accomplished")

    def _alert(self, t: float, out: list[GameEvent]) -> None:
        """Kaboom rule 5: an alert every `alert_seconds` of play; the players flip an alert card."""
        self.sounded += 1
        self.waiting += 1
        self.alert_clock.reset(self.rules.alert_seconds, t)
        out.append(GameEvent(t, "alert", {"number": self.sounded, **self._alert_counts()}))

    def _alert_flipped(self, t: float, out: list[GameEvent]) -> None:
        """Kaboom rule 7: one alert card more face up; Kaboom rule 8: the last one face up loses the mission."""
        self.waiting -= 1
        self.face_up += 1
        out.append(GameEvent(t, "alert_flipped", self._alert_counts()))
        if self.face_up >= self.rules.alerts:
            self._stop_clocks(t)
            self._fail("last_alert", t, out)

    def _alert_counts(self) -> dict[str, int]:
        return {"face_up": self.face_up, "remaining": self.rules.alerts - self.face_up, "waiting": self.waiting}

    def _pause(self, reason: str, t: float, out: list[GameEvent]) -> None:
        """Kaboom rule 11: every clock stops until the last reason to pause is over."""
        if not self.pause_reasons:
            self._stop_clocks(t)
            self.phase = Phase.PAUSED
        self.pause_reasons.add(reason)
        out.append(GameEvent(t, "paused", {"reason": reason}))

    def _resume(self, reason: str, t: float, out: list[GameEvent]) -> None:
        self.pause_reasons.discard(reason)
        if self.pause_reasons:
            return
        self.phase = Phase.PLAYING
        self.clocks[self.active].start(t)
        self.alert_clock.start(t)
        out.append(GameEvent(t, "resumed", {"reason": reason}))

    # ------------------------------------------------------------------ the end

    def _stop_clocks(self, t: float) -> None:
        for clock in self.clocks.values():
            clock.stop(t)
        self.alert_clock.stop(t)

    def _times(self, t: float) -> dict[str, float]:
        return {c: self.clocks[c].left(t) for c in self.colours}

    def _fail(self, reason: str, t: float, out: list[GameEvent], colour: str | None = None) -> None:
        """Kaboom rule 8: a clock at zero, or the last alert card face up."""
        self._stop_clocks(t)
        self.reason = reason
        self.failed_colour = colour
        self._finish("failed", reason, t, out, "mission_failed", colour=colour)

    def _finish(self, outcome: str, reason: str | None, t: float, out: list[GameEvent], event: str,
                **extra: Any) -> None:
        self.phase = Phase.FINISHED
        self.outcome = outcome
        self.ended_by = "complete"  # won or lost, the mission is over (abandon says otherwise)
        self.pause_reasons.clear()
        details: dict[str, Any] = {"outcome": outcome}
        if reason is not None:
            details["reason"] = reason
        details.update({k: v for k, v in extra.items() if v is not None})
        details["time_left"] = self._times(t)
        out.append(GameEvent(t, event, details))
