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
this panel (`Layout.plain_name`), so a café's own layout names its own buttons. This is the
plain model the engine receives; panel.games.pengo_jump.mapping_file reads it from the
layout file.
"""

from __future__ import annotations

from dataclasses import dataclass

from panel.core.events import Action

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
