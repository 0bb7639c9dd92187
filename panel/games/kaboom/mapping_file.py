"""Reading Kaboom's mapping (the layout file's [kaboom] table, see panel.games.kaboom.mapping):
its keys declared once (panel.core.schema), then checked against the layout's controls,
every problem at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text
from panel.core.layout import Layout
from panel.core.layout_file import default_layout_path, load_layout
from panel.core.schema import Check, Field, Problems, Table
from panel.core.toml_file import read_toml
from panel.games.kaboom.mapping import BUTTON_ROLES, KaboomMapping
from panel.games.kaboom.settings import COLOURS

_WHICH = N_("missing: which button is it?")


_PLAYERS = N_("needs a table of colour = button id, e.g. {example}")
_COVER = N_("needs {example}: a token id, and its position when the protection is off")
MAPPING = Table(fields={
    "players": Check(default={}, missing=_PLAYERS, values={"example": '{ red = "alarm.red" }'},
                     test=lambda v: None if isinstance(v, dict) and v else _PLAYERS),
    **{r: Field(missing=None if r == "start" else _WHICH) for r in BUTTON_ROLES},
    "cover": Check(missing=_COVER, values={"example": '{ control = "...", open = "..." }'},
                   test=lambda v: None if isinstance(v, dict) and set(v) == {"control", "open"} else _COVER)})


class _Jobs:
    """One job per control: each button named once, and a button of the layout."""

    def __init__(self, layout: Layout, problems: Problems):
        self.layout, self.problems = layout, problems
        self.used: dict[str, str] = {}

    def button(self, key: str, cid: Any) -> str | None:
        if not isinstance(cid, str) or (cid not in self.layout.buttons and cid not in self.layout.cockpit):
            self.problems.add(f"kaboom.{key}", Text(N_("{value} is not a button of the layout"), value=repr(cid)))
            return None
        if cid in self.used:
            self.problems.add(f"kaboom.{key}", Text(N_("{id} is already the {key}: one job per control"), id=cid,
                                                    key=self.used[cid]))
            return None
        self.used[cid] = key
        return cid


def _cover_token(cover: dict | None, layout: Layout, problems: Problems) -> tuple[str | None, str | None, tuple]:
    """(token id, its open position, its positions), or Nones after a problem."""
    if cover is None:
        return None, None, ()
    tok = layout.tokens.get(cover["control"]) if isinstance(cover["control"], str) else None
    if tok is None:
        problems.add("kaboom.cover.control", Text(N_("{value} is not a switch or lever of the layout"),
                                                  value=repr(cover["control"])))
    elif cover["open"] not in tok.positions:
        problems.add("kaboom.cover.open", Text(N_("{value} is not a position of {id} ({positions})"),
                                               value=repr(cover["open"]), id=tok.id, positions=", ".join(tok.positions)))
    elif cover["open"] == tok.start:
        problems.add("kaboom.cover.open", Text(N_("{value} is where {id} starts: the protection must start on"),
                                               value=repr(cover["open"]), id=tok.id))
    else:
        return tok.id, cover["open"], tok.positions
    return None, None, ()


def parse_mapping(raw: Any, layout: Layout, file: str) -> KaboomMapping:
    if not isinstance(raw, dict):
        raise ConfigError(Problem(file, "kaboom", Text(N_("this layout has no [kaboom] table: it says which controls "
                                                          "Penguin Kaboom uses (see the default layout)"))))
    problems = Problems(file)
    v = MAPPING.read(raw, "kaboom", problems)
    jobs = _Jobs(layout, problems)
    players: dict[str, str] = {}
    for colour, cid in v["players"].items():
        if colour not in COLOURS:
            problems.add(f"kaboom.players.{colour}", Text(N_("not a penguin colour ({colours})"),
                                                          colours=", ".join(COLOURS)))
        elif (b := jobs.button(f"players.{colour}", cid)) is not None:
            players[colour] = b
    roles = {r: jobs.button(r, v[r]) if v[r] is not None else None for r in BUTTON_ROLES}
    if v["start"] is None:  # the cockpit's own START, when the table names none
        roles["start"] = next((b.id for b in layout.cockpit.values() if b.role == "start"), None)
    cover, cover_open, cover_positions = _cover_token(v["cover"], layout, problems)
    problems.raise_any()
    return KaboomMapping(players, roles["recharge"], roles["mission"], cover, cover_open, cover_positions,
                         roles["alert_flipped"], roles["alert_deactivated"], roles["start"])


def load_mapping(path: str | Path | None = None) -> KaboomMapping:
    """The [kaboom] table of a layout file (the default layout when path is None), checked
    against the whole panel (both sides, with the expansion)."""
    file = Path(path) if path is not None else default_layout_path()
    layout = load_layout(file, expansion=True)
    return parse_mapping(read_toml(file).get("kaboom"), layout, str(file))
