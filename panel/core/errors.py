"""One error type for everything a person wrote by hand: layouts, decks, maps, scenarios.

Each problem names the file, the key and what is wrong, so the command line can print
one line per problem and never a traceback. Also the errors every layer shares: a request
refused (`Refused`, said to whoever asked) and a store's (`StoreError` and its kinds).
"""

from __future__ import annotations

import re
import tomllib
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


# What the TOML reader (tomllib) cannot take, and how to find it in the text: values
# nested deeper than its recursion allows, and integers longer than CPython converts
# (sys.get_int_max_str_digits(), 4300 by default).
_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_LONG_INT = re.compile(r"(?<![\w.])[+-]?\d[\d_]{%d,}" % 4300)


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file: every config reader's one way in (layouts, hardware maps, decks,
    scenarios, settings, calibration). I/O and syntax errors, and what the TOML reader
    cannot take (too deep, too long a number), become a ConfigError naming the file and,
    where the text shows it, the key and line."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = f.read()
        return tomllib.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(Problem(path, None, Text(N_("file not found")))) from None
    except IsADirectoryError:
        raise ConfigError(Problem(path, None, Text(N_("is a directory, not a file")))) from None
    except PermissionError:
        raise ConfigError(Problem(path, None, Text(N_("permission denied")))) from None
    except UnicodeDecodeError:
        raise ConfigError(Problem(path, None, Text(N_("not UTF-8 text")))) from None
    except OSError as e:
        raise ConfigError(Problem(path, None, Text(N_("cannot be read ({why})"), why=e.strerror or e))) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(Problem(path, None, Text(N_("not valid TOML ({why})"), why=e))) from None
    except RecursionError:
        text = data.decode("utf-8")
        line = _deepest_line(text)
        raise ConfigError(Problem(path, _key_at(text, line),
                                  Text(N_("arrays or tables nested too deeply (line {line})"), line=line + 1))) from None
    except ValueError as e:  # not a TOMLDecodeError: a number the reader cannot convert
        text = data.decode("utf-8")
        m = _LONG_INT.search(text)
        if m is None:
            raise ConfigError(Problem(path, None, Text(N_("a value cannot be read ({why})"), why=e))) from None
        line = text.count("\n", 0, m.start())
        digits = sum(ch.isdigit() for ch in m.group())
        raise ConfigError(Problem(path, _key_at(text, line),
                                  Text(N_("a number of {digits} digits is too long (line {line})"), digits=digits,
                                       line=line + 1))) from None


def _deepest_line(text: str) -> int:
    """The line where brackets and braces open deepest (strings and comments aside)."""
    depth = best = best_line = line = 0
    quote = None
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote is not None:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = None
            elif ch == "\n":
                line += 1
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif ch == "\n":
            line += 1
        elif ch in "[{":
            depth += 1
            if depth > best:
                best, best_line = depth, line
        elif ch in "]}":
            depth = max(0, depth - 1)
        i += 1
    return best_line


def _key_at(text: str, line: int) -> str | None:
    """The dotted key whose value is on `line`: the last table header above it and the
    key of the nearest `key = ...` line at or above it."""
    lines = text.splitlines()[:line + 1]
    key = None
    for ln in reversed(lines):
        h = _HEADER.match(ln)
        if h is not None:
            table = ".".join(part.strip().strip("\"'") for part in h.group(1).split("."))
            return f"{table}.{key}" if key else None
        if key is None and "=" in ln:
            key = ln.split("=", 1)[0].strip().strip("\"'") or None
    return key


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
