"""One error type for everything a person wrote by hand: layouts, decks, maps, scenarios.

Each problem names the file, the key and what is wrong, so the command line can print
one line per problem and never a traceback. Reading a TOML file is panel.core.toml_file's
(this module reads nothing: the engines use it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.i18n import N_, Text


class Problem:
    """One thing wrong with one file: where (file, key) and why. A reason given as a Text
    (panel.core.i18n) can be said in the language of whoever reads it (`text(tr)`); `reason`
    and `str()` are English."""

    __slots__ = ("file", "key", "reason", "said")

    def __init__(self, file: str | Path | None, key: str | None, reason: Any):
        self.file = str(file) if file is not None else None
        self.key = key
        self.said = reason if hasattr(reason, "text") else None
        self.reason = str(reason)

    def text(self, tr: Any = None) -> str:
        reason = self.said.text(tr) if self.said is not None and tr is not None else self.reason
        where = ": ".join(p for p in (self.file, self.key) if p)
        return f"{where}: {reason}" if where else reason

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Problem({str(self)!r})"


class ConfigError(Exception):
    """Raised with every problem found, not just the first."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, (Problem, str)):
            problems = [problems if isinstance(problems, Problem) else Problem(None, None, problems)]
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
