"""The master control panel: modules, sections, buttons and tokens, read from TOML.

A layout file describes both printed sides of every module card. `load_layout` checks
the whole file, then resolves it for one side and for the base game or the expansion,
giving the `Layout` that everything else uses. A layout knows nothing of pins.
"""

from __future__ import annotations

import gettext
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from panel.core.errors import ConfigError, Problem, read_toml
from panel.core.i18n import CONTROL_NAME, MODULE, N_, NC_, SECTION, SHAPE, SOURCE, Text, Word, render, translations

SIDES = ("blue", "gray")
DIRECTIONS = ("up", "down", "left", "right")
SECTION_KINDS = ("buttons", "sequence", "coordinates", "keypad", "tokens")
TOKEN_KINDS = ("knob", "switch", "click", "lever", "slider", "round_lever")
COCKPIT_ROLES = ("flip", "start")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_COORDINATE = re.compile(r"^[A-Z][1-9][0-9]?$")
_LETTER = re.compile(r"^[A-Z]$")

DEFAULT_LAYOUT = "penguin-airlines.toml"
# How a person calls each kind of token (plain names, see Layout.plain_name): the only one
# of its kind on the panel, the one of its colour, the one of its name.
_TOKEN_WORDS = {
    "knob": (N_("the rotating knob"), N_("the {colour} rotating knob"), N_("the {name} rotating knob")),
    "switch": (N_("the switch"), N_("the {colour} switch"), N_("the {name} switch")),
    "click": (N_("the click"), N_("the {colour} click"), N_("the {name} click")),
    "lever": (N_("the big lever"), N_("the {colour} big lever"), N_("the {name} big lever")),
    "slider": (N_("the slider"), N_("the {colour} slider"), N_("the {name} slider")),
    "round_lever": (N_("the round lever"), N_("the {colour} round lever"), N_("the {name} round lever")),
}
_DIRECTION_WORDS = {"up": NC_("direction", "up"), "down": NC_("direction", "down"),
                    "left": NC_("direction", "left"), "right": NC_("direction", "right")}


def default_layout_path() -> Path:
    return Path(str(resources.files("panel") / "layouts" / DEFAULT_LAYOUT))


@dataclass(frozen=True)
class Button:
    id: str
    name: str
    section: str
    module: str
    colour: str
    shape: str
    label: str
    role: str | None
    at: tuple[int, int]
    expansion: bool = False

    kind = "button"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": "button", "section": self.section, "module": self.module,
                "colour": self.colour, "shape": self.shape, "label": self.label, "role": self.role,
                "expansion": self.expansion}


@dataclass(frozen=True)
class Token:
    id: str
    name: str
    section: str
    module: str
    token_kind: str
    colour: str
    positions: tuple[str, ...]
    start: str
    at: tuple[int, int]
    expansion: bool = False

    kind = "token"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "kind": "token", "token_kind": self.token_kind, "section": self.section,
                "module": self.module, "colour": self.colour, "positions": list(self.positions),
                "start": self.start, "expansion": self.expansion}


@dataclass(frozen=True)
class Section:
    id: str
    module: str
    kind: str
    label: str
    buttons: tuple[str, ...]
    tokens: tuple[str, ...]
    roles: dict[str, str] = field(default_factory=dict)  # role -> button id
    expansion: bool = False

    @property
    def ok(self) -> str | None:
        return self.roles.get("ok")

    @property
    def controls(self) -> tuple[str, ...]:
        return self.buttons + self.tokens


@dataclass(frozen=True)
class Module:
    id: str
    name: str
    expansion: bool
    at: tuple[int, int]
    sections: tuple[str, ...]


