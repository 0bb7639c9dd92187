"""How Pengo Jump uses a panel: the layout file's [pengo_jump] table, checked against the
layout's own buttons, every problem at once.

    [pengo_jump]
    snowy = "beacon.white"          # "I drew a snowy chunk"
    sea_lion = "beacon.red"         # "I drew a sea lion chunk"
    frosty = "beacon.blue"          # "I drew a frosty chunk"
    home = "cross.up"               # a penguin reached the iceberg
    fell = "cross.down"             # a penguin fell off the sea board
    small_sea_lion = "cross.left"   # a penguin hopped onto a small sea lion (Sea Lions Adventure)
    large_sea_lion = "cross.right"  # ... onto a large one
    end_turn = "cross.ok"           # my turn is over
    small_token_fell = "arrows.left"   # optional: a small sea lion token fell off the board
    large_token_fell = "arrows.right"  # optional: a large one did
    start = "cockpit.start"         # optional: the cockpit's START (the same group again)

Each button asks the engine for one action (`ROLES`); the TV names each by what it is on
this panel (`Layout.plain_name`), so a café's own layout names its own buttons.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.events import Action
from panel.core.i18n import N_, Text
from panel.core.layout import Layout
from panel.core.layout_file import default_layout_path, load_layout
from panel.core.toml_file import read_toml

# role: (the action it asks for, its parameters)
ROLES: dict[str, tuple[str, dict[str, str]]] = {
    "snowy": ("draw", {"kind": "snowy"}),
    "sea_lion": ("draw", {"kind": "sea_lion"}),
    "frosty": ("draw", {"kind": "frosty"}),
    "home": ("home", {}),
    "fell": ("fell", {}),
    "small_sea_lion": ("sea_lion", {"size": "small"}),
    "large_sea_lion": ("sea_lion", {"size": "large"}),
    "end_turn": ("end_turn", {}),
    "small_token_fell": ("token_fell", {"size": "small"}),
    "large_token_fell": ("token_fell", {"size": "large"}),
    "start": ("", {}),  # asks nothing in a game: START between games plays the same group again
}
OPTIONAL = ("small_token_fell", "large_token_fell", "start")


@dataclass(frozen=True)
class PengoMapping:
    buttons: dict[str, str]  # role -> button id

    def role(self, control: str) -> str | None:
        return next((r for r, c in self.buttons.items() if c == control), None)

    def asks(self, control: str, t: float) -> Action | None:
        role = self.role(control)
        if role is None or not ROLES[role][0]:
            return None
        name, params = ROLES[role]
        return Action(name, t, dict(params))

    def as_dict(self) -> dict[str, str]:
        return dict(self.buttons)


def parse_mapping(raw: Any, layout: Layout, file: str) -> PengoMapping:
    if not isinstance(raw, dict):
        raise ConfigError(Problem(file, "pengo_jump", Text(N_("this layout has no [pengo_jump] table: it says which "
                                                              "buttons Pengo Jump uses (see the default layout)"))))
    problems: list[Problem] = []
    buttons: dict[str, str] = {}
    for key in raw:
        if key not in ROLES:
            problems.append(Problem(file, f"pengo_jump.{key}", Text(N_("unknown key (expected one of: {names})"),
                                                                    names=", ".join(ROLES))))
    for role in ROLES:
        cid = raw.get(role)
        if cid is None and role == "start":
            cid = next((b.id for b in layout.cockpit.values() if b.role == "start"), None)
        if cid is None:
            if role not in OPTIONAL:
                problems.append(Problem(file, f"pengo_jump.{role}", Text(N_("missing: which button is it?"))))
            continue
        if not isinstance(cid, str) or (cid not in layout.buttons and cid not in layout.cockpit):
            problems.append(Problem(file, f"pengo_jump.{role}", Text(N_("{value} is not a button of the layout"),
                                                                     value=repr(cid))))
        elif cid in buttons.values():
            problems.append(Problem(file, f"pengo_jump.{role}", Text(N_("{id} is already the {key}: one job per "
                                                                        "control"), id=cid,
                                                                     key=next(r for r, c in buttons.items() if c == cid))))
        else:
            buttons[role] = cid
    if problems:
        raise ConfigError(problems)
    return PengoMapping(buttons)


@lru_cache(maxsize=4)
def panel_for(layout_path: str | None) -> tuple[Layout, PengoMapping | None]:
    """The whole panel and how Pengo Jump uses it; no mapping (None) on a layout without a
    [pengo_jump] table: the game is then reported on the game master's page only."""
    file = Path(layout_path) if layout_path is not None else default_layout_path()
    layout = load_layout(file, expansion=True)
    raw = read_toml(file).get("pengo_jump")
    return layout, (parse_mapping(raw, layout, str(file)) if raw is not None else None)
