"""Reading a layout file: its tables declared once (panel.core.schema), then the checks
that need the whole panel (ids given twice, a section's roles), then the `Layout` of one
side, with or without the expansion modules (panel.core.layout, the plain model).
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, Word
from panel.core.layout import (COCKPIT_ROLES, DIRECTIONS, SECTION_KINDS, SIDES, TOKEN_KINDS, Button, Layout, Module,
                               Section, Token)
from panel.core.schema import MISSING, Array, Bool, Check, Choice, Field, Problems, Str, Table, say, whole
from panel.core.toml_file import read_toml

DEFAULT_LAYOUT = "penguin-airlines.toml"
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_COORDINATE = re.compile(r"^[A-Z][1-9][0-9]?$")
_LETTER = re.compile(r"^[A-Z]$")


def default_layout_path() -> Path:
    return Path(str(resources.files("panel") / "layouts" / DEFAULT_LAYOUT))


class Sided(Field):
    """A value that is either a string or a table {blue = ..., gray = ...}: both sides are
    checked whichever one is played."""

    def check(self, v, key, problems):
        if isinstance(v, dict):
            if set(v) != set(SIDES):
                problems.add(key, Text(N_("a per-side value needs exactly the keys 'blue' and 'gray'")))
                return MISSING
            wrong = [v[s] for s in SIDES if not isinstance(v[s], str)]
            return self.wrong(wrong[0], key, problems) if wrong else dict(v)
        return v if isinstance(v, str) else self.wrong(v, key, problems)


def _sided(default: str) -> Sided:
    return Sided(default=default, says=N_("must be a string or a {{blue, gray}} table, not {type}"))


def _text(default: str | None = None) -> Str:
    return Str(default=default, says=N_("must be a string, not {type}"))


def _at(v: Any) -> str | None:
    if isinstance(v, list) and len(v) == 2 and all(whole(x) and x >= 0 for x in v):
        return None
    return N_("must be [column, row], two whole numbers >= 0")


def _positions(v: Any) -> Text | None:
    if not isinstance(v, list) or not all(isinstance(p, str) and p for p in v):
        return Text(N_("must be an array of position names (strings)"))
    if len(v) < 2:
        return Text(N_("a token needs at least 2 positions, this one has {n}"), n=len(v))
    if len(set(v)) != len(v):
        return Text(N_("a position name appears twice"))
    return None


_NAMED = Str(required=True, pattern=_NAME, says=N_("{value} must be lowercase letters, digits, '_' or '-'"))
_AT = Check(test=_at, convert=tuple)
_BUTTON = {"name": _NAMED, "colour": _sided("white"), "shape": _text("square"), "label": _sided(""), "role": Field(),
           "at": _AT}
_COCKPIT_BUTTON = Table(fields=_BUTTON | {
    "shape": _text("round"), "label": _text(),
    "role": Choice(options=COCKPIT_ROLES, required=True, says=N_("{value} is not a cockpit role ({roles})"),
                   values={"roles": ", ".join(COCKPIT_ROLES)})})
_TOKEN = Table(fields={
    "name": _NAMED,
    "kind": Choice(options=TOKEN_KINDS, required=True, says=N_("{value} is not a token kind ({kinds})"),
                   values={"kinds": ", ".join(TOKEN_KINDS)}),
    "colour": _sided("gray"), "positions": Check(required=True, test=_positions, convert=tuple), "start": Field(),
    "at": _AT})
_SECTION = Table(fields={
    "id": _NAMED,
    "kind": Choice(options=SECTION_KINDS, required=True, says=N_("{value} is not a section kind ({kinds})"),
                   values={"kinds": ", ".join(SECTION_KINDS)}),
    "label": _text(), "buttons": Array(of=Table(fields=_BUTTON)), "tokens": Array(of=_TOKEN)})
_MODULE = Table(fields={"id": _NAMED, "name": _text(), "expansion": Bool(default=False), "at": _AT,
                        "sections": Array(of=_SECTION)})
# [kaboom], [pengo_jump]: how Penguin Kaboom and Pengo Jump use this panel's controls, read by
# panel.games.kaboom.mapping_file and panel.games.pengo_jump.mapping
LAYOUT_FILE = Table(fields={"name": _text("layout"), "format": Field(default=1), "description": Field(),
                            "cockpit": Array(of=_COCKPIT_BUTTON), "modules": Array(of=_MODULE), "kaboom": Field(),
                            "pengo_jump": Field()})


def _pick(value: Any, side: str) -> Any:
    return value[side] if isinstance(value, dict) else value


class _Panel:
    """The checks a layout needs beyond each value's own (ids given twice, roles, a
    section's required buttons), and the dataclasses of one side."""

    def __init__(self, problems: Problems, side: str):
        self.problems, self.side = problems, side
        self.seen: dict[str, str] = {}  # control id -> key it was first defined at
        self.modules: dict[str, Module] = {}
        self.sections: dict[str, Section] = {}
        self.buttons: dict[str, Button] = {}
        self.tokens: dict[str, Token] = {}
        self.cockpit: dict[str, Button] = {}

    def claim(self, cid: str, key: str) -> bool:
        if cid in self.seen:
            self.problems.add(key, Text(N_("duplicate control id '{id}' (first defined at {key})"), id=cid,
                                        key=self.seen[cid]))
            return False
        self.seen[cid] = key
        return True

    def cockpit_button(self, i: int, b: dict[str, Any]) -> None:
        key = f"cockpit[{i}]"
        if b["name"] is None or not self.claim(f"cockpit.{b['name']}", key):
            return
        role = b["role"]
        if role is not None and any(c.role == role for c in self.cockpit.values()):
            self.problems.add(f"{key}.role", Text(N_("role '{role}' given twice in the cockpit"), role=role))
        label = b["label"] if b["label"] is not None else b["name"].upper()
        cid = f"cockpit.{b['name']}"
        self.cockpit[cid] = Button(cid, b["name"], "cockpit", "cockpit", _pick(b["colour"], self.side), b["shape"],
                                   label, role, b["at"] or (i, 0))

    def module(self, mi: int, m: dict[str, Any]) -> None:
        mkey, mid = f"modules[{mi}]", m["id"]
        if mid is not None and mid in self.modules:
            self.problems.add(f"{mkey}.id", Text(N_("duplicate module id '{id}'"), id=mid))
            return
        sections = []
        for si, s in enumerate(m["sections"]):
            sid = self.section(f"{mkey}.sections[{si}]", mid or "", m["expansion"], s) if s is not None else None
            if sid is not None:
                sections.append(sid)
        if not sections:
            self.problems.add(mkey, Text(N_("a module needs at least one section")))
        if mid is not None:
            self.modules[mid] = Module(mid, m["name"] if m["name"] is not None else mid, m["expansion"],
                                       m["at"] or (mi, 0), tuple(sections))

    def section(self, skey: str, mid: str, expansion: bool, s: dict[str, Any]) -> str | None:
        sid, kind = s["id"], s["kind"]
        if kind is None or sid is None:
            return None
        if sid in self.sections or sid == "cockpit":
            self.problems.add(f"{skey}.id", Text(N_("duplicate section id '{id}'"), id=sid))
            return None
        roles: dict[str, str] = {}
        where = (skey, sid, kind, mid, expansion)
        buttons = [self.button(where, bi, b, roles) if b is not None else None for bi, b in enumerate(s["buttons"])]
        tokens = [self.token(where, ti, t) if t is not None else None for ti, t in enumerate(s["tokens"])]
        _check_section_roles(self.problems, skey, sid, kind, roles)
        if not s["buttons"] and not s["tokens"]:
            self.problems.add(skey, Text(N_("section '{section}' has no controls"), section=sid))
        self.sections[sid] = Section(sid, mid, kind, s["label"] if s["label"] is not None else sid,
                                     tuple(filter(None, buttons)), tuple(filter(None, tokens)), roles, expansion)
        return sid

    def button(self, where: tuple, bi: int, b: dict[str, Any], roles: dict[str, str]) -> str | None:
        skey, sid, kind, mid, expansion = where
        bkey = f"{skey}.buttons[{bi}]"
        role = b["role"]
        if role is not None:
            role = _check_role(self.problems, f"{bkey}.role", kind, role)
        if b["name"] is None:
            return None
        cid = f"{sid}.{b['name']}"
        if not self.claim(cid, bkey):
            return None
        if role is not None and role in roles:
            self.problems.add(f"{bkey}.role", Text(
                N_("keypad letter '{role}' appears twice in section '{section}' (also on '{other}')") if kind == "keypad"
                else N_("role '{role}' appears twice in section '{section}' (also on '{other}')"),
                role=role, section=sid, other=roles[role]))
        elif role is not None:
            roles[role] = cid
        self.buttons[cid] = Button(cid, b["name"], sid, mid, _pick(b["colour"], self.side), b["shape"],
                                   _pick(b["label"], self.side), role, b["at"] or (bi, 0), expansion)
        return cid

    def token(self, where: tuple, ti: int, t: dict[str, Any]) -> str | None:
        skey, sid, kind, mid, expansion = where
        tkey = f"{skey}.tokens[{ti}]"
        if kind != "tokens":
            self.problems.add(tkey, Text(N_("tokens belong in a 'tokens' section, not a '{kind}' one"), kind=kind))
            return None
        positions = t["positions"]
        if positions is None:
            return None
        start = t["start"] if t["start"] is not None else positions[0]
        if start not in positions:
            self.problems.add(f"{tkey}.start", say(N_("{value} is not one of the positions {positions}"), start,
                                                   positions=list(positions)))
            start = positions[0]
        if t["name"] is None or t["kind"] is None or not self.claim(f"{sid}.{t['name']}", tkey):
            return None
        cid = f"{sid}.{t['name']}"
        self.tokens[cid] = Token(cid, t["name"], sid, mid, t["kind"], _pick(t["colour"], self.side), positions, start,
                                 t["at"] or (ti, 0), expansion)
        return cid

    def layout(self, name: str, file: str, expansion: bool) -> Layout:
        def kept(parts: dict) -> dict:  # the base game leaves the expansion modules in the box
            return parts if expansion else {k: v for k, v in parts.items() if not v.expansion}

        return Layout(name, self.side, expansion, file, kept(self.modules), kept(self.sections), kept(self.buttons),
                      kept(self.tokens), self.cockpit)


