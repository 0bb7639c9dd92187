"""What a mission's pages call the panel's controls, in the reader's language: which button
is the alert, the recharge and the mission button, said by what it is on the panel (its
plain name and colour, from the layout), and how the players lift the mission button's
protection now (Kaboom rule 9). Part of the game's presentation (`Game.present`): the
pages show these words and never name a control by its id."""

from __future__ import annotations

from typing import Any

from panel.core.i18n import N_, Word, render
from panel.games.kaboom.engine import KaboomMatch, Phase

# The buttons the players must find on the panel, in the order the TV lists them.
ROLES = (
    ("alert_flipped", N_("We flipped an alert card")),
    ("alert_deactivated", N_("We turned an alert card back face down")),
    ("recharge", N_("Recharge")),
    ("mission", N_("Mission button")),
)
COVER = N_("Its protection")


def named(engine: KaboomMatch, control: str, tr: Any) -> str:
    """A control as a person finds it: its plain name, with a button's colour when the name
    does not say it already ("up on the direction cross (blue)"); a token's name is its own."""
    layout = engine.layout
    name = layout.plain_name(control, tr)
    if control in layout.tokens:
        return name
    colour = render(tr, "{colour}", {"colour": Word(layout.control(control).colour)})
    return name if colour.lower() in name.lower() else render(tr, N_("{name} ({colour})"),
                                                               {"name": name, "colour": colour})


def position(tr: Any, pos: str) -> str:
    """A token's position as the panel prints it: a word in the reader's language, a number as it is."""
    return tr.gettext(pos) if pos.isalpha() else pos


def legend(engine: KaboomMatch, tr: Any) -> list[dict[str, Any]]:
    """Each button's role in the mission and what it is on the panel; [] without a panel."""
    layout, mapping = engine.layout, engine.mapping
    if layout is None or mapping is None:
        return []
    rows = [{"role": role, "what": tr.gettext(what), "name": named(engine, getattr(mapping, role), tr),
             "colour": layout.control(getattr(mapping, role)).colour} for role, what in ROLES]
    rows.append({"role": "cover", "what": tr.gettext(COVER), "name": named(engine, mapping.cover, tr),
                 "colour": layout.control(mapping.cover).colour})
    return rows


def protection(engine: KaboomMatch, tr: Any) -> str | None:
    """How the players lift the protection now, or that it is off (None once the mission is
    being closed or over): a protection that starts on with the lever already at its lifting
    position is lifted by moving it away and back (Kaboom rule 9)."""
    mapping, layout = engine.mapping, engine.layout
    if mapping is None or layout is None or engine.phase in (Phase.CLOSING, Phase.FINISHED):
        return None
    if engine.cover_open:
        return render(tr, N_("Protection off: {mission} closes the mission"),
                      {"mission": named(engine, mapping.mission, tr)})
    control = layout.plain_name(mapping.cover, tr)
    opened = position(tr, mapping.cover_open)
    if engine.positions.get(mapping.cover) == mapping.cover_open:
        away = next(p for p in mapping.cover_positions if p != mapping.cover_open)
        return render(tr, N_("The mission button is protected: to lift the protection, move {control} to "
                             "“{away}”, then back to “{open}”"),
                      {"control": control, "away": position(tr, away), "open": opened})
    return render(tr, N_("The mission button is protected: to lift the protection, move {control} to “{open}”"),
                  {"control": control, "open": opened})