@dataclass(frozen=True)
class Layout:
    """One layout resolved for one side, with or without the expansion modules."""

    name: str
    side: str
    expansion: bool
    source: str
    modules: dict[str, Module]
    sections: dict[str, Section]
    buttons: dict[str, Button]
    tokens: dict[str, Token]
    cockpit: dict[str, Button]  # flip, start ...: hardware of the cockpit, never judged

    def control(self, control_id: str) -> Button | Token:
        if control_id in self.buttons:
            return self.buttons[control_id]
        if control_id in self.tokens:
            return self.tokens[control_id]
        if control_id in self.cockpit:
            return self.cockpit[control_id]
        raise KeyError(control_id)

    def __contains__(self, control_id: str) -> bool:
        return control_id in self.buttons or control_id in self.tokens or control_id in self.cockpit

    def controls(self) -> Iterator[Button | Token]:
        """Every control in layout order: panel buttons and tokens, then the cockpit's own."""
        for section in self.sections.values():
            for cid in section.controls:
                yield self.control(cid)
        yield from self.cockpit.values()

    def cockpit_role(self, control_id: str) -> str | None:
        b = self.cockpit.get(control_id)
        return b.role if b else None

    def start_positions(self) -> dict[str, str]:
        return {tid: t.start for tid, t in self.tokens.items()}

    def plain_name(self, control_id: str, tr: gettext.NullTranslations | None = None) -> str:
        """What a person calls the control, derived from the layout: "the white beacon",
        "OK on the direction cross", "the red round lever", "the START button". Colours
        are this side's. Ids stay for scripts; this is for text people read, in the
        language of `tr` (English without it): the layout file's words are in the catalog
        (babel.cfg), each in its context (panel.core.i18n)."""
        tr = tr or translations(SOURCE)
        c = self.control(control_id)
        colour = Word(c.colour)
        if control_id in self.cockpit:
            return render(tr, N_("the {label} button"), {"label": c.label or c.name.upper()})
        if isinstance(c, Token):
            kin = [t for t in self.tokens.values() if t.token_kind == c.token_kind]
            alone, by_colour, by_name = _TOKEN_WORDS[c.token_kind]
            if len(kin) == 1:
                return tr.gettext(alone)
            if sum(t.colour == c.colour for t in kin) == 1:
                return render(tr, by_colour, {"colour": colour})
            return render(tr, by_name, {"name": tr.pgettext(CONTROL_NAME, c.name)})
        section = self.sections[c.section]
        name = self.modules[c.module].name if c.module in self.modules else section.label
        said = tr.pgettext(MODULE, name)
        module = said if said != name else "the " + name[:1].lower() + name[1:]
        alike = [self.buttons[b] for b in section.buttons]
        unique_colour = sum(b.colour == c.colour for b in alike) == 1
        col, row = c.at
        where = {"row": row + 1, "column": col + 1, "module": module, "colour": colour}
        if section.kind == "buttons":
            noun = tr.pgettext(SECTION, section.id.replace("_", " "))
            if c.label:
                return render(tr, N_("the {noun} button {label}"), {"noun": noun, "label": c.label})
            if len({b.colour for b in alike}) == len(alike):  # a row of coloured buttons: the colour names it
                return render(tr, N_("the {colour} {noun}"), {"noun": noun, "colour": colour})
            if unique_colour:
                return render(tr, N_("the {colour} {noun} button"), {"noun": noun, "colour": colour})
            return render(tr, N_("the {noun} button at row {row}, column {column}"),
                          {"noun": noun, "row": row + 1, "column": col + 1})
        word = tr.pgettext("direction", _DIRECTION_WORDS[c.role]) if c.role in DIRECTIONS else c.label
        if word:
            return render(tr, N_("{word} on {module}"), {"word": word, "module": module})
        if sum(b.shape == c.shape for b in alike) == 1:
            return render(tr, N_("the {shape} {colour} button on {module}"),
                          {**where, "shape": tr.pgettext(SHAPE, c.shape.split("-")[0])})
        if unique_colour:
            return render(tr, N_("the {colour} button on {module}"), where)
        return render(tr, N_("the button at row {row}, column {column} on {module}"), where)

    def as_dicts(self) -> list[dict[str, Any]]:
        out = []
        for c in self.controls():
            d = c.as_dict()
            if c.id in self.cockpit:
                d["section"] = "cockpit"
                d["module"] = None
            out.append(d)
        return out


# ---------------------------------------------------------------------------- loading

