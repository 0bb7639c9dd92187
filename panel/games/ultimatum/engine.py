"""The Penguin Ultimatum engine: the table's score sheet, kept entry by entry.

Penguin Ultimatum has no clock and no electronic part: the players count their points on
counting cards. The cockpit is its scorekeeper. The scorer enters what happens at the
table (the players, each performance with the points each player's guests brought, each
kinship penalty, the end); this engine keeps those entries, in order, and folds them into
the scores, the entertainer cards and, at the end, the winner. An undo or a correction of
any earlier entry changes the list of entries and folds it again from the start, so that
everything after it is recomputed by the same rules that made it (Ultimatum rules 7 and 8).

Pure and deterministic like the other games' engines: no clock (an entry's time is only
told on with its events), no I/O, no randomness. The house rules are numbered in
docs/ultimatum.md; "Ultimatum rule N" below points there. Whether an action may happen now
is `refusal`'s answer, in the same shape as the other engines', so the replay and the
service treat every game alike.
"""

from __future__ import annotations

import copy
import enum
from dataclasses import dataclass, field
from typing import Any

from panel.core.events import Action, GameEvent, InputEvent
from panel.core.i18n import N_, Word
from panel.core.layout import Layout
from panel.core.refusal import Refusal, unknown
from panel.games.ultimatum.cards import (CARDS, ENTERTAINER_COLOURS, FORMS, MAX_PLAYERS, MIN_PLAYERS, PLAYER_COLOURS,
                                         START_POINTS, card_id, card_parts)
from panel.games.ultimatum.events import ACTIONS, CORRECTABLE
from panel.games.ultimatum.scoring import Final, entertainer_to, final_scoring, holders, winner
from panel.games.ultimatum.settings import Player, UltimatumSettings, name_problem, player_problem

GAME_ID = "ultimatum"
MOST_POINTS = 999  # Ultimatum rule 4: a number bigger than this in one entry is a slip of the finger


class Phase(enum.Enum):
    SETUP = "setup"  # players sit down; nothing scored yet
    PLAYING = "playing"  # performances and penalties are entered
    TIE = "tie"  # the end is scored and the players tied on every count: who is shorter?
    FINISHED = "finished"


def _whole(v: Any, low: int, high: int = MOST_POINTS) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _points_problem(points: Any, *, per_player: bool) -> Refusal | None:
    if per_player:
        if not isinstance(points, dict) or not points:
            return Refusal(N_("must be a table of each player's points, such as {example}"), "points",
                           example='{ red = 9, green = 6 }')
        for who, n in points.items():
            if who not in PLAYER_COLOURS:
                return Refusal(N_("{value} is not a player's colour ({colours})"), "points", value=repr(who),
                               colours=", ".join(PLAYER_COLOURS))
            if not _whole(n, 0):
                return Refusal(N_("{value} is not a number of points (a whole number from 0 to {most})"), "points",
                               value=repr(n), most=MOST_POINTS)
        return None
    if not _whole(points, 1):
        return Refusal(N_("{value} is not a penalty (a whole number of points from 1 to {most})"), "points",
                       value=repr(points), most=MOST_POINTS)
    return None


def _name_refusal(v: Any) -> Refusal | bool:
    why = name_problem(v)
    return True if why is None else Refusal(why.message, "name", **why.values)


