"""The engines' one answer to "may this happen now, and if not, why"."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    """Why an action may not happen now, in one line for a person. `param` names the
    parameter at fault when the request itself is wrong (a team that is not in the match,
    a card index out of range); it is None when the request is fine but the moment is not."""

    reason: str
    param: str | None = None

    def __str__(self) -> str:
        return f"{self.param}: {self.reason}" if self.param else self.reason
