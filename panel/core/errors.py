"""One error type for everything a person wrote by hand: layouts, decks, maps, scenarios.

Each problem names the file, the key and what is wrong, so the command line can print
one line per problem and never a traceback. Also the errors every layer shares: a request
refused (`Refused`, said to whoever asked) and a store's (`StoreError` and its kinds).
Reading a TOML file is panel.core.toml_file's (this module reads nothing: the engines use it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from panel.core.i18n import N_, Text
from panel.core.refusal import Refusal


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


# ---------------------------------------------------------------------------- refusals

# What a request is told when the store cannot write (the store's reason in plain words).
UNSAVED = N_("the cockpit cannot save ({reason}): nothing was changed, try again when it can")


class Refused(Exception):
    """A request the cockpit will not carry out now: `status` is the HTTP status to send,
    `message` (marked N_(), its named `values`) what to say, in the language of the page
    that asked (`text(tr)`; `str()` is English)."""

    def __init__(self, status: int, message: str | Text, **values: Any):
        self.said = message if isinstance(message, Text) else Text(message, **values)
        super().__init__(str(self.said))
        self.status = status

    def text(self, tr: Any = None) -> str:
        return self.said.text(tr)

    @classmethod
    def by_engine(cls, why: Refusal) -> "Refused":
        """The engine's refusal as HTTP: a request that is wrong in itself (a parameter at
        fault) is a 400, a request the moment does not allow a 409; the text is the engine's."""
        return cls(400 if why.param else 409, why)


# ---------------------------------------------------------------------------- a store's errors
# Raised by the SQLite kit (panel.storage.sqlite) and the stores built on it; the service's
# core and the pages catch them without importing the database adapter.

class StoreError(Exception):
    """The database cannot be used (not SQLite, newer schema, read-only ...)."""


class DatabaseUnusable(StoreError):
    """The file is no database this program can use (damaged, not SQLite, a newer schema):
    `path` is the file. The cockpit moves it aside (kept) and starts on a new one."""

    def __init__(self, message: Any, *, path: Any):
        super().__init__(message)
        self.path = path


class StoreWriteError(StoreError):
    """A write the database refused (a full disk, a read-only or failing card): the reason
    in plain words. Nothing of that write is kept; the caller tells whoever asked."""


class StoreUnavailable(StoreError):
    """The writer cannot commit now (the card is full, an I/O error): what waited on it
    was not acknowledged. The writes stay queued and are committed once it can."""


class BadRow(StoreError):
    """A row of the database that cannot be read (invalid JSON, the wrong shape)."""


class DatabaseInUse(StoreError):
    """Another `play` owns the database."""
