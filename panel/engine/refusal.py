"""The engines' one answer to "may this happen now, and if not, why"."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Refusal:
    """Why an action may not happen now, in one line for a person. `param` names the
    parameter at fault when the request itself is wrong (a team that is not in the match,
    a card index out of range); it is None when the request is fine but the moment is not."""

    reason: str
    param: str | None = None

    def __str__(self) -> str:
        return f"{self.param}: {self.reason}" if self.param else self.reason


def unknown(action: Any, actions: dict[str, tuple[str, ...]], what: str = "an action") -> Refusal | None:
    """An action a game does not know, or a parameter it does not take: the first part of
    every engine's `malformed`. `actions` is the game's list (panel.events)."""
    name, params = action.name, action.params
    if not isinstance(name, str) or name not in actions:
        return Refusal(f"{name!r} is not {what} (expected one of: {', '.join(actions)})", "action")
    takes = actions[name]
    for k in params:
        if k not in takes:
            return Refusal(f"{name} takes {'only ' + ', '.join(takes) if takes else 'no parameters'}", k)
    return None