class _Checker:
    """Collects problems while walking the raw TOML, so a file gets every error at once."""

    def __init__(self, file: str):
        self.file = file
        self.problems: list[Problem] = []

    def add(self, key: str, reason: Text) -> None:
        self.problems.append(Problem(self.file, key, reason))

    def table(self, value: Any, key: str) -> dict | None:
        if not isinstance(value, dict):
            self.add(key, Text(N_("must be a table, not {type}"), type=type(value).__name__))
            return None
        return value

    def array(self, value: Any, key: str) -> list:
        if value is None:
            return []
        if not isinstance(value, list):
            self.add(key, Text(N_("must be an array, not {type}"), type=type(value).__name__))
            return []
        return value

    def unknown(self, raw: dict, allowed: tuple[str, ...], key: str) -> None:
        for k in raw:
            if k not in allowed:
                self.add(f"{key}.{k}", Text(N_("unknown key (expected one of: {keys})"), keys=", ".join(allowed)))

    def name(self, raw: dict, key: str, field_: str = "name") -> str | None:
        v = raw.get(field_)
        if v is None:
            self.add(key, Text(N_("missing '{key}'"), key=field_))
            return None
        if not isinstance(v, str) or not _NAME.match(v):
            self.add(f"{key}.{field_}", Text(N_("{value} must be lowercase letters, digits, '_' or '-'"), value=repr(v)))
            return None
        return v

    def text(self, raw: dict, key: str, field_: str, default: str = "") -> str:
        v = raw.get(field_, default)
        if not isinstance(v, str):
            self.add(f"{key}.{field_}", Text(N_("must be a string, not {type}"), type=type(v).__name__))
            return default
        return v

    def sided(self, raw: dict, key: str, field_: str, side: str, default: str = "") -> str:
        """A value that is either a string or a table {blue = ..., gray = ...}."""
        v = raw.get(field_, default)
        if isinstance(v, dict):
            missing = [s for s in SIDES if s not in v]
            extra = [s for s in v if s not in SIDES]
            if missing or extra:
                self.add(f"{key}.{field_}", Text(N_("a per-side value needs exactly the keys 'blue' and 'gray'")))
                return default
            v = v[side]
        if not isinstance(v, str):
            self.add(f"{key}.{field_}", Text(N_("must be a string or a {{blue, gray}} table, not {type}"),
                                             type=type(v).__name__))
            return default
        return v

    def at(self, raw: dict, key: str, default: tuple[int, int]) -> tuple[int, int]:
        v = raw.get("at")
        if v is None:
            return default
        if (not isinstance(v, list) or len(v) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in v)):
            self.add(f"{key}.at", Text(N_("must be [column, row], two whole numbers >= 0")))
            return default
        return (v[0], v[1])


_BUTTON_KEYS = ("name", "colour", "shape", "label", "role", "at")
_TOKEN_KEYS = ("name", "kind", "colour", "positions", "start", "at")
_SECTION_KEYS = ("id", "kind", "label", "buttons", "tokens")
_MODULE_KEYS = ("id", "name", "expansion", "at", "sections")
# [kaboom]: how Penguin Kaboom uses this panel's controls, read by panel.games.kaboom.mapping
_TOP_KEYS = ("name", "format", "description", "cockpit", "modules", "kaboom")


