"""How Penguin Kaboom uses a panel: the layout file's [kaboom] table, checked against the
layout's own controls.

    [kaboom]
    players = { red = "alarm.red", blue = "beacon.blue", ... }   # colour = a lit button
    recharge = "cross.ok"                                         # the app's green button
    mission = "cross.up"                                          # the app's blue button
    cover = { control = "lever.big", open = "down" }              # the mission button's protection
    alert_flipped = "cross.red"                                   # "we flipped an alert face up"
    alert_deactivated = "cross.down"                              # "we turned one back face down"
    start = "cockpit.start"                                       # optional: the cockpit's START

The hardware map needs no change for a build that already has these controls.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from panel.games.kaboom.settings import COLOURS
from panel.core.errors import ConfigError, Problem
from panel.core.toml_file import read_toml
from panel.core.i18n import N_, Text
from panel.core.layout import Layout
from panel.core.layout_file import default_layout_path, load_layout

BUTTON_ROLES = ("recharge", "mission", "alert_flipped", "alert_deactivated", "start")
_KEYS = ("players",) + BUTTON_ROLES + ("cover",)


@dataclass(frozen=True)
class KaboomMapping:
    players: dict[str, str]  # colour -> button id
    recharge: str
    mission: str
    cover: str  # a token: the mission button's protection
    cover_open: str  # the cover token's position when the protection is off
    cover_positions: tuple[str, ...]
    alert_flipped: str
    alert_deactivated: str
    start: str | None

    def role(self, control: str) -> tuple[str, str | None] | None:
        """What a control is in Kaboom: ("colour", colour), (button role, None),
        ("cover", None), or None for a control the game does not use."""
        for colour, c in self.players.items():
            if c == control:
                return "colour", colour
        if control == self.cover:
            return "cover", None
        for r in BUTTON_ROLES:
            if getattr(self, r) == control:
                return r, None
        return None

    def as_dict(self) -> dict[str, Any]:
        return {"players": dict(self.players), **{r: getattr(self, r) for r in BUTTON_ROLES},
                "cover": {"control": self.cover, "open": self.cover_open,
                                                                      "positions": list(self.cover_positions)}}


def parse_mapping(raw: Any, layout: Layout, file: str) -> KaboomMapping:
    problems: list[Problem] = []

    def bad(key: str, reason: Text) -> None:
        problems.append(Problem(file, f"kaboom.{key}" if key else "kaboom", reason))

    if not isinstance(raw, dict):
        raise ConfigError(Problem(file, "kaboom", Text(N_("this layout has no [kaboom] table: it says which controls "
                                                          "Penguin Kaboom uses (see the default layout)"))))
    for k in raw:
        if k not in _KEYS:
            bad(k, Text(N_("unknown key (expected one of: {keys})"), keys=", ".join(_KEYS)))
    used: dict[str, str] = {}

    def button(key: str, cid: Any) -> str | None:
        if not isinstance(cid, str) or (cid not in layout.buttons and cid not in layout.cockpit):
            bad(key, Text(N_("{value} is not a button of the layout"), value=repr(cid)))
            return None
        if cid in used:
            bad(key, Text(N_("{id} is already the {key}: one job per control"), id=cid, key=used[cid]))
            return None
        used[cid] = key
        return cid

    players: dict[str, str] = {}
    raw_players = raw.get("players")
    if not isinstance(raw_players, dict) or not raw_players:
        bad("players", Text(N_("needs a table of colour = button id, e.g. {example}"), example='{ red = "alarm.red" }'))
        raw_players = {}
    for colour, cid in raw_players.items():
        if colour not in COLOURS:
            bad(f"players.{colour}", Text(N_("not a penguin colour ({colours})"), colours=", ".join(COLOURS)))
            continue
        b = button(f"players.{colour}", cid)
        if b is not None:
            players[colour] = b

    roles: dict[str, str | None] = {}
    for r in BUTTON_ROLES:
        cid = raw.get(r)
        if cid is None and r == "start":
            roles[r] = next((b.id for b in layout.cockpit.values() if b.role == "start"), None)
            continue
        if cid is None:
            bad(r, Text(N_("missing: which button is it?")))
            continue
        roles[r] = button(r, cid)

    cover = raw.get("cover")
    cover_id = cover_open = None
    cover_positions: tuple[str, ...] = ()
    if not isinstance(cover, dict) or set(cover) != {"control", "open"}:
        bad("cover", Text(N_("needs {example}: a token id, and its position when the protection is off"),
                         example='{ control = "...", open = "..." }'))
    else:
        tok = layout.tokens.get(cover["control"]) if isinstance(cover["control"], str) else None
        if tok is None:
            bad("cover.control", Text(N_("{value} is not a switch or lever of the layout"), value=repr(cover["control"])))
        elif cover["open"] not in tok.positions:
            bad("cover.open", Text(N_("{value} is not a position of {id} ({positions})"), value=repr(cover["open"]),
                                   id=tok.id, positions=", ".join(tok.positions)))
        elif cover["open"] == tok.start:
            bad("cover.open", Text(N_("{value} is where {id} starts: the protection must start on"),
                                   value=repr(cover["open"]), id=tok.id))
        else:
            cover_id, cover_open, cover_positions = tok.id, cover["open"], tok.positions
    if problems:
        raise ConfigError(problems)
    return KaboomMapping(players, roles["recharge"], roles["mission"], cover_id, cover_open, cover_positions,
                         roles["alert_flipped"],
                         roles["alert_deactivated"], roles["start"])


def load_mapping(path: str | Path | None = None) -> KaboomMapping:
    """The [kaboom] table of a layout file (the default layout when path is None), checked
    against the whole panel (both sides, with the expansion)."""
    file = Path(path) if path is not None else default_layout_path()
    layout = load_layout(file, expansion=True)
    return parse_mapping(read_toml(file).get("kaboom"), layout, str(file))