def _check_role(problems: Problems, key: str, skind: str, role: Any) -> str | None:
    if not isinstance(role, str):
        problems.add(key, Text(N_("must be a string")))
        return None
    if role == "ok":
        if skind not in ("sequence", "coordinates", "keypad"):
            problems.add(key, Text(N_("an OK button belongs in a sequence, coordinates or keypad section, not "
                                      "'{kind}'"), kind=skind))
        return role
    if ((skind == "sequence" and role in DIRECTIONS) or (skind == "coordinates" and _COORDINATE.match(role))
            or (skind == "keypad" and _LETTER.match(role))):
        return role
    expected = {"sequence": N_("a direction (up, down, left, right) or ok"),
                "coordinates": N_("a coordinate like A1, or ok"),
                "keypad": N_("one capital letter, or ok")}.get(skind, N_("no role"))
    problems.add(key, Text(N_("{value} is not a role for a '{kind}' section (expected {expected})"), value=repr(role),
                           kind=skind, expected=Word(expected)))
    return None


def _check_section_roles(problems: Problems, skey: str, sid: str, skind: str, roles: dict[str, str]) -> None:
    if skind in ("sequence", "coordinates", "keypad") and "ok" not in roles:
        problems.add(skey, Text(N_("{kind} section '{section}' has no OK button (role = \"ok\")"), kind=skind,
                                section=sid))
    if skind == "sequence" and sum(1 for d in DIRECTIONS if d in roles) < 2:
        problems.add(skey, Text(N_("sequence section '{section}' needs at least two direction buttons"), section=sid))
    if skind == "coordinates" and sum(1 for r in roles if r != "ok") < 2:
        problems.add(skey, Text(N_("coordinates section '{section}' needs at least two coordinate buttons"),
                                section=sid))
    if skind == "keypad" and sum(1 for r in roles if r != "ok") < 2:
        problems.add(skey, Text(N_("keypad section '{section}' needs at least two letter buttons"), section=sid))