def _parse(raw: dict, file: str, side: str, expansion: bool) -> tuple[Layout, list[Problem]]:
    chk = _Checker(file)
    chk.unknown(raw, _TOP_KEYS, "layout")
    fmt = raw.get("format", 1)
    if fmt != 1:
        chk.add("format", Text(N_("unsupported layout format {value} (this program reads format 1)"), value=repr(fmt)))
    name = chk.text(raw, "name", "name", "layout")
    seen_ids: dict[str, str] = {}
    modules: dict[str, Module] = {}
    sections: dict[str, Section] = {}
    buttons: dict[str, Button] = {}
    tokens: dict[str, Token] = {}
    cockpit: dict[str, Button] = {}

    def claim(cid: str, key: str) -> bool:
        if cid in seen_ids:
            chk.add(key, Text(N_("duplicate control id '{id}' (first defined at {key})"), id=cid, key=seen_ids[cid]))
            return False
        seen_ids[cid] = key
        return True

    for i, rb in enumerate(chk.array(raw.get("cockpit"), "cockpit")):
        key = f"cockpit[{i}]"
        rb = chk.table(rb, key)
        if rb is None:
            continue
        chk.unknown(rb, _BUTTON_KEYS, key)
        bname = chk.name(rb, key)
        role = rb.get("role")
        if role not in COCKPIT_ROLES:
            chk.add(f"{key}.role", Text(N_("{value} is not a cockpit role ({roles})"), value=repr(role),
                                         roles=", ".join(COCKPIT_ROLES)))
        if bname is None:
            continue
        cid = f"cockpit.{bname}"
        if not claim(cid, key):
            continue
        if any(b.role == role for b in cockpit.values()):
            chk.add(f"{key}.role", Text(N_("role '{role}' given twice in the cockpit"), role=role))
        cockpit[cid] = Button(cid, bname, "cockpit", "cockpit", chk.sided(rb, key, "colour", side, "white"),
                              chk.text(rb, key, "shape", "round"), chk.text(rb, key, "label", bname.upper()),
                              role, chk.at(rb, key, (i, 0)))

    raw_modules = chk.array(raw.get("modules"), "modules")
    if not raw_modules:
        chk.add("modules", Text(N_("a layout needs at least one module")))
    for mi, rm in enumerate(raw_modules):
        mkey = f"modules[{mi}]"
        rm = chk.table(rm, mkey)
        if rm is None:
            continue
        chk.unknown(rm, _MODULE_KEYS, mkey)
        mid = chk.name(rm, mkey, "id")
        mexp = rm.get("expansion", False)
        if not isinstance(mexp, bool):
            chk.add(f"{mkey}.expansion", Text(N_("must be true or false")))
            mexp = False
        if mid is not None and mid in modules:
            chk.add(f"{mkey}.id", Text(N_("duplicate module id '{id}'"), id=mid))
            continue
        msections: list[str] = []
        for si, rs in enumerate(chk.array(rm.get("sections"), f"{mkey}.sections")):
            skey = f"{mkey}.sections[{si}]"
            rs = chk.table(rs, skey)
            if rs is None:
                continue
            chk.unknown(rs, _SECTION_KEYS, skey)
            sid = chk.name(rs, skey, "id")
            skind = rs.get("kind")
            if skind not in SECTION_KINDS:
                chk.add(f"{skey}.kind", Text(N_("{value} is not a section kind ({kinds})"), value=repr(skind),
                                              kinds=", ".join(SECTION_KINDS)))
                continue
            if sid is None:
                continue
            if sid in sections or sid == "cockpit":
                chk.add(f"{skey}.id", Text(N_("duplicate section id '{id}'"), id=sid))
                continue
            sbuttons: list[str] = []
            stokens: list[str] = []
            roles: dict[str, str] = {}
            for bi, rb in enumerate(chk.array(rs.get("buttons"), f"{skey}.buttons")):
                bkey = f"{skey}.buttons[{bi}]"
                rb = chk.table(rb, bkey)
                if rb is None:
                    continue
                chk.unknown(rb, _BUTTON_KEYS, bkey)
                bname = chk.name(rb, bkey)
                role = rb.get("role")
                if role is not None:
                    role = _check_role(chk, f"{bkey}.role", skind, role)
                if bname is None:
                    continue
                cid = f"{sid}.{bname}"
                if not claim(cid, bkey):
                    continue
                if role is not None:
                    if role in roles:
                        chk.add(f"{bkey}.role", Text(N_("keypad letter '{role}' appears twice in section '{section}' "
                                                        "(also on '{other}')") if skind == "keypad" else
                                                     N_("role '{role}' appears twice in section '{section}' "
                                                        "(also on '{other}')"),
                                                     role=role, section=sid, other=roles[role]))
                    else:
                        roles[role] = cid
                buttons[cid] = Button(cid, bname, sid, mid or "", chk.sided(rb, bkey, "colour", side, "white"),
                                      chk.text(rb, bkey, "shape", "square"), chk.sided(rb, bkey, "label", side, ""),
                                      role, chk.at(rb, bkey, (bi, 0)), mexp)
                sbuttons.append(cid)
            for ti, rt in enumerate(chk.array(rs.get("tokens"), f"{skey}.tokens")):
                tkey = f"{skey}.tokens[{ti}]"
                rt = chk.table(rt, tkey)
                if rt is None:
                    continue
                if skind != "tokens":
                    chk.add(tkey, Text(N_("tokens belong in a 'tokens' section, not a '{kind}' one"), kind=skind))
                    continue
                chk.unknown(rt, _TOKEN_KEYS, tkey)
                tname = chk.name(rt, tkey)
                tkind = rt.get("kind")
                if tkind not in TOKEN_KINDS:
                    chk.add(f"{tkey}.kind", Text(N_("{value} is not a token kind ({kinds})"), value=repr(tkind),
                                                  kinds=", ".join(TOKEN_KINDS)))
                positions = rt.get("positions")
                if not isinstance(positions, list) or not all(isinstance(p, str) and p for p in positions):
                    chk.add(f"{tkey}.positions", Text(N_("must be an array of position names (strings)")))
                    continue
                if len(positions) < 2:
                    chk.add(f"{tkey}.positions", Text(N_("a token needs at least 2 positions, this one has {n}"),
                                                       n=len(positions)))
                    continue
                if len(set(positions)) != len(positions):
                    chk.add(f"{tkey}.positions", Text(N_("a position name appears twice")))
                    continue
                start = rt.get("start", positions[0])
                if start not in positions:
                    chk.add(f"{tkey}.start", Text(N_("{value} is not one of the positions {positions}"), value=repr(start),
                                                   positions=positions))
                    start = positions[0]
                if tname is None:
                    continue
                cid = f"{sid}.{tname}"
                if not claim(cid, tkey):
                    continue
                tokens[cid] = Token(cid, tname, sid, mid or "", str(tkind), chk.sided(rt, tkey, "colour", side, "gray"),
                                    tuple(positions), start, chk.at(rt, tkey, (ti, 0)), mexp)
                stokens.append(cid)
            _check_section_roles(chk, skey, sid, skind, roles)
            if not rs.get("buttons") and not rs.get("tokens"):
                chk.add(skey, Text(N_("section '{section}' has no controls"), section=sid))
            sections[sid] = Section(sid, mid or "", skind, chk.text(rs, skey, "label", sid), tuple(sbuttons),
                                    tuple(stokens), roles, mexp)
            msections.append(sid)
        if not msections:
            chk.add(mkey, Text(N_("a module needs at least one section")))
        if mid is not None:
            modules[mid] = Module(mid, chk.text(rm, mkey, "name", mid), mexp, chk.at(rm, mkey, (mi, 0)),
                                  tuple(msections))

    if not expansion:  # the base game leaves the expansion modules in the box
        modules = {k: m for k, m in modules.items() if not m.expansion}
        sections = {k: s for k, s in sections.items() if not s.expansion}
        buttons = {k: b for k, b in buttons.items() if not b.expansion}
        tokens = {k: t for k, t in tokens.items() if not t.expansion}
    layout = Layout(name, side, expansion, file, modules, sections, buttons, tokens, cockpit)
    return layout, chk.problems


