"""Draw a flight instruction card as SVG, the way the printed cards look.

`card_svg(card, layout)` is pure: no I/O, no clock, no external fonts or images, so the
service can send it to the tower's phone and the maker kit can print the deck from it.

What a card shows (as the rulebook describes the physical ones):
- simple card: the involved section(s) of the panel; each button to press marked by a
  hand outlined in green; each token drawn at its target position, outlined in green;
- sequence card: the section, then the steps as arrows numbered 1..n;
- coordinate card: the grid with its letters and numbers, the cells to press numbered;
- activation card: the keypad and the word in big letters;
- sequence-type cards: the colour sequence along the bottom, to check the call-out;
- every card: the hourglass (draw a time counter on completion); a star on expansion cards.

Colours are always drawn with a text label too, for colour-blind players.

The card's words (its kind, the colours' names, the tokens' position words) are in the
language of `tr`, a gettext translations object (panel.core.i18n); the game's own codes (the
grid's letters and numbers, the activation word, the buttons' labels) stay as printed.
"""

from __future__ import annotations

import gettext
import math
from dataclasses import replace
from collections.abc import Callable
from typing import Any, Iterable, NamedTuple
from xml.sax.saxutils import escape

from panel.games.airlines.cards import Card, card_section, colour_sequence
from panel.games.airlines.deck_file import parse_card
from panel.core.i18n import MODULE, N_, Word, render
from panel.core.layout import DIRECTIONS, Button, Layout, Section, Token

W, H = 600, 840  # a poker-sized card (63 x 88 mm), in SVG user units
GREEN = "#10a836"
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

# Fill, text colour on it, and the name drawn under it for colour-blind readers.
COLOURS: dict[str, tuple[str, str, str]] = {
    # Translators: the colours' names, printed in capitals under coloured dots on a card.
    "white": ("#f7f7f4", "#222", N_("white")),
    "black": ("#23232a", "#fff", N_("black")),
    "red": ("#d7263d", "#fff", N_("red")),
    "blue": ("#1f5fd0", "#fff", N_("blue")),
    "yellow": ("#f5c518", "#222", N_("yellow")),
    "green": ("#2c9a45", "#fff", N_("green")),
    "gray": ("#8b9099", "#fff", N_("gray")),
    "grey": ("#8b9099", "#fff", N_("gray")),
    "orange": ("#f08a24", "#222", N_("orange")),
}
# The words among the panel's token positions (numbers are drawn as they are), marked
# here for the catalog: a card draws every position name through its translations.
# Translators: where a switch, lever or click button stands, drawn beside it on a card.
POSITION_WORDS = (N_("up"), N_("down"), N_("on"), N_("off"))
# Translators: the heading of a card, in capitals.
KIND_NAMES = {"simple": "", "sequence": N_("SEQUENCE"), "coordinates": N_("SEQUENCE"), "activation": N_("ACTIVATION")}
ENGLISH = gettext.NullTranslations()
SIDE_BG = {"blue": ("#b9d4f2", "#5c8fcf"), "gray": ("#d3d5d9", "#8d939c")}

# A pointing hand, fingertip at (0, 0), pointing up; about 42 x 62 units.
HAND_PATH = ("M -5.5 5 A 5.5 5.5 0 0 1 5.5 5 L 5.5 23 Q 9.5 18.5 14 22 Q 18 18.5 21.5 23.5 "
             "Q 25.5 21 27.5 27 L 27.5 41 Q 27.5 56 12 58 L 0 58 Q -11 57 -13.5 45 "
             "L -17 31 Q -18 25.5 -12.5 26 L -5.5 33 Z")
HAND_LINES = "M 5.5 23 L 5.5 31 M 14 22 L 14 30 M 21.5 23.5 L 21.5 31 M -2 58 L -2 62 L 15 62 L 15 58"
STAR_PATH = " ".join(
    f"{'M' if i == 0 else 'L'} {math.cos(math.radians(-90 + 36 * i)) * (1 if i % 2 == 0 else 0.45):.3f} "
    f"{math.sin(math.radians(-90 + 36 * i)) * (1 if i % 2 == 0 else 0.45):.3f}" for i in range(10)) + " Z"
ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI", 7: "VII", 8: "VIII", 9: "IX"}