def _value_problem(name: str, params: dict[str, Any]) -> Refusal | None:
    """What is wrong with an action's given parameters whatever the moment (their values)."""
    checks = {
        "player": lambda v: v in PLAYER_COLOURS or Refusal(
            N_("{value} is not a player's colour ({colours})"), "player", value=repr(v), colours=", ".join(PLAYER_COLOURS)),
        "form": lambda v: v in FORMS or Refusal(
            N_("{value} is not a form of entertainment ({forms})"), "form", value=repr(v), forms=", ".join(FORMS)),
        "colour": lambda v: v in ENTERTAINER_COLOURS or Refusal(
            N_("{value} is not an entertainer's colour ({colours})"), "colour", value=repr(v),
            colours=", ".join(ENTERTAINER_COLOURS)),
        "card": lambda v: v in CARDS or Refusal(
            N_("{value} is not an entertainer card (colour-form, such as {example})"), "card", value=repr(v),
            example="red-dance"),
        "entry": lambda v: _whole(v, 1, 10**6) or Refusal(N_("must be an entry's number (1 or more)"), "entry"),
        "name": _name_refusal,
    }
    for k, v in params.items():
        if k in checks:
            ok = checks[k](v)
            if ok is not True:
                return ok
    if "points" in params:
        if name == "correct":  # a performance's table or a penalty's number: the entry corrected says which
            v = params["points"]
            return _points_problem(v, per_player=isinstance(v, dict))
        return _points_problem(params["points"], per_player=name == "performance")
    return None


# What each entry must say (Ultimatum rules 1, 4, 6 and 11).
REQUIRED = {"add_player": ("player", "form"), "performance": ("colour", "form", "points"), "penalty": ("player",),
            "shorter": ("player",), "correct": ("entry",)}


def missing(name: str, params: dict[str, Any]) -> Refusal | None:
    for k in REQUIRED.get(name, ()):
        if k not in params:
            return Refusal(N_("missing"), k)
    if name == "penalty" and ("points" in params) == ("card" in params):
        return Refusal(N_("a penalty is either points or an entertainer card given up: one of them"), "points")
    return None


def malformed(action: Action) -> Refusal | None:
    """What is wrong with an Ultimatum action whatever the moment: its name, its parameters'
    names and values, a parameter it needs. The scenario reader asks this up front;
    `refusal` asks it first."""
    why = unknown(action, ACTIONS, N_("{name} is not a Penguin Ultimatum action (expected one of: {actions})"))
    return why or _value_problem(action.name, action.params) or missing(action.name, action.params)


# ---------------------------------------------------------------------------- the sheet

@dataclass
class Sheet:
    """What the entries add up to: the players, their points and entertainer cards, where
    each performed entertainer card went, and each entry's row (its effect and the scores
    after it)."""

    players: dict[str, dict[str, Any]] = field(default_factory=dict)  # colour -> name, form, score, cards
    placed: dict[str, str | None] = field(default_factory=dict)  # performed card -> its owner, None: out of the game
    started: bool = False  # a performance or a penalty was entered: nobody sits down any more
    ended: bool = False
    shorter: str | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)

    def scores(self) -> dict[str, int]:
        return {p: v["score"] for p, v in self.players.items()}

    def cards(self) -> dict[str, list[str]]:
        return {p: list(v["cards"]) for p, v in self.players.items()}

    def finals(self) -> dict[str, Final]:
        return final_scoring(self.scores(), {p: v["form"] for p, v in self.players.items()}, self.cards())

    def result(self) -> tuple[str | None, str | None, list[str]]:
        return winner(self.finals(), self.shorter) if self.ended else (None, None, [])

    def who(self, colour: str) -> Any:
        """A player as a refusal names them: their name, else their colour (a word)."""
        p = self.players.get(colour)
        return p["name"] if p and p.get("name") else Word(colour)