def _check_role(chk: _Checker, key: str, skind: str, role: Any) -> str | None:
    if not isinstance(role, str):
        chk.add(key, Text(N_("must be a string")))
        return None
    if role == "ok":
        if skind not in ("sequence", "coordinates", "keypad"):
            chk.add(key, Text(N_("an OK button belongs in a sequence, coordinates or keypad section, not '{kind}'"),
                              kind=skind))
        return role
    if skind == "sequence" and role in DIRECTIONS:
        return role
    if skind == "coordinates" and _COORDINATE.match(role):
        return role
    if skind == "keypad" and _LETTER.match(role):
        return role
    expected = {"sequence": N_("a direction (up, down, left, right) or ok"),
                "coordinates": N_("a coordinate like A1, or ok"),
                "keypad": N_("one capital letter, or ok")}.get(skind, N_("no role"))
    chk.add(key, Text(N_("{value} is not a role for a '{kind}' section (expected {expected})"), value=repr(role),
                      kind=skind, expected=Word(expected)))
    return None


def _check_section_roles(chk: _Checker, skey: str, sid: str, skind: str, roles: dict[str, str]) -> None:
    if skind in ("sequence", "coordinates", "keypad") and "ok" not in roles:
        chk.add(skey, Text(N_("{kind} section '{section}' has no OK button (role = \"ok\")"), kind=skind, section=sid))
    if skind == "sequence" and sum(1 for d in DIRECTIONS if d in roles) < 2:
        chk.add(skey, Text(N_("sequence section '{section}' needs at least two direction buttons"), section=sid))
    if skind == "coordinates" and sum(1 for r in roles if r != "ok") < 2:
        chk.add(skey, Text(N_("coordinates section '{section}' needs at least two coordinate buttons"), section=sid))
    if skind == "keypad" and sum(1 for r in roles if r != "ok") < 2:
        chk.add(skey, Text(N_("keypad section '{section}' needs at least two letter buttons"), section=sid))


def load_layout(path: str | Path | None = None, *, side: str = "blue", expansion: bool = False) -> Layout:
    """Read, check and resolve a layout file (the default one when path is None).

    Raises ConfigError listing every problem, each naming the file and the key.
    """
    if side not in SIDES:
        raise ConfigError(Problem(None, "side", Text(N_("{value} is not a side (blue or gray)"), value=repr(side))))
    file = Path(path) if path is not None else default_layout_path()
    raw = read_toml(file)
    layout, problems = _parse(raw, str(file), side, expansion)
    # A problem on the other side's values is still a problem of the file.
    other = "gray" if side == "blue" else "blue"
    _, other_problems = _parse(raw, str(file), other, True)
    seen = {str(p) for p in problems}
    problems += [p for p in other_problems if str(p) not in seen]
    if problems:
        raise ConfigError(problems)
    return layout
