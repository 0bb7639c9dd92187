"""The master control panel: modules, sections, buttons and tokens, read from TOML.

A layout file describes both printed sides of every module card. `load_layout`
(panel.core.layout_file) checks the whole file, then resolves it for one side and for the
base game or the expansion, giving the `Layout` that everything else uses (the engines
receive it: this module reads no file). A layout knows nothing of pins.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass, field
from typing import Any, Iterator

from panel.core.i18n import CONTROL_NAME, MODULE, N_, NC_, SECTION, SHAPE, SOURCE, Word, render, translations

SIDES = ("blue", "gray")
DIRECTIONS = ("up", "down", "left", "right")
SECTION_KINDS = ("buttons", "sequence", "coordinates", "keypad", "tokens")
TOKEN_KINDS = ("knob", "switch", "click", "lever", "slider", "round_lever")
COCKPIT_ROLES = ("flip", "start")
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
# Every token of a kind at once (Layout.start_words): "put the switches down".
_TOKEN_PLURALS = {"knob": N_("the rotating knobs"), "switch": N_("the switches"), "click": N_("the clicks"),
                  "lever": N_("the big levers"), "slider": N_("the sliders"), "round_lever": N_("the round levers")}
_DIRECTION_WORDS = {"up": NC_("direction", "up"), "down": NC_("direction", "down"),
                    "left": NC_("direction", "left"), "right": NC_("direction", "right")}


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

    def start_words(self, tr: gettext.NullTranslations | None = None) -> str:
        """Where the tokens start, kind by kind, for the crew that puts them back between
        turns: "the switches down, the big lever up, ..., the rotating knob at 1" (a kind
        whose tokens start apart is said token by token)."""
        tr = tr or translations(SOURCE)
        kinds: dict[str, list[Token]] = {}
        for t in self.tokens.values():
            kinds.setdefault(t.token_kind, []).append(t)
        said = []
        for kind, kin in kinds.items():
            starts = {t.start for t in kin}
            groups = ([(tr.gettext(_TOKEN_PLURALS[kind]) if len(kin) > 1 else self.plain_name(kin[0].id, tr), kin[0].start)]
                      if len(starts) == 1 else [(self.plain_name(t.id, tr), t.start) for t in kin])
            for name, start in groups:
                # Translators: a token (or every token of a kind) and the position it starts at, "the switches down".
                said.append(render(tr, N_("{tokens} at {position}") if start.isdigit() else N_("{tokens} {position}"),
                                   {"tokens": name, "position": start if start.isdigit() else Word(start)}))
        return ", ".join(said)

    def plain_name(self, control_id: str, tr: gettext.NullTranslations | None = None) -> str:
        """What a person calls the control, derived from the layout: "the white beacon",
        "OK on the direction cross", "the red round lever", "the START button". Colours
        are this side's. Ids stay for scripts; this is for text people read, in the
        language of `tr` (English without it): the layout file's words are in the catalog
        (babel.cfg), each in its context (panel.core.i18n).

        Made once per control and language (a layout never changes once loaded): the pages
        are told the names of the turn's and the round's controls with every state."""
        tr = tr or translations(SOURCE)
        names = self.__dict__.setdefault("_plain_names", {})  # (a frozen dataclass: no attribute set)
        key = (control_id, tr)  # (the catalog object itself: held here, its identity never reused)
        name = names.get(key)
        if name is None:
            name = names[key] = self._plain_name(control_id, tr)
        return name

    def _plain_name(self, control_id: str, tr: gettext.NullTranslations) -> str:
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