def _fmt(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") if isinstance(x, float) else str(x)


def _attrs(**kw: Any) -> str:
    out = []
    for k, v in kw.items():
        if v is None:
            continue
        k = k.rstrip("_").replace("_", "-")
        if isinstance(v, float):
            v = _fmt(v)
        out.append(f'{k}="{escape(str(v), {chr(34): "&quot;"})}"')
    return " ".join(out)


def _el(tag: str, body: str | None = None, **kw: Any) -> str:
    a = _attrs(**kw)
    if body is None:
        return f"<{tag} {a}/>"
    return f"<{tag} {a}>{body}</{tag}>"


def _text(x: float, y: float, s: str, size: float, *, fill: str = "#222", weight: str = "bold",
          anchor: str = "middle", **kw: Any) -> str:
    return _el("text", escape(s), x=x, y=y, font_size=size, font_family=FONT, font_weight=weight,
               fill=fill, text_anchor=anchor, dominant_baseline="central", **kw)


def colour_fill(name: str) -> tuple[str, str]:
    return COLOURS[name][:2] if name in COLOURS else ("#bbbbbb", "#222")


def colour_name(name: str, tr: gettext.NullTranslations = ENGLISH) -> str:
    return (tr.gettext(COLOURS[name][2]) if name in COLOURS else name).upper()


# ---------------------------------------------------------------------------- controls

def _button(b: Button, cx: float, cy: float, s: float) -> str:
    fill, ink = colour_fill(b.colour)
    stroke = "#333"
    shape = b.shape
    parts = []
    if shape in ("round", "big-round"):
        r = s * (0.42 if shape == "big-round" else 0.3)
        parts.append(_el("circle", cx=cx, cy=cy, r=r, fill=fill, stroke=stroke, stroke_width=2))
        size = r * (0.9 if len(b.label) <= 1 else 0.55 if len(b.label) <= 3 else 0.45)
    elif shape == "triangle":
        d = b.role if b.role in ("up", "down", "left", "right") else b.name
        ang = {"up": 0, "right": 90, "down": 180, "left": 270}.get(d, 0)
        r = s * 0.36
        pts = [(cx + r * math.sin(math.radians(ang + a)), cy - r * math.cos(math.radians(ang + a)))
               for a in (0, 120, 240)]
        parts.append(_el("polygon", points=" ".join(f"{_fmt(x)},{_fmt(y)}" for x, y in pts),
                         fill=fill, stroke=stroke, stroke_width=2, stroke_linejoin="round"))
        size = 0
    else:
        h = s * 0.6
        parts.append(_el("rect", x=cx - h / 2, y=cy - h / 2, width=h, height=h, rx=h * 0.14,
                         fill=fill, stroke=stroke, stroke_width=2))
        size = h * (0.55 if len(b.label) <= 1 else 0.38 if len(b.label) <= 3 else 0.27)
    if b.label and size:
        parts.append(_text(cx, cy + size * 0.04, b.label, size, fill=ink))
    return _el("g", "".join(parts), class_="control button", data_control=b.id)


class _Look(NamedTuple):
    """How a token is painted: its colours, its outline, and its positions' words."""
    fill: str
    ink: str
    hl: dict[str, Any]
    word: Callable[[str], str]
    target: bool


# The smallest word drawn beside a token, in card units: 12 px on a phone, where the tower's
# page draws the 600-unit card about 370 px wide.
MIN_WORD = 20


def _slot(t: Token, pos: str, cx: float, cy: float, s: float, look: _Look) -> list[str]:
    """A switch or a lever: a slot with a handle at one end, its position's word under it
    (beside the slot, the word sat under the handle when it stood at that end)."""
    k = t.token_kind
    word = max(s * 0.16, MIN_WORD)
    w, h = s * (0.26 if k == "switch" else 0.34), s * 0.7
    top = cy - s * 0.46  # the slot high in its box, the word below it
    mid = top + h / 2
    p = [_el("rect", x=cx - w / 2, y=top, width=w, height=h, rx=w / 2, fill="#3a3d44",
             stroke="#222", stroke_width=2)]
    at_top = pos in ("up", "on", "1")
    hy = top + w * 0.6 if at_top else top + h - w * 0.6
    hr = w * (0.75 if k == "switch" else 0.8)
    handle_fill = look.fill if k == "lever" else "#e9e9e9"
    p.append(_el("line", x1=cx, y1=mid, x2=cx, y2=hy, stroke="#bbb", stroke_width=w * 0.35))
    p.append(_el("circle", cx=cx, cy=hy, r=hr, fill=handle_fill, **look.hl))
    below = max(top + h, hy + hr)
    p.append(_text(cx, below + word * 0.7, look.word(pos), word, fill="#222", class_="position-word"))
    return p


def _click(t: Token, pos: str, cx: float, cy: float, s: float, look: _Look) -> list[str]:
    """A push-on push-off button: pressed in (with a light) when on."""
    on = pos in ("on", "1", "down")
    r, small = s * 0.3, s * 0.14
    p = [_el("rect", x=cx - r * 1.15, y=cy - r * 1.15, width=r * 2.3, height=r * 2.3, rx=r * 0.3,
             fill="#3a3d44", stroke="#222", stroke_width=2),
         _el("circle", cx=cx, cy=cy, r=r * (0.78 if on else 0.95), fill=look.fill, **look.hl)]
    if on:
        p.append(_el("circle", cx=cx, cy=cy, r=r * 0.3, fill="#fff8b0", stroke="#333", stroke_width=1.5))
    p.append(_text(cx, cy + r * 1.15 + small * 0.8, look.word(pos).upper(), small, fill="#222"))
    return p


def _slider(t: Token, pos: str, cx: float, cy: float, s: float, look: _Look) -> list[str]:
    """A track with a tick and a word per position, bottom to top, and the knob at `pos`."""
    idx = t.positions.index(pos) if pos in t.positions else 0
    n, small = len(t.positions), s * 0.14
    h = s * 0.82
    top, bot = cy - h / 2, cy + h / 2
    p = [_el("rect", x=cx - s * 0.05, y=top, width=s * 0.1, height=h, rx=s * 0.05, fill="#3a3d44")]
    for i, name in enumerate(t.positions):
        y = bot - (h * i / max(1, n - 1))
        p.append(_el("line", x1=cx - s * 0.16, y1=y, x2=cx - s * 0.09, y2=y, stroke="#333", stroke_width=2))
        p.append(_text(cx - s * 0.25, y, look.word(name), small * 0.85, weight="normal", fill="#333"))
    y = bot - (h * idx / max(1, n - 1))
    p.append(_el("rect", x=cx - s * 0.14, y=y - s * 0.07, width=s * 0.28, height=s * 0.14, rx=s * 0.03,
                 fill=look.fill, **look.hl))
    return p


def _dial(t: Token, pos: str, cx: float, cy: float, s: float, look: _Look) -> list[str]:
    """A knob or a round lever: its positions' words around it, its pointer or handle at `pos`."""
    k, small = t.token_kind, s * 0.14
    idx = t.positions.index(pos) if pos in t.positions else 0
    n = len(t.positions)
    r = s * (0.3 if k == "round_lever" else 0.27)
    spread = 120 if k == "round_lever" else 300
    angles = [(-spread / 2 + spread * i / max(1, n - 1)) for i in range(n)]
    p = []
    if k == "knob":
        p.append(_el("circle", cx=cx, cy=cy, r=r, fill=look.fill, **look.hl))
        reach, label_at, size = 1.05, 1.45, small * 0.85
    else:
        p.append(_el("circle", cx=cx, cy=cy, r=r * 0.45, fill="#3a3d44", stroke="#222", stroke_width=2))
        reach, label_at, size = 0.8, 1.4, small
    for name, a in zip(t.positions, angles):
        rad = math.radians(a)
        lx, ly = cx + math.sin(rad) * r * label_at, cy - math.cos(rad) * r * label_at
        chosen = name == pos and look.target
        p.append(_text(lx, ly, look.word(name), size, weight="bold" if chosen else "normal",
                       fill="#111" if chosen else "#333"))
    rad = math.radians(angles[idx])
    ex, ey = cx + math.sin(rad) * r * reach, cy - math.cos(rad) * r * reach
    if k == "knob":
        p.append(_el("line", x1=cx, y1=cy, x2=ex, y2=ey, stroke="#fff", stroke_width=max(2.0, s * 0.05),
                     stroke_linecap="round"))
    else:
        p.append(_el("line", x1=cx, y1=cy, x2=ex, y2=ey, stroke="#555", stroke_width=s * 0.07,
                     stroke_linecap="round"))
        p.append(_el("circle", cx=ex, cy=ey, r=s * 0.08, fill=look.fill, **look.hl))
    return p


def _unknown_token(t: Token, pos: str, cx: float, cy: float, s: float, look: _Look) -> list[str]:
    """An unknown kind still shows where it is."""
    return [_el("circle", cx=cx, cy=cy, r=s * 0.25, fill=look.fill, **look.hl),
            _text(cx, cy, look.word(pos), s * 0.14, fill=look.ink)]


_TOKEN_DRAWINGS: dict[str, Callable[[Token, str, float, float, float, _Look], list[str]]] = {
    "switch": _slot, "lever": _slot, "click": _click, "slider": _slider, "round_lever": _dial, "knob": _dial,
}


def _token(t: Token, pos: str, cx: float, cy: float, s: float, *, target: bool,
           tr: gettext.NullTranslations = ENGLISH) -> str:
    """A token standing at `pos`; `target` outlines it in green (the card's instruction)."""
    word = tr.gettext  # a position's name as drawn: its word translated, a number as it is
    fill, ink = colour_fill(t.colour)
    hl = dict(stroke=GREEN, stroke_width=max(3.0, s * 0.06)) if target else dict(stroke="#333", stroke_width=2)
    if t.token_kind == "round_lever":
        # The pivot low in its box, a short handle and the numbers beyond its end: the
        # target number is never under the handle's knob (the outline follows the pivot).
        cy += s * 0.12
    draw = _TOKEN_DRAWINGS.get(t.token_kind, _unknown_token)
    p = draw(t, pos, cx, cy, s, _Look(fill, ink, hl, word, target))
    cls = "control token target-token" if target else "control token"
    if target:
        # The whole token outlined in green, as the printed cards do.
        p.insert(0, _el("rect", x=cx - s * 0.47, y=cy - s * 0.47, width=s * 0.94, height=s * 0.94, rx=s * 0.14,
                        fill="#ffffff", fill_opacity=0.55, stroke=GREEN, stroke_width=max(4.0, s * 0.07),
                        class_="target-outline"))
    return _el("g", "".join(p), class_=cls, data_control=t.id, data_position=pos)


def hand(cx: float, cy: float, s: float, *, control: str = "") -> str:
    """The green-outlined pointing hand, fingertip near (cx, cy), coming from below right."""
    k = s / 62 * 0.95
    tx, ty = cx + s * 0.08, cy + s * 0.12
    body = (_el("path", d=HAND_PATH, fill="#ffffff", stroke=GREEN, stroke_width=3.2 / 1, stroke_linejoin="round")
            + _el("path", d=HAND_LINES, fill="none", stroke=GREEN, stroke_width=2.2, stroke_linecap="round"))
    return _el("g", body, class_="hand", data_control=control,
               transform=f"translate({_fmt(tx)} {_fmt(ty)}) rotate(-28) scale({k:.3f})")


# ---------------------------------------------------------------------------- sections

def _grid(layout: Layout, section: Section) -> tuple[int, int, int, int]:
    ats = [layout.control(c).at for c in section.controls]
    c0, r0 = min(a[0] for a in ats), min(a[1] for a in ats)
    c1, r1 = max(a[0] for a in ats), max(a[1] for a in ats)
    return c0, r0, c1 - c0 + 1, r1 - r0 + 1


def _axes(layout: Layout, section: Section, ox: float, oy: float, s: float, pad: float,
          c0: int, r0: int) -> list[str]:
    """A coordinate section's column letters above it and row numbers (or roman numerals) beside it."""
    letters, nums = {}, {}
    for bid in section.buttons:
        b = layout.buttons[bid]
        if b.role and b.role != "ok" and len(b.role) >= 2:
            letters[b.at[0]] = b.role[0]
            nums[b.at[1]] = int(b.role[1:])
    roman = any("-" in layout.buttons[bid].label for bid in section.buttons)
    out = []
    for col, letter in letters.items():
        out.append(_text(ox + s * (pad + col - c0 + 0.5), oy + s * pad * 0.5, letter, s * 0.26))
    for row, num in nums.items():
        out.append(_text(ox + s * pad * 0.5, oy + s * (pad + row - r0 + 0.5),
                         ROMAN.get(num, str(num)) if roman else str(num), s * 0.22))
    return out


def _step_numbers(cid: str, steps: list[int], cx: float, cy: float, s: float) -> str:
    """The button keeps its colour; a green ring and a numbered badge mark the step."""
    label = ",".join(str(n) for n in steps)
    br = s * (0.17 if len(label) == 1 else 0.13 + 0.045 * len(label))
    bx, by = cx + s * 0.3, cy - s * 0.3
    return _el("g", _el("circle", cx=cx, cy=cy, r=s * 0.4, fill="none", stroke=GREEN,
                        stroke_width=max(3.0, s * 0.06))
               + _el("rect", x=bx - br, y=by - s * 0.17, width=2 * br, height=s * 0.34,
                     rx=s * 0.17, fill="#ffffff", stroke=GREEN, stroke_width=max(2.5, s * 0.04))
               + _text(bx, by + 1, label, s * 0.24, fill="#111"),
               class_="step-number", data_control=cid)


def section_svg(layout: Layout, section: Section, x: float, y: float, w: float, h: float, *,
                press: Iterable[str] = (), targets: dict[str, str] | None = None,
                numbers: dict[str, list[int]] | None = None, axes: bool = False,
                positions: dict[str, str] | None = None, max_cell: float = 150,
                tr: gettext.NullTranslations = ENGLISH) -> str:
    """One section of the panel drawn in the box (x, y, w, h), on the side's background.

    press: buttons marked with the hand; targets: token -> position outlined in green;
    numbers: button -> step numbers (coordinate cards); positions: where other tokens stand.
    """
    press = list(press)
    targets = targets or {}
    numbers = numbers or {}
    positions = positions or {}
    c0, r0, cols, rows = _grid(layout, section)
    pad = 0.35 if axes else 0.12
    s = min(w / (cols + 2 * pad), h / (rows + 2 * pad), max_cell)
    pw, ph = s * (cols + 2 * pad), s * (rows + 2 * pad)
    ox, oy = x + (w - pw) / 2, y + (h - ph) / 2
    bg, edge = SIDE_BG.get(layout.side, SIDE_BG["blue"])
    out = [_el("rect", x=ox, y=oy, width=pw, height=ph, rx=min(24, s * 0.2), fill=bg, stroke=edge,
               stroke_width=3, class_="section-bg")]
    if axes:
        out += _axes(layout, section, ox, oy, s, pad, c0, r0)
    marks = []
    for cid in section.controls:
        c = layout.control(cid)
        cx = ox + s * (pad + c.at[0] - c0 + 0.5)
        cy = oy + s * (pad + c.at[1] - r0 + 0.5)
        if isinstance(c, Token):
            if cid in targets:
                out.append(_token(c, targets[cid], cx, cy, s, target=True, tr=tr))
            else:
                out.append(_el("g", _token(c, positions.get(cid, c.start), cx, cy, s, target=False, tr=tr),
                               opacity=0.45))
        else:
            if axes and c.role and c.role != "ok":
                # On coordinate cards the printed buttons carry no text: the axes give it.
                c = Button(c.id, c.name, c.section, c.module, c.colour, c.shape, "", c.role, c.at, c.expansion)
            out.append(_button(c, cx, cy, s))
            if cid in numbers:
                out.append(_step_numbers(cid, numbers[cid], cx, cy, s))
            if cid in press:
                marks.append(hand(cx, cy, s, control=cid))
    out += marks  # hands on top of every button
    return _el("g", "".join(out), class_="section", data_section=section.id)


# ---------------------------------------------------------------------------- card parts

def arrow(cx: float, cy: float, size: float, direction: str, *, number: int | None = None) -> str:
    ang = {"up": 0, "right": 90, "down": 180, "left": 270}.get(direction, 0)
    u = size / 2
    d = (f"M 0 {-u} L {u * 0.8} {-u * 0.1} L {u * 0.32} {-u * 0.1} L {u * 0.32} {u} "
         f"L {-u * 0.32} {u} L {-u * 0.32} {-u * 0.1} L {-u * 0.8} {-u * 0.1} Z")
    body = _el("path", d=d, fill="#1b1b1f", stroke="#1b1b1f", stroke_width=2, stroke_linejoin="round",
               transform=f"translate({_fmt(cx)} {_fmt(cy)}) rotate({ang})")
    if number is not None:
        body += _el("circle", cx=cx - u * 0.78, cy=cy - u * 0.78, r=size * 0.17, fill="#ffffff", stroke=GREEN,
                    stroke_width=3)
        body += _text(cx - u * 0.78, cy - u * 0.78 + 1, str(number), size * 0.2, fill="#111")
    return _el("g", body, class_="step-arrow", data_direction=direction)


def colour_dots(colours: Iterable[str], y: float, tr: gettext.NullTranslations = ENGLISH) -> str:
    colours = list(colours)
    if not colours:
        return ""
    n = len(colours)
    gap = min(110.0, (W - 80) / n)
    r = min(34.0, gap * 0.36)
    x0 = W / 2 - gap * (n - 1) / 2
    out = [_el("rect", x=30, y=y - r - 16, width=W - 60, height=2 * r + 58, rx=20, fill="#f1f1ee",
               stroke="#c9c9c4", stroke_width=2)]
    for i, c in enumerate(colours):
        fill, _ = colour_fill(c)
        cx = x0 + i * gap
        out.append(_el("g", _el("circle", cx=cx, cy=y, r=r, fill=fill, stroke="#333", stroke_width=2.5)
                       + _text(cx, y + r + 16, colour_name(c, tr), min(18.0, gap * 0.17), fill="#222"),
                       class_="colour-dot", data_colour=c))
    return _el("g", "".join(out), class_="colour-sequence")


def hourglass(x: float, y: float, size: float) -> str:
    u = size / 2
    d = (f"M {-u * 0.7} {-u} L {u * 0.7} {-u} L {u * 0.7} {-u * 0.8} L {u * 0.12} 0 L {u * 0.7} {u * 0.8} "
         f"L {u * 0.7} {u} L {-u * 0.7} {u} L {-u * 0.7} {u * 0.8} L {-u * 0.12} 0 L {-u * 0.7} {-u * 0.8} Z")
    sand = f"M {-u * 0.45} {u * 0.85} L {u * 0.45} {u * 0.85} L 0 {u * 0.35} Z"
    return _el("g", _el("path", d=d, fill="#fdf3d2", stroke="#6b4f1d", stroke_width=3, stroke_linejoin="round")
               + _el("path", d=sand, fill="#d9a441"),
               class_="hourglass", transform=f"translate({_fmt(x)} {_fmt(y)})")


def star(x: float, y: float, r: float) -> str:
    return _el("g", _el("path", d=STAR_PATH, fill="#ffcc1a", stroke="#8a6400", stroke_width=0.08,
                        stroke_linejoin="round"),
               class_="star", transform=f"translate({_fmt(x)} {_fmt(y)}) scale({_fmt(r)})")


# ---------------------------------------------------------------------------- the card

def as_card(card: Card | dict) -> Card:
    """A Card from a Card or from its dict form (Card.as_dict(), a snapshot's card)."""
    if isinstance(card, Card):
        return card
    raw = {k: v for k, v in card.items() if k in ("number", "kind", "press", "set", "section", "steps", "word",
                                                  "colours", "expansion")}
    problems: list = []
    c = parse_card(raw, None, "card", problems)
    if c is None:
        raise ValueError("; ".join(str(p) for p in problems) or "not a card")
    return c


def _cell_size(layout: Layout, sid: str, box: tuple[float, float, float, float]) -> float:
    _, _, cols, rows = _grid(layout, layout.sections[sid])
    return min(box[2] / (cols + 0.24), box[3] / (rows + 0.24))


def _arrange(layout: Layout, sids: list[str], x: float, y: float, w: float, h: float,
             gap: float = 22) -> list[tuple[float, float, float, float]]:
    """Boxes for the sections of a simple card: stacked, or two columns, whichever draws
    the smallest section biggest. Row heights follow each section's number of rows."""
    n = len(sids)
    best: tuple[float, list] | None = None
    for ncols in (1, 2):
        if ncols > n:
            continue
        nrows = math.ceil(n / ncols)
        ww = (w - gap * (ncols - 1)) / ncols
        # weight each row by the tallest section in it, so a 3-row grid gets more room than a 1-row strip
        weights = []
        for r in range(nrows):
            row = sids[r * ncols:(r + 1) * ncols]
            weights.append(max(_grid(layout, layout.sections[sid])[3] + 0.6 for sid in row))
        avail = h - gap * (nrows - 1)
        boxes, yy = [], y
        for r in range(nrows):
            hh = avail * weights[r] / sum(weights)
            row = sids[r * ncols:(r + 1) * ncols]
            for c in range(len(row)):
                boxes.append((x + c * (ww + gap) + (ww + gap) * (ncols - len(row)) / 2, yy, ww, hh))
            yy += hh + gap
        score = min(_cell_size(layout, sid, b) for sid, b in zip(sids, boxes))
        if best is None or score > best[0] + 1:
            best = (score, boxes)
    return best[1] if best else []


_TOP, _DOTS_Y = 96, H - 120  # where a card's drawing starts, and where its colour dots stand


def _simple_body(card: Card, layout: Layout, tr: gettext.NullTranslations) -> list[str]:
    """A simple card: each section it names, in the order its controls come, arranged on the card."""
    order: list[str] = []
    for cid in list(card.press) + [t for t, _ in card.set]:
        try:
            sid = layout.control(cid).section
        except KeyError:
            raise ValueError(f"card control '{cid}' is not on the layout '{layout.name}'") from None
        if sid not in order:
            order.append(sid)
    targets = dict(card.set)
    bottom = H - 36
    return [section_svg(layout, layout.sections[sid], *box, press=card.press, targets=targets, tr=tr)
            for sid, box in zip(order, _arrange(layout, order, 40, _TOP, W - 80, bottom - _TOP - 10))]


def _sequence_body(card: Card, layout: Layout, section: Section, tr: gettext.NullTranslations) -> list[str]:
    """The section, and below it the numbered arrows, four a row when there are more than four."""
    top = _TOP
    body = [section_svg(layout, section, 60, top, W - 120, 300, max_cell=110, tr=tr)]
    n = len(card.steps)
    per_row = min(n, 4) if n > 4 else n
    rows = math.ceil(n / per_row)
    size = min(118.0, (W - 80) / per_row * 0.86, (_DOTS_Y - 80 - (top + 320)) / rows * 0.9)
    for i, d in enumerate(card.steps):
        r, c = divmod(i, per_row)
        in_row = min(per_row, n - r * per_row)
        cx = W / 2 + (c - (in_row - 1) / 2) * (size * 1.14)
        cy = top + 330 + size * 0.6 + r * size * 1.12
        body.append(arrow(cx, cy, size, d, number=i + 1))
    return body


def _coordinates_body(card: Card, layout: Layout, section: Section, tr: gettext.NullTranslations) -> list[str]:
    """The section with its axes, each step's button numbered."""
    numbers: dict[str, list[int]] = {}
    for i, step in enumerate(card.steps):
        numbers.setdefault(section.roles[step], []).append(i + 1)
    return [section_svg(layout, section, 40, _TOP, W - 80, _DOTS_Y - 90 - _TOP, numbers=numbers,
                        axes=True, max_cell=130, tr=tr)]


def _activation_body(card: Card, layout: Layout, section: Section, tr: gettext.NullTranslations) -> list[str]:
    """The section, and below it the word to type."""
    top = _TOP
    word = card.word or "".join(card.steps)
    size = min(130.0, (W - 60) / max(1, len(word)) * 1.3)
    return [section_svg(layout, section, 60, top, W - 120, 330, max_cell=100, tr=tr),
            _el("g", _text(W / 2, top + 330 + (_DOTS_Y - 70 - top - 330) / 2, word, size,
                           fill="#111", letter_spacing=size * 0.08), class_="word")]


def _section_card_body(card: Card, layout: Layout, tr: gettext.NullTranslations) -> list[str]:
    """A sequence, coordinates or activation card: its one section, its steps, its colour dots."""
    try:
        sid = card_section(card, layout)
        section = layout.sections[sid]
        colours = tuple(card.colours) or colour_sequence(card, layout)
    except KeyError:
        raise ValueError(f"card section for '{card.label()}' is not on the layout '{layout.name}'") from None
    draw = {"sequence": _sequence_body, "coordinates": _coordinates_body}.get(card.kind, _activation_body)
    return draw(card, layout, section, tr) + [colour_dots(colours, _DOTS_Y, tr)]


def _head(card: Card, tr: gettext.NullTranslations) -> list[str]:
    """The card's number, its kind, the hourglass and the expansion's star along its top."""
    head = []
    if card.number is not None:
        head.append(_text(44, 52, f"#{card.number}", 26, anchor="start", fill="#555"))
    if KIND_NAMES[card.kind]:
        head.append(_text(W / 2, 52, tr.gettext(KIND_NAMES[card.kind]), 30, fill="#333", letter_spacing=3))
    head.append(hourglass(W - 56 if not card.expansion else W - 120, 52, 50))
    if card.expansion:
        head.append(star(W - 56, 54, 30))
    return head


def card_svg(card: Card | dict, layout: Layout, *, title: str | None = None,
             tr: gettext.NullTranslations = ENGLISH) -> str:
    """The card as a self-contained SVG document (width 600, height 840 user units), its
    words in the language of `tr` (English by default).

    Raises ValueError naming the problem when the card does not fit the layout.
    """
    card = as_card(card)
    if card.kind == "activation" and card.word and not card.steps:
        card = replace(card, steps=tuple(card.word))
    body = _simple_body(card, layout, tr) if card.kind == "simple" else _section_card_body(card, layout, tr)
    head = _head(card, tr)
    label = title or spoken(card, layout, tr)
    doc = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
           f'role="img" aria-label="{escape(label, {chr(34): "&quot;"})}" class="card card-{card.kind}" '
           f'data-kind="{card.kind}">'
           + _el("title", escape(label))
           + _el("rect", x=6, y=6, width=W - 12, height=H - 12, rx=34, fill="#fffdf7", stroke="#1b1b1f",
                 stroke_width=6)
           + "".join(head) + "".join(body) + "</svg>")
    return doc


