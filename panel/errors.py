"""One error type for everything a person wrote by hand: layouts, decks, maps, scenarios.

Each problem names the file, the key and what is wrong, so the command line can print
one line per problem and never a traceback.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


class Problem:
    """One thing wrong with one file: where (file, key) and why."""

    __slots__ = ("file", "key", "reason")

    def __init__(self, file: str | Path | None, key: str | None, reason: str):
        self.file = str(file) if file is not None else None
        self.key = key
        self.reason = reason

    def __str__(self) -> str:
        where = ": ".join(p for p in (self.file, self.key) if p)
        return f"{where}: {self.reason}" if where else self.reason

    def __repr__(self) -> str:
        return f"Problem({str(self)!r})"


class ConfigError(Exception):
    """Raised with every problem found, not just the first."""

    def __init__(self, problems: list[Problem] | Problem | str):
        if isinstance(problems, (Problem, str)):
            problems = [problems if isinstance(problems, Problem) else Problem(None, None, problems)]
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file, turning I/O and syntax errors into a ConfigError naming the file."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(Problem(path, None, "file not found")) from None
    except IsADirectoryError:
        raise ConfigError(Problem(path, None, "is a directory, not a file")) from None
    except PermissionError:
        raise ConfigError(Problem(path, None, "permission denied")) from None
    except UnicodeDecodeError:
        raise ConfigError(Problem(path, None, "not UTF-8 text")) from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(Problem(path, None, f"not valid TOML ({e})")) from None
