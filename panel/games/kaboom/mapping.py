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

The hardware map needs no change for a build that already has these controls. This is the
plain model the engine receives; panel.games.kaboom.mapping_file reads it from the layout file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

BUTTON_ROLES = ("recharge", "mission", "alert_flipped", "alert_deactivated", "start")


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