def spoken(card: Card, layout: Layout, tr: gettext.NullTranslations = ENGLISH) -> str:
    """What a screen reader says of the drawing (its label and title): the card's number
    and its lines in plain words, never the controls' ids."""
    head = " ".join(([f"#{card.number}"] if card.number is not None else [])
                    + ([tr.gettext(KIND_NAMES[card.kind])] if KIND_NAMES[card.kind] else []))
    lines = "; ".join(card_text(card, layout, tr))
    return f"{head}: {lines}" if head else lines


def card_text(card: Card | dict, layout: Layout, tr: gettext.NullTranslations = ENGLISH) -> list[str]:
    """The card's instructions as short lines of plain words, shown under the drawing (a
    quick check, screen readers): "Press the red alarm", "Set the red round lever to 2",
    "On the direction cross: up, left, down, then OK", "Call-out: red, blue, white";
    in the language of `tr`."""
    card = as_card(card)
    name = lambda c: layout.plain_name(c, tr) if c in layout else c  # noqa: E731
    lines = []
    if card.kind == "simple":
        for b in card.press:
            lines.append(render(tr, N_("Press {control}"), {"control": name(b)}))
        for t, p in card.set:
            lines.append(render(tr, N_("Set {control} to {position}"), {"control": name(t), "position": Word(p)}))
        return lines
    try:
        sid = card_section(card, layout)
        module = layout.modules[layout.sections[sid].module].name
        said = tr.pgettext(MODULE, module)
        where = said if said != module else "the " + module[:1].lower() + module[1:]
    except KeyError:  # a section this layout does not have: named as the card names it
        where = render(tr, N_("the {section}"), {"section": card.section}) if card.section else tr.gettext("the panel")
    if card.kind == "activation":
        lines.append(render(tr, N_("On {module}: type {word}, then OK"), {"module": where, "word": card.word}))
    else:
        steps = ", ".join(tr.pgettext("direction", s) if s in DIRECTIONS else s for s in card.steps)
        lines.append(render(tr, N_("On {module}: {steps}, then OK"), {"module": where, "steps": steps}))
    colours = tuple(card.colours)
    if not colours:
        try:
            colours = colour_sequence(card, layout)
        except KeyError:
            colours = ()
    if colours:
        lines.append(render(tr, N_("Call-out: {colours}"), {"colours": ", ".join(tr.gettext(c) for c in colours)}))
    return lines
