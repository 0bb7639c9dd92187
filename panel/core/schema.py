"""One small checker for every config file a person writes: tables declared as fields.

A reader declares what its file holds (`Table(fields={...})`, each field a `Bool`,
`Int`, `Str`, `Choice`, `Array`, `Each`, another `Table` ...) and reads the raw TOML
with it into plain values. Every problem is collected in `Problems`, never raised on the
first: a file gets all of them at once, each naming the file, the key as written and a
reason said in whoever reads it's language (a `Text`, panel.core.i18n). A wrong or
absent value reads as the field's default (None without one), so the reader goes on to
the checks that need several values (duplicate ids, pins used twice) and reports those too.

Why our own and not a library: voluptuous (Home Assistant's) and jsonschema report
English strings, stop a table at its first bad key (fastjsonschema at the first bad
value) and give no value to go on with; wrapping each of their messages in a Text and
re-deriving our keys ("modules[0].sections[1].id") from their paths would be as long
as this module, which is pure (no I/O) and shared by the engines' settings too.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field
from typing import Any, Callable

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, Word

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING", "__bool__": lambda self: False})()
UNKNOWN_KEY = N_("unknown key (expected one of: {keys})")


def join(key: str | None, name: str | int) -> str:
    """The key of `name` inside `key`: "modules[0]" + "id" = "modules[0].id", + 2 = "modules[0][2]"."""
    if isinstance(name, int):
        return f"{key or ''}[{name}]"
    return f"{key}.{name}" if key else name


def say(message: str, value: Any = MISSING, **values: Any) -> Text:
    """A Text of `message` with only the named values it uses: {value} (the value as
    written), {type} (its TOML type's Python name) and any of `values`."""
    names = {n for _, n, _, _ in string.Formatter().parse(message) if n}
    given = dict(values)
    if value is not MISSING:
        given |= {"value": repr(value), "type": type(value).__name__}
    return Text(message, **{k: v for k, v in given.items() if k in names})


class Problems:
    """Every problem of one file, collected while it is read and raised together."""

    def __init__(self, file: Any = None):
        self.file = str(file) if file is not None else None
        self.found: list[Problem] = []

    def add(self, key: str | None, reason: Any) -> None:
        self.found.append(Problem(self.file, key or None, reason))

    def unknown(self, raw: dict, allowed: tuple[str, ...] | list[str], key: str | None) -> None:
        """A problem for each key of `raw` not in `allowed`, listing the allowed ones."""
        for k in raw:
            if k not in allowed:
                self.add(join(key, k), Text(UNKNOWN_KEY, keys=", ".join(allowed)))

    def collect(self, read: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """`read(...)`, its ConfigError's problems joined to these (None then)."""
        try:
            return read(*args, **kwargs)
        except ConfigError as e:
            self.found += e.problems
            return None

    def __bool__(self) -> bool:
        return bool(self.found)

    def __len__(self) -> int:
        return len(self.found)

    def raise_any(self) -> None:
        if self.found:
            raise ConfigError(self.found)


# ---------------------------------------------------------------------------- fields

@dataclass(frozen=True, kw_only=True)
class Field:
    """One value of a table. `default`: what it reads as when absent or wrong; `required`:
    absent is a problem ("missing 'id'" on the table, or `missing` on the key itself);
    `says`: the reason a wrong value gets (N_()-marked; {value}, {type} and `values`)."""

    default: Any = None
    required: bool = False
    missing: str | None = None
    says: str | None = None
    values: dict[str, Any] = field(default_factory=dict)

    def read(self, v: Any, key: str, problems: Problems, table: str | None = None) -> Any:
        if v is MISSING:
            if self.required or self.missing:
                if self.missing:
                    problems.add(key, say(self.missing, **self.values))
                else:
                    problems.add(table, Text(N_("missing '{key}'"), key=key.rsplit(".", 1)[-1]))
            return self.default
        got = self.check(v, key, problems)
        return self.default if got is MISSING else got

    def check(self, v: Any, key: str, problems: Problems) -> Any:
        """The value checked (converted where the field says so), or MISSING after a problem."""
        return v

    def wrong(self, v: Any, key: str, problems: Problems, message: str | None = None, **more: Any) -> Any:
        problems.add(key, say(self.says or message or N_("must be {what}, not {value}"), v, **(more | self.values)))
        return MISSING


def whole(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


@dataclass(frozen=True, kw_only=True)
class Bool(Field):
    def check(self, v, key, problems):
        return v if isinstance(v, bool) else self.wrong(v, key, problems, N_("must be true or false"))


@dataclass(frozen=True, kw_only=True)
class Str(Field):
    pattern: re.Pattern | None = None

    def check(self, v, key, problems):
        if not isinstance(v, str) or (self.pattern is not None and not self.pattern.match(v)):
            return self.wrong(v, key, problems, N_("must be a string"))
        return v


@dataclass(frozen=True, kw_only=True)
class Int(Field):
    """A whole number in lo..hi; `what` (N_()-marked) says what it is in the reasons."""

    lo: int | None = None
    hi: int | None = None
    what: str = N_("a whole number")

    def check(self, v, key, problems):
        if not whole(v):
            return self.wrong(v, key, problems, N_("must be {what}, not {value}"), what=Word(self.what))
        if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
            problems.add(key, say(self.says or N_("{value} is out of range ({what})"), v,
                                  **({"what": Word(self.what)} | self.values)))
            return MISSING
        return v


@dataclass(frozen=True, kw_only=True)
class Number(Field):
    """A number (whole or not) for which `ok` holds; read as a float."""

    ok: Callable[[float], bool] = lambda x: True

    def check(self, v, key, problems):
        if not number(v) or not self.ok(v):
            return self.wrong(v, key, problems, N_("must be a number"))
        return float(v)


@dataclass(frozen=True, kw_only=True)
class Choice(Field):
    options: tuple[Any, ...] = ()

    def check(self, v, key, problems):
        if v not in self.options:
            return self.wrong(v, key, problems, N_("{value} is not one of: {options}"),
                              options=", ".join(map(str, self.options)))
        return v


@dataclass(frozen=True, kw_only=True)
class Array(Field):
    """An array; with `of`, each item read by that field (a wrong item reads as its default,
    so the items keep their places: "cards[3]" is the fourth card)."""

    of: Field | None = None
    default: Any = ()

    def check(self, v, key, problems):
        if not isinstance(v, list):
            return self.wrong(v, key, problems, N_("must be an array, not {type}"))
        if self.of is None:
            return list(v)
        return [self.of.read(item, join(key, i), problems, key) for i, item in enumerate(v)]


@dataclass(frozen=True, kw_only=True)
class Table(Field):
    """A table of declared keys (a key not declared is a problem listing the declared
    ones), read as {key: value} with every declared key present."""

    fields: dict[str, Field] = field(default_factory=dict)

    def check(self, v, key, problems):
        if not isinstance(v, dict):
            return self.wrong(v, key, problems, N_("must be a table, not {type}"))
        problems.unknown(v, tuple(self.fields), key)
        return {name: f.read(v.get(name, MISSING), join(key, name), problems, key) for name, f in self.fields.items()}

    def read_top(self, raw: dict, problems: Problems) -> dict[str, Any]:
        """A whole file's top level (its keys have no table before them)."""
        return self.check(raw, None, problems)


@dataclass(frozen=True, kw_only=True)
class Each(Field):
    """A table whose keys are the file's own names (control ids, section names), each
    value read by `of`: read as {name: value}, wrong values left out."""

    of: Field = field(default_factory=Field)
    default: Any = field(default_factory=dict)

    def check(self, v, key, problems):
        if not isinstance(v, dict):
            return self.wrong(v, key, problems, N_("must be a table, not {type}"))
        out = {}
        for name, item in v.items():
            got = self.of.read(item, join(key, name), problems, key)
            if got is not None:
                out[name] = got
        return out


@dataclass(frozen=True, kw_only=True)
class Check(Field):
    """A value checked by a function of its own: `test(value)` is the reason it is wrong
    (a Text, or an N_() message said with {value} and `values`) or None, and `convert`
    what it reads as."""

    test: Callable[[Any], str | Text | None] = lambda v: None
    convert: Callable[[Any], Any] = lambda v: v

    def check(self, v, key, problems):
        why = self.test(v)
        if isinstance(why, Text):
            problems.add(key, why)
            return MISSING
        return self.wrong(v, key, problems, why) if why else self.convert(v)
