"""The Pengo Jump engine: the bag of ice chunks, the penguins home, the sea lion tokens and
whose turn it is, judged report by report.

Pengo Jump has no electronic part: the players draw ice chunks from a cloth bag, slide them
onto the sea board and hop their four penguins to the iceberg before the bag is empty. This
engine is the companion the cockpit adds: it keeps the bag (so the table sees what is left
and the odds of the next draw), the daylight left, the penguins home and, in Sea Lions
Adventure, the tokens; it ends the game by the rulebook. The players report what happened
at the table (a draw, a penguin home, a fall, a hop onto a sea lion) on the panel's buttons.

Pure Python like the other engines: time is passed in with every report, nothing here reads
a clock or touches hardware, and nothing is random (the bag is the real one: the players
say what they drew), so the same reports always give the same game. The house rules it
applies are numbered in docs/pengo-jump.md; "Pengo Jump rule N" below points there.
"""

from __future__ import annotations

import enum
from typing import Any

from panel.core.events import Action, GameEvent, InputEvent
from panel.core.i18n import N_, Word
from panel.core.layout import Layout
from panel.core.refusal import Refusal, unknown
from panel.games.pengo_jump.events import ACTIONS, KIND_NAMES, KINDS, SIZE_NAMES, SIZES
from panel.games.pengo_jump.mapping import PengoMapping
from panel.games.pengo_jump.settings import PengoSettings

GAME_ID = "pengo-jump"
# Pengo Jump rule 1: the box. 30 ice chunks; 9 snowy ones start on the board, the rest in the bag.
BOX = {"snowy": 18, "sea_lion": 6, "frosty": 6}
ON_BOARD = {"snowy": 9, "sea_lion": 0, "frosty": 0}
BAG = {k: BOX[k] - ON_BOARD[k] for k in KINDS}
IN_BAG = sum(BAG.values())  # 21
PENGUINS = 4
TOKENS = {"small": 6, "large": 6}  # Sea Lions Adventure's tokens, by size
# Pengo Jump rule 9: the sun goes down with the bag. Each stage begins when this many chunks
# (or fewer) are left: day above two thirds of the bag, evening above one third, dusk down to
# the last chunk, night once the bag is empty.
STAGES = (("day", 15), ("evening", 8), ("dusk", 1), ("night", 0))


class Phase(enum.Enum):
    DRAW = "draw"  # waiting for the turn's draw
    TURN = "turn"  # drawn: the turn is played
    FINISHED = "finished"


def stage_of(left: int) -> str:
    """The daylight's stage with `left` chunks in the bag."""
    return next(name for name, above in STAGES if left >= above)


def malformed(action: Action) -> Refusal | None:
    """What is wrong with a Pengo Jump action whatever the moment: its name, its parameters'
    names and values. The scenario reader asks this up front; `refusal` asks it first."""
    why = unknown(action, ACTIONS, N_("{name} is not a Pengo Jump action (expected one of: {actions})"))
    if why is not None:
        return why
    takes, params = ACTIONS[action.name], action.params
    if "kind" in takes and params.get("kind") not in KINDS:
        return Refusal(N_("{kind} is not a kind of ice chunk ({kinds})"), "kind", kind=repr(params.get("kind")),
                       kinds=", ".join(KINDS))
    if "size" in takes and params.get("size") not in SIZES:
        return Refusal(N_("{size} is not a size of sea lion ({sizes})"), "size", size=repr(params.get("size")),
                       sizes=", ".join(SIZES))
    return None


