"""The rules engine: one match, judged input by input.

Pure Python: time is passed in with every call, nothing here reads a clock, touches
hardware, the network or a file. The same inputs in the same order give the same game
events, so a recorded input log replays to the same result by construction.

This is the one place the rules live: the house rules are written down in docs/rules.md,
and "rule N" in the comments below is rule N there. Whether an action may happen now is
answered by `refusal` (and `Match.refusal`), which the engine obeys itself and which the
replay, the service and the pages ask instead of keeping guards of their own.
"""

from __future__ import annotations

import enum
import math
from dataclasses import replace
from collections.abc import Callable
from typing import Any, ClassVar

from panel.games.airlines.cards import Card, card_section, check_card, sequence_buttons, with_colours
from panel.core.events import Action, GameEvent, InputEvent
from panel.games.airlines.events import ACTIONS
from panel.core.layout import Layout
from panel.games.airlines.engine import cooperative
from panel.core.clock import at
from panel.games.airlines.engine.draw_pile import DrawPile
from panel.core.i18n import N_, Either, Text, Word
from panel.core.refusal import Refusal, unknown
from panel.games.airlines.engine.settings import CREW, MatchSettings

CARDS_PER_TURN = 5  # rule 8
MISTAKES_PER_TURN = 2  # rule 8
ALLOWED_KEPT = 256  # answers of allowed() kept, one per _refusal_key() (a match meets a few dozen)
LIT_ACTIONS = ("start_turn", "flip")  # the actions whose buttons light when allowed (show.py: START, FLIP)
# Why the timer of a turn in progress stops (rule 18), and the ones a resume that names no
# reason lifts: the game master's own pause and the pause after a restart.
PAUSES = ("pause", "restart", "link", "challenge")
LIFTED_BY_GAME_MASTER = ("pause", "restart")
# When the game master's end takes effect (rule 25): now (the turn in progress is not scored)
# or at the end of the round (every team plays as many turns). Left out, "now".
END_WHEN = ("now", "round")


def malformed(action: Action, layout: Layout | None = None) -> Refusal | None:
    """What is wrong with an action whatever the moment: its name, its parameters' names
    and types. The scenario reader asks this up front; `refusal` asks it first."""
    why = unknown(action, ACTIONS)
    if why is not None:
        return why
    name, params = action.name, action.params
    if "reason" in params:
        reason = params["reason"]
        if reason == "challenge":
            return Refusal(N_("a challenge stops the timer when it is called and the ruling starts it again"), "reason")
        if reason not in PAUSES:
            return Refusal(N_("{reason} is not a reason to pause ({reasons})"), "reason", reason=repr(reason),
                           reasons=Either(p for p in PAUSES if p != "challenge"))
    if name == "challenge":
        team, card = params.get("team"), params.get("card", "current")
        if team is not None and not isinstance(team, str):
            return Refusal(N_("must be the name of the team calling the challenge"), "team")
        if card != "current" and (not isinstance(card, int) or isinstance(card, bool) or card < 0):
            return Refusal(N_("must be \"current\" or the index of a card completed this turn "
                              "(0 for the first)"), "card")
    elif name == "rule" and not isinstance(params.get("upheld"), bool):
        return Refusal(N_("must be true (upheld) or false (rejected)"), "upheld")
    elif name == "end" and params.get("when", "now") not in END_WHEN:
        return Refusal(N_("must be {now} (the turn in progress is not scored) or {round} (the round is played "
                          "to its end first)"), "when", now='"now"', round='"round"')
    elif name == "touch":
        control = params.get("control")
        if not isinstance(control, str) or (layout is not None and control not in layout.tokens):
            return Refusal(N_("{control} is not a token of this panel"), "control", control=repr(control))
    return None


def refusal(match: "Match | None", action: Action) -> Refusal | None:
    """May `action` happen now, and if not, why: the one answer every layer asks. With no
    match set up, only a new match may (rule 1)."""
    if match is not None:
        return match.refusal(action)
    why = malformed(action)
    if why is None and action.name != "new_match":
        why = Refusal(N_("no match: set one up first"))
    return why


def allowed_actions(match: "Match | None") -> dict[str, dict[str, list]]:
    """The actions `refusal` allows now, each with the parameter values it allows (a
    challenge's teams and cards, a ruling's verdicts), JSON-ready for the pages."""
    if match is not None:
        return match.allowed()
    return {name: {} for name in ACTIONS if refusal(None, Action(name, 0.0)) is None}


class Phase(enum.Enum):
    BETWEEN_TURNS = "between_turns"  # panel live, nothing judged
    IN_TURN = "in_turn"
    PAUSED = "paused"  # a turn in progress with its timer stopped (challenge, game master, lost link)
    FINISHED = "finished"


class _Turn:
    """What one turn in progress holds; thrown away when the turn ends."""

    def __init__(self, team: int, started: float, turn_seconds: float, pool: int):
        self.team = team
        self.started = started
        self.deadline = at(started + turn_seconds)
        self.remaining_when_paused: float | None = None
        self.pause_reasons: set[str] = set()
        self.held = 0
        self.pool = pool
        self.mistakes = 0
        self.stuck: str | None = None
        self.completed: list[Card] = []
        self.card: Card | None = None
        self.card_drawn_at = 0.0
        self.pressed: set[str] = set()  # card buttons pressed since the card was drawn
        self.entry: list[str] = []  # buttons entered on a sequence-type card since the last OK
        self.origin: dict[str, str] = {}  # token positions when the card came up
        self.faulted: set[str] = set()  # tokens that already made their one mistake on this card
        self.touched: set[str] = set()  # with touch sensors: card tokens touched since the draw
        self.draws = 0  # cards dealt this turn: the first one takes the panel as it stands
        self.forced = False  # the card in play scores for nothing but no other card could be dealt
        self.unjudged: set[str] = set()  # tokens last moved while paused: nothing is judged then (rule 17)
        self.settled_paused: set[str] = set()  # tokens moved in turn that settled while paused
        self.challenge: dict[str, Any] | None = None



