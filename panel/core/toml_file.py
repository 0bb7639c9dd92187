"""Reading a TOML file: every config reader's one way in (layouts, hardware maps, decks,
scenarios, settings, calibration), each problem a `Problem` naming the file and key.

Its own module so that what only checks values (panel.core.errors, panel.core.schema, the
engines' settings) imports no file reader.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text

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