def check(sheet: Sheet, entry: dict[str, Any]) -> Refusal | None:
    """May `entry` be the next entry of `sheet`, and if not, why (Ultimatum rules 1 to 11)."""
    kind = entry["kind"]
    params = {k: v for k, v in entry.items() if k != "kind"}
    why = missing(kind, params)
    if why is not None:
        return why
    if kind == "shorter":  # Ultimatum rule 11
        _w, _why, tied = sheet.result()
        if not sheet.ended or not tied:
            return Refusal(N_("nobody is tied for the win: the page asks who is shorter only then"))
        if params["player"] not in tied:
            return Refusal(N_("{player} is not tied for the win"), "player", player=sheet.who(params["player"]))
        return None
    if sheet.ended:
        return Refusal(N_("the game has ended: undo the end to enter or correct more"))
    if kind == "add_player":  # Ultimatum rule 1
        if sheet.started:
            return Refusal(N_("the game has started: players sit down before the first performance"))
        if len(sheet.players) >= MAX_PLAYERS:
            return Refusal(N_("{most} players already: Penguin Ultimatum is for {least} to {most} players"),
                           "player", most=MAX_PLAYERS, least=MIN_PLAYERS)
        seated = [Player(p, v["form"], v.get("name")) for p, v in sheet.players.items()]
        bad = player_problem(params, seated)
        return None if bad is None else Refusal(bad[1].message, bad[0], **bad[1].values)
    if len(sheet.players) < MIN_PLAYERS:
        return Refusal(N_("at least {least} players first"), least=MIN_PLAYERS)
    if kind == "performance":  # Ultimatum rules 2 and 4
        card = card_id(params["colour"], params["form"])
        if card in sheet.placed:
            return Refusal(N_("the {colour} {form} entertainer has already performed (there is one of each)"),
                           "form", colour=Word(params["colour"]), form=Word(params["form"]))
        for who in params["points"]:
            if who not in sheet.players:
                return Refusal(N_("no player has the {colour} pieces"), "points", colour=Word(who))
        return None
    if kind == "penalty":  # Ultimatum rule 6
        player = params["player"]
        if player not in sheet.players:
            return Refusal(N_("no player has the {colour} pieces"), "player", colour=Word(player))
        card = params.get("card")
        if card is not None and card not in sheet.players[player]["cards"]:
            colour, form = card_parts(card)
            return Refusal(N_("{player} has no {colour} {form} entertainer card to give up"), "card",
                           player=sheet.who(player), colour=Word(colour), form=Word(form))
        return None
    return None  # end


def apply(sheet: Sheet, entry: dict[str, Any]) -> dict[str, Any]:
    """`entry` (checked) added to `sheet`; its row."""
    kind = entry["kind"]
    row: dict[str, Any] = {"entry": len(sheet.rows) + 1, **entry}
    if kind == "add_player":
        sheet.players[entry["player"]] = {"name": entry.get("name"), "form": entry["form"], "score": START_POINTS,
                                          "cards": []}
    elif kind == "performance":
        sheet.started = True
        card = card_id(entry["colour"], entry["form"])
        points = {p: entry["points"].get(p, 0) for p in sheet.players}  # Ultimatum rule 4: a player left out got 0
        for p, n in points.items():
            sheet.players[p]["score"] += n
        to, why = entertainer_to(points)  # Ultimatum rule 5
        sheet.placed[card] = to
        if to is not None:
            sheet.players[to]["cards"].append(card)
        row.update(card=card, points=points, to=to, why=why)
    elif kind == "penalty":
        sheet.started = True
        player = entry["player"]
        if "card" in entry:  # Ultimatum rule 6: the card given up leaves the game
            sheet.players[player]["cards"].remove(entry["card"])
            sheet.placed[entry["card"]] = None
        else:
            sheet.players[player]["score"] -= entry["points"]
    elif kind == "end":
        sheet.ended = True
    elif kind == "shorter":
        sheet.shorter = entry["player"]
    if kind in ("end", "shorter"):
        won, reason, tied = sheet.result()
        row.update(winner=won, reason=reason, tied=tied, final={p: f.as_dict() for p, f in sheet.finals().items()})
    row["scores"] = sheet.scores()
    sheet.rows.append(row)
    return row


def fold(entries: list[dict[str, Any]]) -> tuple[Sheet, tuple[int, Refusal] | None]:
    """The sheet the entries add up to, and the first entry the rules refuse there (its
    index and why) or None: the entries after a refused one are not folded."""
    sheet = Sheet()
    for i, entry in enumerate(entries):
        why = check(sheet, entry)
        if why is not None:
            return sheet, (i, why)
        apply(sheet, entry)
    return sheet, None


