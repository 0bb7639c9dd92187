"""The engines' one answer to "may this happen now, and if not, why"."""

from __future__ import annotations

from typing import Any

from panel.core.i18n import N_, Text, render


class Refusal(Text):
    """Why an action may not happen now, in one line for a person. `param` names the
    parameter at fault when the request itself is wrong (a team that is not in the match,
    a card index out of range); it is None when the request is fine but the moment is not.

    The engine knows no language: `message` is the English text marked N_() with named
    placeholders and `values` what goes in them; `text(tr)` says it in the language of
    whoever is shown it (the service, with the cockpit's language), `str()` in English."""

    __slots__ = ("param",)

    def __init__(self, message: str, param: str | None = None, **values: Any):
        # (Text's fields set here, not by its __init__: the engines make a dozen refusals a
        # turn's end, to list the actions allowed, before its state is sent.)
        self.message, self.values, self.param = message, values, param

    def text(self, tr=None) -> str:
        reason = super().text(tr)
        return f"{self.param}: {reason}" if self.param else reason

    @property
    def reason(self) -> str:
        """The reason in English, without the parameter."""
        return render(None, self.message, self.values)

    def __eq__(self, other: object) -> bool:
        return super().__eq__(other) and self.param == other.param  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]


def unknown(action: Any, actions: dict[str, tuple[str, ...]],
            not_one: str = N_("{name} is not an action (expected one of: {actions})")) -> Refusal | None:
    """An action a game does not know, or a parameter it does not take: the first part of
    every engine's `malformed`. `actions` is the game's list (panel.core.events); `not_one` says
    a name is not one of them."""
    name, params = action.name, action.params
    if not isinstance(name, str) or name not in actions:
        return Refusal(not_one, "action", name=repr(name), actions=", ".join(actions))
    takes = actions[name]
    for k in params:
        if k not in takes:
            if takes:
                return Refusal(N_("{name} takes only {params}"), k, name=name, params=", ".join(takes))
            return Refusal(N_("{name} takes no parameters"), k, name=name)
    return None
