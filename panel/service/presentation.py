"""What the pages see of the cockpit, in their language: the public state (the engine's
snapshot without the card, plus the service's fields), the game events, the game
master's problems, the tower's card and its drawing, the completed cards' view.

The engine says its words as ids and `Text`; the game (`Game.present`,
`Game.present_event`) names them for the reader. Read on the owner's turn; the drawings are
made on a worker thread, once per card: drawing takes milliseconds the presses cannot spare.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from panel.core.events import Action, GameEvent
from panel.core.i18n import N_, Text, Word, text_of, translations
from panel.core.layout import Layout
from panel.core.refusal import Refusal
from panel.games.airlines.engine import allowed_actions
from panel.service.inputs import link_status

if TYPE_CHECKING:
    from panel.service.cockpit import Cockpit

# What GET /api/state adds to the engine's snapshot: the service's, not the match's.
# "join" changes with each new join code (the pages showing it ask /api/join again); it
# is never the code.
SERVICE_FIELDS = ("match_id", "status", "link", "walk_up_problem", "store_error", "join", "unsaved")


def public_event(event: GameEvent) -> dict[str, Any]:
    """A game event as every page may see it: card_drawn without the card (only the tower
    with the join code gets the card, in its own message)."""
    d = event.as_dict()
    if event.type == "card_drawn":
        d.pop("card", None)
    return d


def draw_card(card: dict[str, Any], layout: Layout, language: str) -> dict[str, Any]:
    """The tower's card drawn (a worker thread's job): its SVG and its lines in plain words."""
    from panel.service.drawing import card_lines, card_svg  # the game's drawing code, loaded only when a tower looks

    return {"svg": card_svg(card, layout, language), "lines": card_lines(card, layout, language)}


class Presentation:
    """The views of `owner`'s match for the pages."""

    def __init__(self, owner: "Cockpit"):
        self.owner = owner
        self._art: tuple[str, dict[str, Any]] | None = None  # (card key, its drawing): the last card drawn
        self._presented: tuple | None = None  # (the engine's kept view, match, catalog, what it was presented as)

    def state(self, full: dict[str, Any] | None = None) -> dict[str, Any]:
        """GET /api/state: the snapshot without the card, plus the SERVICE_FIELDS."""
        o = self.owner
        match, record = o.match, o.record
        tr = translations(o.language)
        if match is None:
            state: dict[str, Any] = {"phase": "idle", "positions": dict(o.positions), "finished": False,
                                     "actions": allowed_actions(None)}
        else:
            state = self._presented_snapshot(match, tr, full if full is not None else match.snapshot(o.now()))
        state["match_id"] = record.id if record else None
        state["status"] = record.status if record else None
        state["walk_up_problem"] = o.walk_up_problem.text(tr) if o.walk_up_problem else None
        state["link"] = link_status(o.sources, sim=o.sim)
        error = o.saving.error
        state["store_error"] = tr.gettext(error) if error else None
        state["join"] = o.codes.version
        state["unsaved"] = o.unsaved.text(tr) if o.unsaved else None
        return state

    def _presented_snapshot(self, match: Any, tr: Any, full: dict[str, Any]) -> dict[str, Any]:
        """The match's snapshot `full` without the card, named by its game for the reader, as a
        dict of its own. Where the engine keeps its view (base.Engine.kept_view) and it is the
        one last presented, in the same language, it is not presented again: the last one is
        copied with `full`'s clock (a step of a card's entry, which changes nothing the pages
        show, makes none of it again). Between matches the cockpit's own
        positions stand in for the match's (the tokens as they stand now)."""
        o = self.owner
        active = o.active
        kept_view = getattr(match, "kept_view", None) if active else None
        view = kept_view() if kept_view is not None else None
        last = self._presented
        if view is not None and last is not None and last[0] is view and last[1] is match and last[2] is tr:
            state = dict(last[3])
            for name in match.CLOCK:
                state[name] = full[name]
            return state
        state = dict(full)
        state.pop("card", None)
        state = o.game.present(state, match, tr)
        if not active:
            state["positions"] = dict(o.positions)
        # (held here with the view, the match and the catalog: none of their ids can be reused)
        self._presented = None if view is None else (view, match, tr, dict(state))
        return state

    def events(self, events: list[GameEvent]) -> list[dict[str, Any]]:
        """One step's game events for the pages, public and named in their language (the
        game and its catalog looked up once for them all)."""
        o = self.owner
        match = o.match
        if match is None:
            return [public_event(e) for e in events]
        present, tr = o.game.present_event, translations(o.language)
        return [present(public_event(e), match, tr) for e in events]

    def refusal(self, control: str, asked: Action, why: Refusal) -> dict[str, Any]:
        """A refused press for the pages: the control, the action it asked for and why, in
        the pages' language."""
        o = self.owner
        tr = translations(o.language)
        layout = o.any_layout()
        return {"control": control, "action": asked.name, **asked.params, "reason": why.text(tr),
                "plain": layout.plain_name(control, tr) if control in layout else None, "t": o.now()}

    def problems(self) -> list[str]:
        """What the game master should know, in the pages' language: the start's findings,
        a store that cannot write."""
        o = self.owner
        error = o.saving.error
        now = [Text(N_("the cockpit cannot save: {reason}; presses and actions are refused until it can"),
                    reason=Word(error))] if error else []
        tr = translations(o.language)
        return [text_of(w, tr) for w in now + o.warnings]

    # ------------------------------------------------------------------ the tower's card
    def tower_card(self, full: dict[str, Any] | None = None) -> dict[str, Any] | None:
        o = self.owner
        full = full if full is not None else o.full_snapshot()
        card = (full or {}).get("card")
        if card is None or not o.active:
            return None
        return o.game.tower_card(card, o.match)

    def card_key(self, card: dict[str, Any] | None) -> str:
        """What a tower's drawing depends on: the card and the pages' language. Asked after
        a press whose card is not the very object last checked (fan_out.py): the card's repr
        (its keys always in the order the game makes them) is a tenth of the cost of JSON
        with sorted keys."""
        return repr((card, self.owner.language))

    async def tower_view(self) -> dict[str, Any]:
        """The card in play for the tower: the card, its drawing (SVG, in the cockpit's
        language) and its lines in plain words. Drawn on a worker thread, once per card."""
        card = self.tower_card()
        o = self.owner
        if card is None or o.match is None:
            return {"card": None, "svg": None, "lines": []}
        key = self.card_key(card)
        if self._art is None or self._art[0] != key:
            drawn = await asyncio.get_running_loop().run_in_executor(None, draw_card, card, o.match.layout, o.language)
            self._art = (key, drawn)
        return {"card": card, **self._art[1]}

    # ------------------------------------------------------------------ the completed cards
    async def completed_view(self) -> dict[str, Any]:
        """The completed cards of the turn in progress, or of the last turn between turns, each
        numbered as the game master's challenge menu numbers them, drawn for the pages: read
        on the owner's turn, drawn on a worker thread."""
        from panel.service.drawing import card_svg

        o = self.owner
        view = await o.call(self.completed, durable=False)
        layout, language = (o.match.layout, o.language) if o.match is not None else (None, None)

        def draw() -> list[dict[str, Any]]:
            return [{"index": i, "number": n, "svg": card_svg(c, layout, language) if c is not None else None}
                    for i, n, c in view["cards"]]

        return {"turn": view["turn"], "cards": await asyncio.get_running_loop().run_in_executor(None, draw)}

    def completed(self) -> dict[str, Any]:
        """The completed cards' turn and (index, number, card) each (on the owner's turn)."""
        full = self.owner.full_snapshot()
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
            card = self.owner.match.card(number)
            cards.append((i + 1, number, card.as_dict() if card is not None else None))
        return {"turn": turn, "cards": cards}