def merged(old: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """Ultimatum rule 8: an entry as a correction says it now: what the correction gives, the
    rest as it was (a penalty's points and card are one choice: giving one drops the other)."""
    new = dict(old)
    if old["kind"] == "penalty" and ("points" in given or "card" in given):
        new.pop("points", None)
        new.pop("card", None)
    new.update(given)
    if new.get("name") is None:
        new.pop("name", None)
    return new


# ---------------------------------------------------------------------------- the engine

class UltimatumGame:
    """One game's score sheet. Feed it with `handle(event)` for every Action (and the
    panel's InputEvents, which only say where its tokens stand: the scorekeeper uses no
    control of the panel)."""

    def __init__(self, settings: UltimatumSettings, *, positions: dict[str, str] | None = None):
        self.settings = settings
        self.layout: Layout | None = None  # no control of the panel is the game's
        self.positions: dict[str, str] = dict(positions or {})
        # The set-up's players are the sheet's first entries: correctable like any (Ultimatum rule 8),
        # never undone (Ultimatum rule 7: undo takes back what was entered during the game).
        self.entries: list[dict[str, Any]] = [{"kind": "add_player", **p.as_dict()} for p in settings.players]
        self.sheet, failed = fold(self.entries)
        if failed is not None:
            raise ValueError(failed[1])
        # Ultimatum rule 7: what undo goes back to: the entries before each change, with what it was.
        self.versions: list[tuple[list[dict[str, Any]], dict[str, Any]]] = []
        self.abandoned = False
        self.now = 0.0
        self._allowed: dict[str, dict[str, list]] | None = None

    # ------------------------------------------------------------------ the Engine interface
    @property
    def phase(self) -> Phase:
        if self.finished:
            return Phase.FINISHED
        if self.sheet.ended:
            return Phase.TIE
        return Phase.PLAYING if self.sheet.started else Phase.SETUP

    @property
    def winner(self) -> str | None:
        return self.sheet.result()[0]

    @property
    def reason(self) -> str | None:
        return self.sheet.result()[1]

    @property
    def finished(self) -> bool:
        return self.abandoned or self.winner is not None

    @property
    def ended_by(self) -> str | None:
        if self.abandoned:
            return "abandoned"
        return "complete" if self.winner is not None else None

    @property
    def clock_running(self) -> bool:
        return False  # no clock: the pages change only with an entry

    def next_deadline(self) -> float | None:
        return None

    def advance(self, now: float) -> list[GameEvent]:
        self.now = max(self.now, now)
        return []

    def asks(self, event: InputEvent) -> Action | None:
        return None  # no control of the panel asks for anything

    def handle(self, event: InputEvent | Action) -> list[GameEvent]:
        """One input at its time. An action `refusal` refuses changes nothing (Ultimatum rule 12)."""
        self.advance(event.t)
        self._allowed = None
        if isinstance(event, InputEvent):
            if isinstance(event.value, str):
                self.positions[event.control] = event.value  # the panel's tokens, kept for the next game
            return []
        if self.refusal(event) is not None:
            return []
        return self._act(event)

    def refusal(self, action: Action) -> Refusal | None:
        """May `action` happen now, and if not, why, in words for the scorer."""
        why = malformed(action)
        if why is not None:
            return why
        name, params = action.name, action.params
        if name == "new_match":
            return None if self.finished else Refusal(N_("a game is being scored: abandon it first"))
        if self.finished:
            return Refusal(N_("the game is over: set up a new one"))
        if name == "abandon":
            return None
        if name == "undo":  # Ultimatum rule 7
            return None if self.versions else Refusal(N_("nothing to undo"))
        if name == "correct":
            return self._corrected(params)[1]
        return check(self.sheet, {"kind": name, **params})

    def _corrected(self, params: dict[str, Any]) -> tuple[list[dict[str, Any]] | None, Refusal | None]:
        """Ultimatum rule 8: the entries with entry `params["entry"]` corrected, or why not."""
        n = params["entry"]
        if self.sheet.ended:
            return None, Refusal(N_("the game has ended: undo the end to correct an entry"))
        if n > len(self.entries):
            return None, Refusal(N_("there is no entry {n} (the entries are 1 to {last})"), "entry", n=n,
                                 last=len(self.entries))
        old = self.entries[n - 1]
        if old["kind"] not in CORRECTABLE:
            return None, Refusal(N_("entry {n} cannot be corrected"), "entry", n=n)
        given = {k: v for k, v in params.items() if k != "entry"}
        if not given:
            return None, Refusal(N_("say what entry {n} should be"), "entry", n=n)
        takes = ACTIONS[old["kind"]]
        for k in given:
            if k not in takes:
                return None, Refusal(N_("entry {n} takes only {params}"), k, n=n, params=", ".join(takes))
        if old["kind"] == "performance" and not isinstance(given.get("points", {}), dict):
            return None, Refusal(N_("must be a table of each player's points, such as {example}"), "points",
                                 example='{ red = 9, green = 6 }')
        if old["kind"] == "penalty" and isinstance(given.get("points"), dict):
            return None, Refusal(N_("{value} is not a penalty (a whole number of points from 1 to {most})"), "points",
                                 value=repr(given["points"]), most=MOST_POINTS)
        new = merged(old, given)
        if new == old:
            return None, Refusal(N_("entry {n} already says that"), "entry", n=n)
        entries = self.entries[:n - 1] + [new] + self.entries[n:]
        _sheet, failed = fold(entries)
        if failed is not None:
            i, why = failed
            if i == n - 1:
                return None, why
            return None, Refusal(N_("entry {later} would no longer be possible ({why}): undo or correct it first"),
                                 "entry", later=i + 1, why=why)
        return entries, None

    # ------------------------------------------------------------------ carrying out
    def _act(self, action: Action) -> list[GameEvent]:
        name, params, t = action.name, action.params, action.t
        if name == "new_match":
            return []  # asked of the game in play (may another replace it now?), never played inside one
        if name == "abandon":
            self.abandoned = True
            return [GameEvent(t, "game_abandoned", {})]
        if name == "undo":
            entries, what = self.versions.pop()
            self._refold(entries)
            return [GameEvent(t, "entry_undone", {**what, **self._sheet_now()})]
        if name == "correct":
            entries, _why = self._corrected(params)
            self.versions.append((self.entries, {"undid": "correction", "entry": params["entry"]}))
            self._refold(entries)
            return [GameEvent(t, "entry_corrected", {"entry": params["entry"], **self._sheet_now()})]
        entry = {"kind": name, **params}
        self.versions.append((list(self.entries), {"undid": name, "entry": len(self.entries) + 1}))
        self.entries = self.entries + [entry]
        row = apply(self.sheet, entry)
        return self._told(row, t)

    def _refold(self, entries: list[dict[str, Any]]) -> None:
        sheet, failed = fold(entries)
        assert failed is None, failed  # checked by refusal (a correction) or folded before (an undo)
        self.entries, self.sheet = entries, sheet

    def _sheet_now(self) -> dict[str, Any]:
        return {"entries": copy.deepcopy(self.sheet.rows), "scores": self.sheet.scores(), "cards": self.sheet.cards()}

    def _told(self, row: dict[str, Any], t: float) -> list[GameEvent]:
        """The events of a new entry's row."""
        kind = row["kind"]
        n = row["entry"]
        if kind == "add_player":
            return [GameEvent(t, "player_added", {"entry": n, "player": row["player"], "name": row.get("name"),
                                                  "form": row["form"], "players": list(self.sheet.players)})]
        if kind == "performance":
            out = [GameEvent(t, "performance", {"entry": n, "card": row["card"], "colour": row["colour"],
                                                "form": row["form"], "points": row["points"],
                                                "scores": row["scores"]})]
            if row["to"] is not None:
                out.append(GameEvent(t, "entertainer_awarded", {"card": row["card"], "to": row["to"]}))
            else:
                out.append(GameEvent(t, "entertainer_out", {"card": row["card"], "why": row["why"]}))
            return out
        if kind == "penalty":
            if "card" in row:
                return [GameEvent(t, "entertainer_given_up", {"entry": n, "player": row["player"],
                                                             "card": row["card"], "scores": row["scores"]})]
            return [GameEvent(t, "penalty_paid", {"entry": n, "player": row["player"], "points": row["points"],
                                                  "scores": row["scores"]})]
        # The end and the answer to "who is shorter" carry the whole sheet: the debrief's.
        sheet = {"entries": copy.deepcopy(self.sheet.rows)}
        out = []
        if kind == "end":
            out.append(GameEvent(t, "game_ended", {"entry": n, "final": row["final"], "tied": row["tied"], **sheet}))
        if row["winner"] is not None:
            out.append(GameEvent(t, "game_won", {"winner": row["winner"], "reason": row["reason"],
                                                 "final": row["final"],
                                                 "totals": {p: f["total"] for p, f in row["final"].items()},
                                                 **({} if out else sheet)}))
        return out

    # ------------------------------------------------------------------ what is shown
    def allowed(self) -> dict[str, dict[str, list]]:
        """The actions `refusal` allows now, with the values it allows (free colours and
        performance cards, entertainer cards yet to perform, the players' cards, the tied
        players, the entries that may be corrected), JSON-ready for the pages."""
        if self._allowed is not None:
            return copy.deepcopy(self._allowed)
        sheet = self.sheet
        out: dict[str, dict[str, list]] = {}
        for name in ("end", "undo", "abandon", "new_match"):
            if self.refusal(Action(name, self.now)) is None:
                out[name] = {}
        if not self.finished and not sheet.ended:
            if not sheet.started and len(sheet.players) < MAX_PLAYERS:
                taken = {v["form"] for v in sheet.players.values()}
                out["add_player"] = {"player": [c for c in PLAYER_COLOURS if c not in sheet.players],
                                     "form": [f for f in FORMS if f not in taken]}
            if len(sheet.players) >= MIN_PLAYERS:
                out["performance"] = {"card": [c for c in CARDS if c not in sheet.placed]}
                out["penalty"] = {"player": list(sheet.players),
                                  "card": [c for v in sheet.players.values() for c in v["cards"]]}
            correctable = [i + 1 for i, e in enumerate(self.entries) if e["kind"] in CORRECTABLE]
            if correctable:
                out["correct"] = {"entry": correctable}
        if not self.finished and sheet.ended:
            out["shorter"] = {"player": sheet.result()[2]}
        self._allowed = out
        return copy.deepcopy(out)

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """The whole visible state, JSON-ready, for the pages and the lights."""
        sheet = self.sheet
        won, reason, tied = sheet.result()
        finals = {p: f.as_dict() for p, f in sheet.finals().items()}
        cards = sheet.cards()
        return {
            "game": GAME_ID,
            "phase": self.phase.value,
            "start_points": START_POINTS,
            "players": [{"player": p, "name": v.get("name"), "form": v["form"], "score": v["score"],
                         "cards": list(v["cards"])} for p, v in sheet.players.items()],
            "scores": sheet.scores(),
            "pile": [c for c in CARDS if c not in sheet.placed],  # the entertainers yet to perform
            "out": [c for c, owner in sheet.placed.items() if owner is None],  # out of the game
            # Who would win each colour's majority now (Ultimatum rule 10).
            "majorities": {c: dict(zip(("leaders", "count"), holders(cards, c))) for c in ENTERTAINER_COLOURS},
            "entries": copy.deepcopy(sheet.rows),
            "ended": sheet.ended,
            "final": finals if sheet.ended else None,  # the end's scoring, once entered
            "if_ended": finals,  # the end's scoring if the game ended now
            "tied": tied,
            "winner": won,
            "reason": reason,
            "undo": dict(self.versions[-1][1]) if self.versions and not self.finished else None,
            "positions": dict(self.positions),
            "ended_by": self.ended_by,
            "actions": self.allowed(),
            "finished": self.finished,
        }