def parse_layout(raw: dict, file: str, side: str, expansion: bool) -> tuple[Layout, list[Problem]]:
    """The layout of one side from a file's raw TOML, and every problem of the file (both
    sides' values are checked whichever side is asked for)."""
    problems = Problems(file)
    top = LAYOUT_FILE.read_top(raw, problems)
    if top["format"] != 1:
        problems.add("format", say(N_("unsupported layout format {value} (this program reads format 1)"),
                                   top["format"]))
    panel = _Panel(problems, side)
    for i, b in enumerate(top["cockpit"]):
        if b is not None:
            panel.cockpit_button(i, b)
    if not top["modules"]:
        problems.add("modules", Text(N_("a layout needs at least one module")))
    for mi, m in enumerate(top["modules"]):
        if m is not None:
            panel.module(mi, m)
    return panel.layout(top["name"], file, expansion), problems.found


def load_layout(path: str | Path | None = None, *, side: str = "blue", expansion: bool = False) -> Layout:
    """Read, check and resolve a layout file (the default one when path is None).

    Raises ConfigError listing every problem, each naming the file and the key.
    """
    if side not in SIDES:
        raise ConfigError(Problem(None, "side", Text(N_("{value} is not a side (blue or gray)"), value=repr(side))))
    file = Path(path) if path is not None else default_layout_path()
    layout, problems = parse_layout(read_toml(file), str(file), side, expansion)
    if problems:
        raise ConfigError(problems)
    return layout


@lru_cache(maxsize=4)
def whole_panel(path: str | None = None) -> Layout:
    """The build's whole panel: every control of the layout file, both sides' ids and the
    expansion's, whatever a match is played on (read once per file: the service reads it
    at its start, so a press that asks it, such as the walk-up's START, reads no file).
    Inputs are checked against it between matches, and the token positions it holds are
    kept through every match (they are side-free)."""
    return load_layout(path, side="blue", expansion=True)