def _settle_order(item: tuple[str, float]) -> tuple[float, str]:
    """The order tokens settle in when several are due: by time, then by id (deterministic)."""
    return item[1], item[0]

class Match:
    """A whole match: turns, rounds, scores, and the judge for the card in play.

    Feed it with `handle(event)` for every InputEvent or Action, in time order, and call
    `advance(now)` when `next_deadline()` comes (timer expiry, a token's settle time).
    """

    CLOCK = ("time_left",)  # the snapshot's one field that moves with time alone (kept_view)

    def __init__(self, settings: MatchSettings, layout: Layout, cards: list[Card] | None = None, *,
                 positions: dict[str, str] | None = None, shuffle: bool | None = None):
        if layout.side != settings.side or layout.expansion != settings.expansion:
            raise ValueError(Text(N_("layout is for the {side} side (expansion {expansion}), settings ask for the "
                                     "{wanted} side (expansion {wanted_expansion})"), side=Word(layout.side),
                                  expansion=layout.expansion, wanted=Word(settings.side),
                                  wanted_expansion=settings.expansion))
        self.settings = settings
        # (the settings never change: read once, not asked at every press's light through current_team)
        self.cooperative: bool = settings.mode == "cooperative"
        # The teams as the pages and the lights show them (from the settings: made once; shared, never changed).
        self._teams = [{"name": t.name, "players": list(t.players)} for t in settings.teams]
        self.layout = layout
        if cards is None:
            from panel.games.airlines.deckgen import generate_deck

            cards = generate_deck(layout, seed=settings.seed).cards
            shuffle = True if shuffle is None else shuffle
        cards = [with_colours(replace(c, number=c.number if c.number is not None else i + 1), layout)
                 for i, c in enumerate(cards)]
        for c in cards:
            why = check_card(c, layout)
            if why:
                raise ValueError(Text(N_("card {card} cannot be played on this layout: {why}"), card=c.label(),
                                      why=why[0]))
        if not cards:
            raise ValueError(Text(N_("the deck has no cards")))
        self._pile = DrawPile(cards, seed=settings.seed, shuffle=bool(shuffle))
        self._by_number = {}
        for c in cards:
            self._by_number.setdefault(c.number, c)
        self._settle = settings.settle
        self.place(positions)
        self.phase = Phase.BETWEEN_TURNS
        self.now = 0.0
        if settings.mode == "cooperative":
            # One crew of every player, whatever teams were listed; the tower passes round by round (rule 24).
            self._coop_players = settings.players
            self._coop_rounds = cooperative.rounds_for(len(self._coop_players))
            self._coop_name = settings.teams[0].name if len(settings.teams) == 1 else CREW
            self.scores: dict[str, int] = {self._coop_name: 0}
        else:
            self.scores = {t.name: 0 for t in settings.teams}
        self.round = 1
        self._next_team = 0
        self._turn: _Turn | None = None
        self.winner: list[str] | None = None
        self.tier: str | None = None
        self.outcome: str | None = None
        self.ended_by: str | None = None  # complete, ended or abandoned, once the match is over
        self.ending = False  # the game master ends the match at the end of this round (rule 25)
        self.unscored: dict[str, Any] | None = None  # the turn in progress an early end left unscored
        self.decided: dict[str, Any] | None = None  # an end with unequal turns: what decided it (_decide)
        self.unplayed = False  # the game master ended it before any turn was scored (rule 25)
        # allowed() by _refusal_key(): all that `refusal` reads, so an answer holds whenever
        # its key comes back (each turn's end, each card of a team's turn: asked once each).
        self._allowed: dict[tuple, dict[str, dict[str, list]]] = {}
        self._view: dict[str, Any] | None = None  # snapshot() but the clock, until the next input or advance
        self._lights: dict[str, Any] | None = None  # lights() but the clock, likewise
        self._rest: dict[str, Any] | None = None  # the view's fields beyond the lights', likewise
        self._past: tuple[int, dict[str, Any]] | None = None  # the finished turns' part of it, per len(history)
        self.history: list[dict[str, Any]] = []  # one entry per finished turn, for the debrief

    # ------------------------------------------------------------------ public API

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def clock_running(self) -> bool:
        """The turn's timer runs: the pages and lights move with time alone."""
        return self.phase is Phase.IN_TURN

    @property
    def current_team(self) -> str:
        """The team playing now, or the team that plays next between turns."""
        if self.cooperative:
            return self._coop_name
        i = self._turn.team if self._turn else self._next_team
        return self.settings.teams[i].name

    def roles(self) -> tuple[str | None, tuple[str, ...]]:
        if self.cooperative:
            players = self._coop_players
            i = (self.round - 1) % len(players)
            return players[i], players[:i] + players[i + 1:]
        i = self._turn.team if self._turn else self._next_team
        return self.settings.teams[i].roles(self.round)

    def card(self, number: int) -> Card | None:
        """The deck's card with this number (the pages draw completed cards by number)."""
        return self._by_number.get(number)

    def round_left(self) -> list[str]:
        """The teams still to finish their turn of this round, the one playing now first:
        none when every team has played as many turns (rules 23 and 24)."""
        if self.finished:
            return []
        if self.cooperative:
            return [self._coop_name] if self._turn else []
        i = self._turn.team if self._turn else self._next_team
        if self._turn is None and i == 0:
            return []
        return [t.name for t in self.settings.teams[i:]]

    def time_left(self, now: float | None = None) -> float | None:
        turn = self._turn
        if turn is None:
            return None
        if turn.remaining_when_paused is not None:
            return turn.remaining_when_paused
        now = self.now if now is None else now
        return max(0.0, turn.deadline - now)

    def next_deadline(self) -> float | None:
        due = list(self._settle_due.values())
        if self._turn and self.phase is Phase.IN_TURN:
            due.append(self._turn.deadline)
        return min(due) if due else None

    def advance(self, now: float) -> list[GameEvent]:
        """Run the clock to `now`: settle times elapse and the turn timer may run out. The
        views kept (`snapshot`, `lights`) leave the clock out: only a settle or the timer
        running out makes them again."""
        out: list[GameEvent] = []
        while True:
            due_token = min(self._settle_due.items(), key=_settle_order) if self._settle_due else None
            timer = self._turn.deadline if self._turn and self.phase is Phase.IN_TURN else None
            if due_token is not None and due_token[1] <= now and (timer is None or due_token[1] <= timer):
                # A token settling at the very moment the timer runs out counts for the crew (rule 5).
                tid, t = due_token
                self._view = self._lights = self._rest = None
                self.now = max(self.now, t)
                del self._settle_due[tid]
                self._settled[tid] = self.positions[tid]
                if self.phase is Phase.IN_TURN:
                    self._judge_token(tid, t, out)
                elif self.phase is Phase.PAUSED and self._turn and tid not in self._turn.unjudged:
                    self._turn.settled_paused.add(tid)  # moved in turn: judged when the timer runs again
                continue
            if timer is not None and timer <= now:
                self._view = self._lights = self._rest = None
                self.now = max(self.now, timer)
                self._end_turn("time", timer, out)
                continue
            break
        self.now = max(self.now, now)
        return out

    def handle(self, event: InputEvent | Action) -> list[GameEvent]:
        """Judge one input at its time `event.t` (the clock first advances to it). An action
        `refusal` refuses at that moment does nothing."""
        out = self.advance(event.t)
        t = self.now
        if isinstance(event, Action):
            self._act(event, t, out)
        elif event.control in self.layout.tokens:
            self._token_moved(event.control, event.value, t, out)
        elif event.control in self.layout.cockpit:
            if event.value is True:
                # The cockpit's own buttons ask for the game master's actions (rules 4 and 7).
                role = self.layout.cockpit[event.control].role
                self._act(Action("flip" if role == "flip" else "start_turn", t), t, out)
        elif event.control in self.layout.buttons:
            if event.value is not True or self.phase is not Phase.IN_TURN:
                # A release, or a press with no turn running: nothing is judged, so neither
                # view changes (advance made them again if the clock changed anything).
                return out
            self._button_pressed(event.control, t, out)
            if not out:
                # A step of the card's entry (or a card button, or the stuck one, pressed):
                # neither view shows it (the buttons entered are the crew's to know), and
                # every change they show makes an event (a card completed, a mistake), so
                # both are kept: the crew's most common press makes neither again.
                # tests/test_engine_invariants.py holds them to ones made afresh.
                return out
            if len(out) == 1 and out[0].type == "mistake":
                # A mistake that leaves the turn running changes only what the lights show
                # (the mistakes, the stuck control): the pages' view is made again from the
                # rest of it as kept, not afresh (held to one made afresh likewise).
                self._view = self._lights = None
                return out
        self._view = self._lights = self._rest = None  # made again after any other input
        return out

    def refusal(self, action: Action) -> Refusal | None:
        """May `action` happen now (at `self.now`), and if not, why. The engine obeys this
        itself; the replay reports it and the service turns it into an HTTP status."""
        why = malformed(action, self.layout)
        if why is not None:
            return why
        return self._refusal_now(action.name, action.params)

    def _refusal_now(self, name: str, params: dict[str, Any]) -> Refusal | None:
        """`refusal` of a well-formed action, by its name and parameters: what the moment
        allows. Asked as it is where the engine makes the actions itself (every action the
        pages list, the lights'): a turn's end asks it some fifteen times, before its state
        is sent, and neither `malformed` nor an Action is of use there."""
        finished = self.phase is Phase.FINISHED  # (`finished`, written out)
        if name == "new_match":  # rule 1
            return None if finished else Refusal(N_("a match is still being played: end or abandon it first"))
        if finished:
            return Refusal(N_("the match is over: set up a new match"))
        if name == "end" and params.get("when", "now") == "round":  # rule 25
            return self._end_of_round_refusal()
        if name in ("end", "abandon"):  # rule 25
            return None
        turn = self._turn
        if name == "start_turn":  # rule 4
            return None if turn is None else Refusal(N_("a turn is already in progress"))
        if turn is None:
            return Refusal(N_("no turn is in progress: start one first"))
        in_turn = self._IN_TURN_REFUSALS.get(name)
        return None if in_turn is None else in_turn(self, turn, params)

    def _end_of_round_refusal(self) -> Refusal | None:
        if self.ending:
            return Refusal(N_("the match already ends at the end of this round"))
        if not self.round_left():
            return Refusal(N_("the round is over (every team has played as many turns): end the match now"))
        return None

    def _flip_refusal(self, turn: _Turn, params: dict[str, Any]) -> Refusal | None:  # rule 7
        if self.phase is not Phase.IN_TURN:
            return Refusal(N_("the timer is paused: a counter is spent while it runs"))
        if turn.held == 0:
            return Refusal(N_("the crew holds no time counter"))
        return None

    def _pause_refusal(self, turn: _Turn, params: dict[str, Any]) -> Refusal | None:  # rule 18
        if params.get("reason", "pause") in turn.pause_reasons:
            return Refusal(N_("already paused"))
        return None

    def _resume_refusal(self, turn: _Turn, params: dict[str, Any]) -> Refusal | None:  # rule 18
        if not any(r in turn.pause_reasons for r in self._lifted_by(params.get("reason"))):
            if "challenge" in turn.pause_reasons:
                return Refusal(N_("a challenge is open: rule on it to resume"))
            if "link" in turn.pause_reasons:
                return Refusal(N_("the panel's link is lost: the turn resumes by itself when the panel is heard "
                               "again (check its USB cable)"))
            return Refusal(N_("not paused"))
        return None

    def _challenge_refusal(self, turn: _Turn, params: dict[str, Any]) -> Refusal | None:  # rule 19
        if turn.challenge is not None:
            return Refusal(N_("a challenge is already open: rule on it first"))
        if self.phase is not Phase.IN_TURN:
            return Refusal(N_("the timer is paused: a challenge is called while it runs"))
        team, card = params.get("team"), params.get("card", "current")
        names = [t.name for t in self.settings.teams]
        if team is None and not self.cooperative:
            return Refusal(N_("name the team calling the challenge ({teams})"), "team", teams=Either(names))
        if team is not None and team not in names:
            return Refusal(N_("{team} is not a team of this match ({teams})"), "team", team=repr(team),
                           teams=", ".join(names))
        if not self.cooperative and team == self.current_team:
            return Refusal(N_("{team} cannot challenge its own turn"), "team", team=team)
        if card == "current":
            if turn.card is None:
                return Refusal(N_("no card is in play"))
        elif card >= len(turn.completed):
            n = len(turn.completed)
            if not n:
                return Refusal(N_("no card was completed this turn"), "card")
            return Refusal(N_("{card} is not the index of a card completed this turn (0 to {last})"), "card",
                           card=card, last=n - 1)
        return None

    def _rule_refusal(self, turn: _Turn, params: dict[str, Any]) -> Refusal | None:  # rules 20 and 21
        if turn.challenge is None:
            return Refusal(N_("no challenge is open"))
        return None

    def _touch_refusal(self, turn: _Turn, params: dict[str, Any]) -> Refusal | None:  # rule 27
        if self.phase is not Phase.IN_TURN:
            return Refusal(N_("the timer is paused: touches count while it runs"))
        return None

    # The checks of the actions asked during a turn, one per action; the others need only a turn.
    _IN_TURN_REFUSALS: ClassVar[dict[str, Callable[["Match", _Turn, dict[str, Any]], Refusal | None]]] = {
        "flip": _flip_refusal, "pause": _pause_refusal, "resume": _resume_refusal,
        "challenge": _challenge_refusal, "rule": _rule_refusal, "touch": _touch_refusal,
    }

    def allowed(self) -> dict[str, dict[str, list]]:
        """The actions `refusal` allows now, with the parameter values it allows (see
        `allowed_actions`). A challenge lists the teams that may call it and the cards it
        may be called on; a touch is asked with one of the panel's tokens."""
        return {name: {k: list(v) for k, v in options.items()} for name, options in self._allowed_now().items()}

    def _allowed_now(self) -> dict[str, dict[str, list]]:
        """allowed(), asked only for what `refusal` reads that it has not met before: every
        state the pages and the lights are sent carries it, most presses change none of it (a
        button of the card, a token moved), and the rest come back turn after turn. Shared:
        read, never changed."""
        key = self._refusal_key()
        allowed = self._allowed.get(key)
        if allowed is None:
            if len(self._allowed) >= ALLOWED_KEPT:  # (a long match's many keys: kept within bounds)
                self._allowed.clear()
            allowed = self._allowed[key] = self._ask_every_action()
        return allowed

    def _refusal_key(self) -> tuple:
        """Everything of the match `refusal` reads besides the action's own parameters (the
        settings and the layout never change). Kept beside `refusal` and its checks: a check
        that reads something new adds it here (tests/test_engine_invariants.py holds the kept
        answer to a fresh one after every step of random matches)."""
        turn = self._turn
        if turn is None:
            return (self.phase, self.ending, self._next_team)
        return (self.phase, self.ending, turn.team, turn.held, frozenset(turn.pause_reasons),
                turn.challenge is None, turn.card is None, len(turn.completed))

    def _ask_every_action(self) -> dict[str, dict[str, list]]:
        out: dict[str, dict[str, list]] = {}
        asked = self._refusal_now  # (each action made here is well-formed: `refusal` without `malformed`)
        for name in ACTIONS:
            if name == "challenge":
                turn = self._turn
                teams = ([None] if self.cooperative else []) + [t.name for t in self.settings.teams]
                cards: list[Any] = ["current"] + list(range(len(turn.completed) if turn else 0))
                ok = [(team, card) for team in teams for card in cards
                      if asked(name, {"team": team, "card": card}) is None]
                if ok:
                    out[name] = {"teams": list(dict.fromkeys(tm for tm, _ in ok)),
                                 "cards": list(dict.fromkeys(c for _, c in ok))}
            elif name == "rule":
                verdicts = [u for u in (True, False) if asked(name, {"upheld": u}) is None]
                if verdicts:
                    out[name] = {"upheld": verdicts}
            elif name == "end":
                when = [w for w in END_WHEN if asked(name, {"when": w}) is None]
                if when:
                    out[name] = {"when": when}
            else:
                params = {"control": next(iter(self.layout.tokens), "")} if name == "touch" else {}
                if asked(name, params) is None:
                    out[name] = {}
        return out

    def asks(self, event: InputEvent) -> Action | None:
        """A press or a move is never refused: the rules judge it (a mistake or not)."""
        return None

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """The whole visible state, JSON-ready, for pages and LEDs. Only the clock moves
        between two inputs or advances: the rest is made once and kept until the next (the
        LEDs' frames ask twenty times a second while a turn runs, the pages four), each
        caller getting a dict of its own (its values shared: read, never changed)."""
        return {**self.kept_view(), "time_left": self.time_left(now)}

    def kept_view(self) -> dict[str, Any]:
        """The dict `snapshot` copies: everything but the clock (`CLOCK`), the very same
        object from one change to the next (base.Engine). Read, never changed."""
        view = self._view
        if view is None:
            view = self._view = self._view_of_state()
        return view

    def place(self, positions: dict[str, str] | None) -> None:
        """Where the tokens stand when the match begins: the layout's start positions, with
        `positions` (the panel's, as they really stand) over them. Called again on a match
        made ahead, before its first input, with the positions at the press that sets it up."""
        start = self.layout.start_positions()
        if positions:
            tokens = self.layout.tokens
            start.update({k: v for k, v in positions.items() if k in tokens and v in tokens[k].positions})
        # Panel state: every token's position, when it got there, and the last position
        # that held for the settle time.
        self.positions: dict[str, str] = dict(start)
        self._since: dict[str, float] = {t: -math.inf for t in start}
        self._settled: dict[str, str] = dict(start)
        self._settle_due: dict[str, float] = {}
        self._view = self._lights = self._rest = None

    def lights(self, now: float | None = None) -> dict[str, Any]:
        """The part of the snapshot the show draws the panel's lights from (show.py: the
        ring, the counters, mistakes and cards, START and FLIP, the stuck control), made on
        its own: after a press the light is drawn before the pages' whole state is made
        (which is made on top of it). tests/test_engine_invariants.py holds the show's frame
        and sounds from it to those from the whole snapshot."""
        view = self._lights  # (kept across most presses: asked without a call)
        return {**(self._lights_view() if view is None else view), "time_left": self.time_left(now)}

    def _lights_view(self) -> dict[str, Any]:
        view = self._lights
        if view is None:
            turn = self._turn
            view = self._lights = {
                "game": "airlines",
                "phase": self.phase._value_,  # (Enum's own field: `.value` is two calls, in every press's light)
                "team": self.current_team,
                "turn_seconds": self.settings.turn_seconds,
                "counters_held": turn.held if turn else 0,
                "mistakes": turn.mistakes if turn else 0,
                "stuck": turn.stuck if turn else None,
                "completed": len(turn.completed) if turn else 0,
                "scores": dict(self.scores),
                "winner": self.winner,
                "actions": self._lit_actions(),
                "teams": self._teams,
            }
        return view

    def _lit_actions(self) -> dict[str, dict[str, list]]:
        """The allowed actions the lights show: all of allowed() when it is known, else only
        the LIT_ACTIONS it would list (START between turns asks two actions before its light,
        not every action, team and card the pages are sent)."""
        allowed = self._allowed.get(self._refusal_key())
        if allowed is not None:
            return allowed
        return {name: {} for name in LIT_ACTIONS if self._refusal_now(name, {}) is None}

    def _view_of_state(self) -> dict[str, Any]:
        """The whole state but the clock: the lights' part and the rest the pages show."""
        rest = self._rest
        if rest is None:
            rest = self._rest = self._rest_of_state()
        return {**self._lights_view(), **rest}

    def _rest_of_state(self) -> dict[str, Any]:
        """The view's fields beyond the lights' (their "actions" the whole list)."""
        turn = self._turn
        tower, crew = self.roles()
        return {
            "mode": self.settings.mode,
            "round": self.round,
            "rounds": self._coop_rounds if self.cooperative else None,
            "roles": {"tower": tower, "crew": list(crew)},
            "time_left": None,  # the clock: snapshot()'s own
            "counters_pool": turn.pool if turn else self.settings.time_counters,
            "time_counters": self.settings.time_counters,
            "mistakes_per_turn": MISTAKES_PER_TURN,
            "cards_per_turn": CARDS_PER_TURN,
            "card": turn.card.as_dict() if turn and turn.card else None,
            "challenge": dict(turn.challenge) if turn and turn.challenge else None,
            "paused_for": sorted(turn.pause_reasons) if turn else [],
            "target_points": self.settings.target_points,
            **self._past_view(),
            "finished": self.finished,
            "tier": self.tier,
            "outcome": self.outcome,
            "ended_by": self.ended_by,
            "ending": self.ending,
            "round_left": self.round_left(),
            "unscored": dict(self.unscored) if self.unscored else None,
            "decided": dict(self.decided) if self.decided else None,
            "unplayed": self.unplayed,
            # The cards completed in the turn in progress (by number, in the order the challenge
            # menu counts them), for the pages.
            "completed_cards": [c.number for c in turn.completed] if turn else [],
            "actions": self._allowed_now(),
            "positions": dict(self.positions),
        }

    def _past_view(self) -> dict[str, Any]:
        """The teams and the finished turns as the pages show them: made again only when a
        turn is added to the history (it only grows). Shared: read, never changed."""
        n = len(self.history)
        if self._past is None or self._past[0] != n:
            last = self.history[-1] if self.history else None
            self._past = (n, {
                "teams": self._teams,
                "turns_played": self.turns_played(),
                # The last finished turn and its round, for the pages.
                "last_turn": self._public_turn(last) if last else None,
                "round_turns": [self._public_turn(h) for h in self.history if h["round"] == last["round"]]
                if last else [],
            })
        return self._past[1]

    def turns_played(self) -> dict[str, int]:
        """How many scored turns each team has played."""
        played = {name: 0 for name in self.scores}
        for h in self.history:
            played[h["team"]] = played.get(h["team"], 0) + 1
        return played

    def _public_turn(self, h: dict[str, Any]) -> dict[str, Any]:
        """A finished turn as the pages show it (the presentation names its stuck control)."""
        d = {k: (list(v) if isinstance(v, list) else v) for k, v in h.items() if k not in ("started", "ended")}
        return d

    # ------------------------------------------------------------------ actions

    def _act(self, a: Action, t: float, out: list[GameEvent]) -> None:
        """Carry out an action `refusal` allows; a refused one does nothing."""
        if self.refusal(a) is not None:
            return
        name, params = a.name, a.params
        turn = self._turn
        if name == "start_turn":
            self._start_turn(t, out)
        elif name == "flip":
            self._flip(t, out)
        elif name == "challenge":
            self._challenge(params.get("team"), params.get("card", "current"), t, out)
        elif name == "rule":
            self._rule(params["upheld"], t, out)
        elif name == "pause":
            self._pause(params.get("reason", "pause"), t, out)
        elif name == "resume":
            for reason in self._lifted_by(params.get("reason")):
                if self._turn is turn and reason in turn.pause_reasons:
                    self._resume(reason, t, out)
        elif name == "touch":
            if turn.card and params["control"] in turn.card.targets:
                turn.touched.add(params["control"])
                self._check_complete(t, out)
        elif name == "end" and params.get("when", "now") == "round":
            self.ending = True  # rule 25: the round is played to its end, then the match ends
        elif name in ("end", "abandon"):
            self._end_match(t, out, reason="ended" if name == "end" else "abandoned")
        # new_match: asked of the match in play, never played inside it.

    @staticmethod
    def _lifted_by(reason: str | None) -> tuple[str, ...]:
        """The pauses a resume lifts: the one it names, or the game master's (rule 18)."""
        return LIFTED_BY_GAME_MASTER if reason is None else (reason,)

    def _start_turn(self, t: float, out: list[GameEvent]) -> None:
        turn = _Turn(self._next_team, t, self.settings.turn_seconds, self.settings.time_counters)
        self._turn = turn
        self.phase = Phase.IN_TURN
        tower, crew = self.roles()
        out.append(GameEvent(t, "turn_started", {"team": self.current_team, "round": self.round,
                                                 "tower": tower, "crew": list(crew)}))
        self._draw(t, out)

    def _flip(self, t: float, out: list[GameEvent]) -> None:
        """Rule 7: spending a time counter turns the hourglass: the timer is full again."""
        turn = self._turn
        turn.held -= 1
        turn.pool += 1
        turn.deadline = at(t + self.settings.turn_seconds)
        out.append(GameEvent(t, "counter_spent", {"team": self.current_team, "held": turn.held, "pool": turn.pool}))

    def _pause(self, reason: str, t: float, out: list[GameEvent]) -> None:
        turn = self._turn
        if not turn.pause_reasons:
            turn.remaining_when_paused = max(0.0, at(turn.deadline - t))
        turn.pause_reasons.add(reason)
        self.phase = Phase.PAUSED
        out.append(GameEvent(t, "paused", {"reason": reason, "time_left": turn.remaining_when_paused}))

    def _resume(self, reason: str, t: float, out: list[GameEvent]) -> None:
        turn = self._turn
        turn.pause_reasons.discard(reason)
        if not turn.pause_reasons:
            turn.deadline = at(t + (turn.remaining_when_paused or 0.0))
            turn.remaining_when_paused = None
            self.phase = Phase.IN_TURN
            out.append(GameEvent(t, "resumed", {"reason": reason, "time_left": turn.deadline - t}))
            # Moves made in turn that settled while paused are judged now, in a fixed order.
            settled, turn.settled_paused = sorted(turn.settled_paused), set()
            for tid in settled:
                if self._turn is turn and turn.card is not None and tid not in self._settle_due:
                    self._judge_token(tid, t, out)
            if self._turn is turn:
                self._check_complete(t, out)  # a card token may have settled at its target meanwhile

    def _challenge(self, team: str | None, target: str | int, t: float, out: list[GameEvent]) -> None:
        """Rule 19: a team calls a challenge; the timer pauses until the ruling."""
        turn = self._turn
        challenged = turn.card if target == "current" else turn.completed[target]
        turn.challenge = {"team": team, "card": target, "number": challenged.number}
        self._pause("challenge", t, out)
        out.append(GameEvent(t, "challenge", {"team": team, "card": target, "number": challenged.number,
                                               "against": self.current_team, "time_left": self.time_left(t)}))

    def _rule(self, upheld: bool, t: float, out: list[GameEvent]) -> None:
        """Rules 20 and 21: the game master's ruling on the open challenge."""
        turn = self._turn
        target = turn.challenge["card"]
        turn.challenge = None
        discarded = []
        if upheld:
            # The challenged card and the card in play are discarded and score nothing.
            if target != "current":
                card = turn.completed.pop(target)
                discarded.append(card.number)
            if turn.card is not None:
                discarded.append(turn.card.number)
                self._pile.set_aside(turn.card)
                turn.card = None
            # The counters the crew holds stay with it (rule 20): the event says how many.
            out.append(GameEvent(t, "challenge_ruled", {"upheld": True, "discarded": discarded,
                                                        "completed": len(turn.completed), "counters_held": turn.held}))
            self._resume("challenge", t, out)
            # Dealt even when another pause (game master, lost link) still holds the timer:
            # the turn must not go on without a card.
            if self._turn is turn and turn.card is None:
                self._draw(t, out)
        else:
            out.append(GameEvent(t, "challenge_ruled", {"upheld": False, "discarded": [],
                                                        "completed": len(turn.completed)}))
            ruled = (turn.card, turn.draws)
            self._resume("challenge", t, out)
            # The card in play counts as completed, with its time counter: once, even if the
            # crew completed it meanwhile (a card token settled during the pause), and even
            # when another pause still holds the timer.
            if self._turn is turn and turn.card is not None and (turn.card, turn.draws) == ruled:
                self._complete(t, out, by="challenge")

    # ------------------------------------------------------------------ judging

    def _draw(self, t: float, out: list[GameEvent]) -> None:
        """Rule 10: the next card comes up as soon as one completes (rules 13 and 14 at the deck's end)."""
        turn = self._turn
        assert turn is not None
        skipped = 0  # cards sent to the bottom in a row
        forced = False
        while True:
            card, reshuffled = self._pile.draw()
            if reshuffled:
                out.append(GameEvent(t, "deck_reshuffled", {"cards": len(self._pile) + 1}))
                skipped = 0
            if not (card.kind == "simple" and not card.press and not self.settings.touch_sensors
                    and all(self.positions[tok] == pos for tok, pos in card.set)):
                break
            if skipped >= len(self._pile) and not self._pile.used:
                # Every card there is would score for nothing: deal this one, but it must be
                # worked for (each token moved and back), never a free point.
                forced = True
                break
            # It would score for nothing: to the bottom of the deck, deal the next.
            self._pile.put_bottom(card)
            out.append(GameEvent(t, "card_skipped", {"number": card.number,
                                                     "reason": "every token already at its target"}))
            skipped += 1
            if skipped > len(self._pile) - 1 and self._pile.used:
                # Every card left in the pile was skipped: the pile has run out of playable
                # cards, so the used ones are reshuffled in on top (rule 13).
                n = self._pile.reshuffle_used_on_top()
                out.append(GameEvent(t, "deck_reshuffled", {"cards": n}))
                skipped = 0
        # Where each token stands when the card comes up. Moves still settling count at
        # their destination when they were made while nothing was judged (between turns,
        # paused); a move made in turn is judged against where the token had settled.
        origin = dict(self.positions) if turn.draws == 0 else dict(self._settled)
        for tok in turn.unjudged:
            origin[tok] = self.positions[tok]
        turn.draws += 1
        turn.forced = forced
        turn.card = card
        turn.card_drawn_at = t
        turn.pressed = set()
        turn.entry = []
        turn.faulted = set()
        turn.touched = set()
        turn.origin = origin
        out.append(GameEvent(t, "card_drawn", {"number": card.number, "kind": card.kind, "card": card.as_dict(),
                                               "index": len(turn.completed) + 1}))
        self._check_complete(t, out)

    def _button_pressed(self, control: str, t: float, out: list[GameEvent]) -> None:
        turn = self._turn
        card = turn.card if turn else None
        if turn is None or card is None:
            return
        if card.kind == "simple":
            if control in card.press:
                turn.pressed.add(control)  # pressing a card button twice is no mistake
                self._check_complete(t, out)
            elif control != turn.stuck:  # the finger stuck on it may press it again (rule 16)
                self._mistake(control, "button not on the card", t, out)
            return
        section = self.layout.sections[card_section(card, self.layout)]
        if control not in section.buttons:
            if control != turn.stuck:
                self._mistake(control, "button outside the card's section", t, out)
            return
        if control == section.ok:
            if tuple(turn.entry) == sequence_buttons(card, self.layout):
                self._complete(t, out)
            else:
                entered = list(turn.entry)
                turn.entry = []  # the entry starts over
                self._mistake(control, "wrong sequence", t, out, entered=entered)
            return
        turn.entry.append(control)

    def _token_moved(self, token: str, value: Any, t: float, out: list[GameEvent]) -> None:
        if not isinstance(value, str) or value not in self.layout.tokens[token].positions:
            return
        if self.positions[token] == value:
            return
        self.positions[token] = value
        self._since[token] = t
        turn = self._turn
        if turn is not None:
            if self.phase is Phase.PAUSED:
                # Not judged: where it now stands is where it stands for this card.
                turn.unjudged.add(token)
                turn.settled_paused.discard(token)
                turn.origin[token] = value
            else:
                turn.unjudged.discard(token)
        if self._settled[token] == value:
            # Back where it had settled: no pending move to judge.
            self._settle_due.pop(token, None)
        else:
            self._settle_due[token] = at(t + self._settle)
            if self._settle <= 0:
                out.extend(self.advance(t))

    def _judge_token(self, token: str, t: float, out: list[GameEvent]) -> None:
        """A token has held a new position for the settle time (rules 11, 15 and 17)."""
        turn = self._turn
        card = turn.card if turn else None
        if turn is None or card is None:
            return
        if card.kind == "simple" and token in card.targets:
            self._check_complete(t, out)  # a wrong position for a card token is no mistake
            return
        if token in turn.unjudged:
            return  # last moved while paused
        if self.positions[token] != turn.origin.get(token) and token not in turn.faulted:
            turn.faulted.add(token)
            self._mistake(token, "token not on the card moved", t, out)

    def _check_complete(self, t: float, out: list[GameEvent]) -> None:
        """Rule 11: every card button pressed, every card token at its target, held for the settle time."""
        turn = self._turn
        card = turn.card if turn else None
        if turn is None or card is None or card.kind != "simple" or self.phase is not Phase.IN_TURN:
            return
        if not all(b in turn.pressed for b in card.press):
            return
        for tok, pos in card.set:
            if self.positions[tok] != pos or self._settled[tok] != pos:
                return
            if (self.settings.touch_sensors or turn.forced) and tok not in turn.touched and self._since[tok] < turn.card_drawn_at:
                return
        self._complete(t, out)

    def _complete(self, t: float, out: list[GameEvent], by: str = "crew") -> None:
        turn = self._turn
        assert turn is not None and turn.card is not None
        card = turn.card
        turn.card = None
        turn.completed.append(card)
        self._pile.set_aside(card)
        out.append(GameEvent(t, "card_completed", {"number": card.number, "completed": len(turn.completed),
                                                   "by": by}))
        if turn.pool > 0:  # rule 6: a counter while the pool is not empty, for the 5th card too
            turn.pool -= 1
            turn.held += 1
            out.append(GameEvent(t, "counter_granted", {"team": self.current_team, "held": turn.held,
                                                        "pool": turn.pool}))
        if len(turn.completed) >= CARDS_PER_TURN:
            self._end_turn("five_cards", t, out)
        else:
            self._draw(t, out)

    def _mistake(self, control: str, why: str, t: float, out: list[GameEvent], **extra: Any) -> None:
        turn = self._turn
        assert turn is not None
        turn.mistakes += 1
        first = turn.mistakes == 1
        if first:
            turn.stuck = control  # the crew keeps a finger on it (rule 16)
        # The control by its id: the presentation names it, once, in the reader's language.
        out.append(GameEvent(t, "mistake", {"control": control,
                                            "reason": why, "mistakes": turn.mistakes,
                                            "stuck": first, "number": turn.card.number if turn.card else None,
                                            **extra}))
        if turn.mistakes >= MISTAKES_PER_TURN:
            self._end_turn("mistakes", t, out)

    # ------------------------------------------------------------------ turns, rounds, end

    def _end_turn(self, reason: str, t: float, out: list[GameEvent]) -> None:
        """Rules 8 and 22: score the turn, return the counters, discard the card in play."""
        turn = self._turn
        assert turn is not None
        team = self.current_team
        bonus = turn.held if reason == "five_cards" else 0
        points = len(turn.completed) + bonus
        self.scores[team] += points
        if turn.card is not None:
            self._pile.set_aside(turn.card)  # never handed to the next team (rule 8)
        left = 0.0 if reason == "time" else max(0.0, at(turn.deadline - t))
        self.history.append({"team": team, "round": self.round, "reason": reason, "points": points, "bonus": bonus,
                             "completed": [c.number for c in turn.completed], "counters": turn.held,
                             "mistakes": turn.mistakes, "stuck": turn.stuck, "time_left": left,
                             "started": turn.started, "ended": t})
        out.append(GameEvent(t, "turn_ended", {"team": team, "reason": reason, "points": points, "bonus": bonus,
                                               "completed": len(turn.completed), "counters": turn.held,
                                               "mistakes": turn.mistakes, "time_left": left,
                                               "score": self.scores[team]}))
        self._turn = None
        self.phase = Phase.BETWEEN_TURNS
        if self.cooperative:
            self._end_round(t, out)
            return
        self._next_team += 1
        if self._next_team >= len(self.settings.teams):
            self._next_team = 0
            self._end_round(t, out)

    def _end_round(self, t: float, out: list[GameEvent]) -> None:
        out.append(GameEvent(t, "round_ended", {"round": self.round, "scores": dict(self.scores)}))
        if self.ending:
            self._end_match(t, out, reason="ended")  # the game master's end, at the round's end (rule 25)
            return
        if self.cooperative:
            if self.round >= self._coop_rounds:
                self._end_match(t, out)
                return
        elif max(self.scores.values()) >= self.settings.target_points:
            self._end_match(t, out)  # rule 23: only at the end of the round
            return
        self.round += 1

    def _end_match(self, t: float, out: list[GameEvent], reason: str = "complete") -> None:
        """The match is over: played to its end, or ended or abandoned early (rule 25: the
        turn in progress is not scored; an abandoned match has no result)."""
        if self._turn is not None:
            turn = self._turn
            self.unscored = {"team": self.current_team, "round": self.round, "completed": len(turn.completed),
                             "mistakes": turn.mistakes}
            if turn.card is not None:
                self._pile.set_aside(turn.card)
        self._turn = None
        self.phase = Phase.FINISHED
        if reason == "ended" and not self.history:
            reason = "abandoned"  # rule 25: a match ended before any turn was scored was not played
            self.unplayed = True
        self.ended_by = reason
        self._settle_due.clear()
        if reason == "abandoned":
            pass
        elif self.cooperative:
            total = sum(self.scores.values())
            self.tier = cooperative.tier_for(len(self._coop_players), total)
            self.outcome = cooperative.OUTCOMES[self.tier]
        else:
            self._decide()
        out.append(GameEvent(t, "game_ended", {"reason": reason, "scores": dict(self.scores), "winner": self.winner,
                                               "tier": self.tier, "outcome": self.outcome,
                                               "unscored": dict(self.unscored) if self.unscored else None,
                                               "decided": dict(self.decided) if self.decided else None,
                                               "unplayed": self.unplayed}))

    def _decide(self) -> None:
        """Rules 23 and 25: most points wins, a tie shares the win. When the game master ended
        the match with some teams a turn ahead, the winner is decided on the turns every team
        played (each team's first N turns, N the fewest any team played): a team is never
        beaten by a turn its rival had and it did not. With a team that has not played at
        all, nobody wins."""
        played = self.turns_played()
        fewest = min(played.values())
        scores = self.scores
        if len(set(played.values())) > 1:
            scores = {name: 0 for name in self.scores}
            seen = {name: 0 for name in self.scores}
            for h in self.history:
                if seen[h["team"]] < fewest:
                    seen[h["team"]] += 1
                    scores[h["team"]] += h["points"]
            self.decided = {"turns": fewest, "scores": scores}
        if fewest == 0:
            return
        best = max(scores.values())
        self.winner = [name for name, s in scores.items() if s == best]