class PengoMatch:
    """One game. Feed it with `handle(event)` for every InputEvent or Action, in time order.
    No clock runs (`advance` and `next_deadline` are there for the cockpit's loop).

    `mapping` says which panel button asks for which report (the layout's [pengo_jump]
    table); without it only Actions are understood. `layout` is the panel (the service keeps
    the tokens' positions through any match, this one too) and `positions` where its tokens
    stand at set-up."""

    def __init__(self, settings: PengoSettings, mapping: PengoMapping | None = None, *,
                 layout: Layout | None = None, positions: dict[str, str] | None = None):
        self.settings = settings
        self.mapping = mapping
        self.layout = layout
        self.positions: dict[str, str] = layout.start_positions() if layout is not None else {}
        self.positions.update({k: v for k, v in (positions or {}).items() if k in self.positions})
        self.players = settings.players
        self.bag = dict(BAG)
        self.home = 0
        # Pengo Jump rule 7: each size's tokens beside the board (free), slid in (board), fallen onto the table.
        self.tokens = ({s: {"free": n, "board": 0, "fallen": 0} for s, n in TOKENS.items()}
                       if settings.mode == "sea_lions" else None)
        self.phase = Phase.DRAW
        self.current = 0  # Pengo Jump rule 2: the first player named plays first, then in order
        self.turn = 1
        self.drawn: str | None = None  # this turn's chunk
        self.moved: str | None = None  # this turn's move so far: "sea_lion" or "home"
        self.falls = 0  # penguins fallen this turn
        self.outcome: str | None = None  # won, lost or abandoned
        self.reason: str | None = None
        self.ended_by: str | None = None
        self.now = 0.0

    # ------------------------------------------------------------------ the engine's interface

    @property
    def finished(self) -> bool:
        return self.phase is Phase.FINISHED

    @property
    def clock_running(self) -> bool:
        return False  # no clock: the daylight is the bag

    @property
    def left(self) -> int:
        return sum(self.bag.values())

    def next_deadline(self) -> float | None:
        return None

    def advance(self, now: float) -> list[GameEvent]:
        self.now = max(self.now, now)
        return []

    def handle(self, event: InputEvent | Action) -> list[GameEvent]:
        """Judge one report at its time. An action `refusal` refuses at that moment changes
        nothing (Pengo Jump rule 12)."""
        self.advance(event.t)
        out: list[GameEvent] = []
        if isinstance(event, InputEvent):
            if event.control in self.positions and isinstance(event.value, str):
                self.positions[event.control] = event.value
            event = self.asks(event)
            if event is None:
                return out
        if event.name != "new_match" and self.refusal(event) is None:  # new_match is the service's
            getattr(self, f"_{event.name}")(event.params, self.now, out)
        return out

    def asks(self, event: InputEvent) -> Action | None:
        """The report a button's press asks for (a release, a token moved or a button the
        game does not use asks for none)."""
        if self.mapping is None or event.value is not True:
            return None
        return self.mapping.asks(event.control, event.t)

    def refusal(self, action: Action) -> Refusal | None:
        """May `action` happen now, and if not, why, in words for the players: the one
        answer the engine obeys and the replay and the service ask."""
        why = malformed(action)
        if why is not None:
            return why
        name, params = action.name, action.params
        if name == "new_match":
            return None if self.finished else Refusal(N_("a game is still being played: abandon it first"))
        if self.finished:
            return Refusal(N_("the game is over: set up a new one"))
        if name == "abandon":
            return None
        if name == "draw":
            return self._draw_refusal(params["kind"])
        if name in ("sea_lion", "token_fell") and self.tokens is None:  # Pengo Jump rule 6
            return Refusal(N_("in Happy Penguins the sea lions only rest: no token is slid in"))
        if name == "token_fell":
            board = self.tokens[params["size"]]["board"]
            return None if board else Refusal(N_("no {size} sea lion token is on the board"),
                                              size=Word(SIZE_NAMES[params["size"]]))
        if self.phase is Phase.DRAW:  # Pengo Jump rule 3: each turn begins with a draw
            return Refusal(N_("draw an ice chunk first: every turn begins with one"))
        if name in ("home", "sea_lion"):
            if self.falls:  # Pengo Jump rule 4
                return Refusal(N_("a penguin fell this turn: the turn is over, no penguin moves"))
            if self.moved == "home" or (name == "sea_lion" and self.moved):  # Pengo Jump rule 5
                return Refusal(N_("one penguin moves per turn: this turn's has moved"))
        return None

    def _draw_refusal(self, kind: str) -> Refusal | None:
        if not self.left:
            return Refusal(N_("the bag is empty: end the last turn"))
        if not self.bag[kind]:
            return Refusal(N_("no {kind} chunk is left in the bag"), kind=Word(KIND_NAMES[kind]))
        return None

    def allowed(self) -> dict[str, dict[str, list]]:
        """The actions `refusal` allows now, with the kinds and sizes it allows them for,
        JSON-ready for the pages and the lights."""
        out: dict[str, dict[str, list]] = {}
        for name, takes in ACTIONS.items():
            if not takes:
                if self.refusal(Action(name, self.now)) is None:
                    out[name] = {}
                continue
            param = takes[0]
            ok = [v for v in (KINDS if param == "kind" else SIZES)
                  if self.refusal(Action(name, self.now, {param: v})) is None]
            if ok:
                out[name] = {param: ok}
        return out

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """The whole visible state, JSON-ready, for pages and lights."""
        left = self.left
        return {
            "game": GAME_ID,
            "phase": self.phase.value,
            "mode": self.settings.mode,
            "players": [{"index": i, "name": n} for i, n in enumerate(self.players)],
            "current": None if self.finished else self.current,
            "next": None if self.finished else (self.current + 1) % len(self.players),
            "turn": self.turn,
            "drawn": self.drawn,
            "moved": self.moved,
            "falls": self.falls,
            "bag": dict(self.bag),
            "left": left,
            "in_bag": IN_BAG,
            "odds": {k: (n / left if left else 0.0) for k, n in self.bag.items()},
            "daylight": left / IN_BAG,
            "stage": stage_of(left),
            "last_turn": left == 0 and not self.finished,
            "home": self.home,
            "penguins": PENGUINS,
            "tokens": None if self.tokens is None else {s: dict(v) for s, v in self.tokens.items()},
            "positions": dict(self.positions),
            "actions": self.allowed(),
            "finished": self.finished,
            "outcome": self.outcome,
            "reason": self.reason,
            "ended_by": self.ended_by,
            "panel": self.mapping.as_dict() if self.mapping is not None else None,
        }

    # ------------------------------------------------------------------ the reports

    def _pass_turn(self, why: str, t: float, out: list[GameEvent]) -> None:
        """Pengo Jump rule 2: the next player in the order (solo: the same one again)."""
        was = self.current
        self.current = (self.current + 1) % len(self.players)
        self.turn += 1
        self.phase, self.drawn, self.moved, self.falls = Phase.DRAW, None, None, 0
        out.append(GameEvent(t, "turn_over", {"from": was, "to": self.current, "why": why, "turn": self.turn}))

    def _draw(self, params: dict[str, Any], t: float, out: list[GameEvent]) -> None:
        """Pengo Jump rule 3: a draw begins the turn; a draw while a turn is played ends it first."""
        if self.phase is Phase.TURN:
            self._pass_turn("draw", t, out)
        kind = params["kind"]
        before = stage_of(self.left)
        self.bag[kind] -= 1
        self.phase, self.drawn = Phase.TURN, kind
        left = self.left
        out.append(GameEvent(t, "chunk_drawn", {"by": self.current, "kind": kind, "bag": dict(self.bag),
                                                "left": left, "daylight": left / IN_BAG}))
        if stage_of(left) != before:  # Pengo Jump rule 9
            out.append(GameEvent(t, "daylight", {"stage": stage_of(left), "left": left}))

    def _home(self, params: dict[str, Any], t: float, out: list[GameEvent]) -> None:
        self.home += 1
        self.moved = "home"
        out.append(GameEvent(t, "penguin_home", {"by": self.current, "home": self.home, "out": PENGUINS - self.home}))
        if self.home == PENGUINS:  # Pengo Jump rule 10
            self._end("won", None, t, out, "all_home", turns=self.turn, left=self.left)
        elif not self.left:  # Pengo Jump rule 11: the last turn's one move is made
            self._lost(t, out)

    def _fell(self, params: dict[str, Any], t: float, out: list[GameEvent]) -> None:
        self.falls += 1
        out.append(GameEvent(t, "penguin_fell", {"by": self.current, "falls": self.falls}))
        if not self.left:  # Pengo Jump rules 4 and 11: the last turn is over
            self._lost(t, out)

    def _sea_lion(self, params: dict[str, Any], t: float, out: list[GameEvent]) -> None:
        """Pengo Jump rule 7: the matching token slides in; with none left beside the board,
        the fallen ones of that size are collected back first."""
        size = params["size"]
        tokens = self.tokens[size]
        self.moved = "sea_lion"
        if not tokens["free"] and tokens["fallen"]:
            count = tokens["fallen"]
            tokens["free"], tokens["fallen"] = count, 0
            out.append(GameEvent(t, "tokens_collected", {"size": size, "count": count, "tokens": self._tokens()}))
        slid = tokens["free"] > 0
        if slid:
            tokens["free"] -= 1
            tokens["board"] += 1
        out.append(GameEvent(t, "sea_lion_token", {"by": self.current, "size": size, "token": slid,
                                                   "tokens": self._tokens()}))

    def _token_fell(self, params: dict[str, Any], t: float, out: list[GameEvent]) -> None:
        size = params["size"]
        self.tokens[size]["board"] -= 1
        self.tokens[size]["fallen"] += 1
        out.append(GameEvent(t, "token_fell", {"size": size, "tokens": self._tokens()}))

    def _end_turn(self, params: dict[str, Any], t: float, out: list[GameEvent]) -> None:
        if not self.left:  # Pengo Jump rule 11
            self._lost(t, out)
        else:
            self._pass_turn("end_turn", t, out)

    def _abandon(self, params: dict[str, Any], t: float, out: list[GameEvent]) -> None:
        self._end("abandoned", None, t, out, "game_abandoned")
        self.ended_by = "abandoned"

    def _tokens(self) -> dict[str, dict[str, int]]:
        return {s: dict(v) for s, v in self.tokens.items()}

    def _lost(self, t: float, out: list[GameEvent]) -> None:
        self._end("lost", "bag_empty", t, out, "night_fell", home=self.home, still_out=PENGUINS - self.home)

    def _end(self, outcome: str, reason: str | None, t: float, events: list[GameEvent], event: str,
             **details: Any) -> None:
        self.phase = Phase.FINISHED
        self.outcome, self.reason, self.ended_by = outcome, reason, "complete"
        details = {"out" if k == "still_out" else k: v for k, v in details.items()}
        events.append(GameEvent(t, event, {"outcome": outcome, **({"reason": reason} if reason else {}), **details}))
