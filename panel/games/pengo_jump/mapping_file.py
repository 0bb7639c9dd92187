"""Reading Pengo Jump's mapping (the layout file's [pengo_jump] table, see
panel.games.pengo_jump.mapping), checked against the layout's buttons, every problem at once."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text
from panel.core.layout import Layout
from panel.core.layout_file import default_layout_path, load_layout
from panel.core.toml_file import read_toml
from panel.games.pengo_jump.mapping import OPTIONAL, ROLES, PengoMapping


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
