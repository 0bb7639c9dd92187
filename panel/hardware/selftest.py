"""The self-test's logic: which control to ask for next, and what the answers mean.

Pure: no pins, no clock, no I/O. The check command (panel/tools/commands/check.py) shows the
prompts, collects the debounced events each step brings and hands them here; `verdicts`
turns them into one verdict per control:

    ok           seen once when asked
    never seen   asked, and nothing arrived from it or anything else
    swapped      asked for A, the event came from B, and asked for B it came from A:
                 two wires swapped (both are named)
    seen as      asked for A, the event came from B (and B, when asked, was not A): A's
                 wire lands on B's input, or the label on the panel is wrong
    stuck        pressed already when the test began (a shorted contact, a wrong pull)
    chattering   more than one press (or a move that went back on itself) for one
                 request, after the debouncer: a worn contact, or a wire picking up noise
    not tested   on the co-processor, and no board answered
    not wired    the hardware map does not wire it (played by clicking it on the screen)

Events are `InputEvent`s (control, value, t), exactly what the service would see.
"""

from __future__ import annotations

import gettext
from dataclasses import dataclass, field
from typing import Iterable

from panel.core.events import InputEvent
from panel.core.i18n import N_, NC_, SOURCE, Text, render, translations
from panel.core.layout import Layout

# The verdicts: ids in the JSON report, words in the table (translated there, in this context).
VERDICT = "a self-test verdict"
OK, NEVER, SWAPPED, SEEN_AS, STUCK, CHATTER, NOT_TESTED, NOT_WIRED = (
    NC_("a self-test verdict", "ok"), NC_("a self-test verdict", "never seen"), NC_("a self-test verdict", "swapped"),
    NC_("a self-test verdict", "seen as"), NC_("a self-test verdict", "stuck"),
    NC_("a self-test verdict", "chattering"), NC_("a self-test verdict", "not tested"),
    NC_("a self-test verdict", "not wired"))
BAD = (NEVER, SWAPPED, SEEN_AS, STUCK, CHATTER)
# What a swap or a crossed wire says, naming the other control (its id in the JSON report,
# its plain name in the table a person reads).
DETAILS = {SWAPPED: N_("its wire and {other}'s are swapped"),
           SEEN_AS: N_("arrived as {other}: its wire lands on {other}'s input")}
NOT_TESTED_WITHOUT_BOARD = Text(N_("on the co-processor: not tested without the board"))


@dataclass(frozen=True)
class Step:
    """One request to the maker."""

    control: str
    kind: str                 # button | switch | click | lever | round_lever | knob | slider
    prompt: str
    target: str | None = None  # the position a token is asked to reach


@dataclass
class Verdict:
    control: str
    verdict: str
    detail: str | Text = ""    # given as a Text, kept in English (the JSON report) and said in a language
    other: str | None = None   # the control a swap or a crossed wire involves
    events: int = 0            # debounced events seen from this control when it was asked

    def __post_init__(self) -> None:
        self._said = self.detail if isinstance(self.detail, Text) else Text(self.detail) if self.detail else None
        self.detail = str(self.detail)

    def describe(self, name=str, tr: gettext.NullTranslations | None = None) -> str:
        """The detail with the other control named by `name` (e.g. the layout's plain name),
        in the language of `tr`."""
        if self.verdict in DETAILS and self.other is not None:
            return render(tr, DETAILS[self.verdict], {"other": name(self.other)})
        return self._said.text(tr) if self._said is not None else ""

    def as_dict(self) -> dict:
        d = {"control": self.control, "verdict": self.verdict, "detail": self.detail, "events": self.events}
        if self.other is not None:
            d["other"] = self.other
        return d


def plan(layout: Layout, controls: Iterable[str], positions: dict[str, str] | None = None,
         tr: gettext.NullTranslations | None = None) -> list[Step]:
    """The guided order: the layout's own order (module by module, section by section),
    cockpit controls first, for the controls given (those the hardware map wires); the
    prompts in the language of `tr`."""
    tr = tr or translations(SOURCE)
    wanted = set(controls)
    positions = dict(positions or {})
    order = [c.id for c in layout.controls()]
    steps = []
    for cid in order:
        if cid not in wanted:
            continue
        c = layout.control(cid)
        kind = getattr(c, "token_kind", None)
        if kind is None:
            steps.append(Step(cid, "button", render(tr, N_("press {control} once"),
                                                    {"control": layout.plain_name(cid, tr)})))
            continue
        now = positions.get(cid, c.start)
        ps = list(c.positions)
        # Ask for the far end from where it stands: every contact of the token changes.
        target = ps[-1] if ps.index(now) < len(ps) / 2 else ps[0]
        prompt = N_("turn {control} to {position}") if kind == "knob" else N_("move {control} to {position}")
        said = render(tr, prompt, {"control": layout.plain_name(cid, tr), "position": tr.gettext(target)})
        steps.append(Step(cid, kind, said, target))
    return steps


@dataclass
class Observed:
    """What one step saw: the debounced events that arrived while it was asked."""

    step: Step
    events: list[InputEvent] = field(default_factory=list)


def _activity(events: list[InputEvent]) -> dict[str, list[InputEvent]]:
    """Per control: its presses (buttons) or moves (tokens), releases left out."""
    out: dict[str, list[InputEvent]] = {}
    for e in events:
        if e.value is False:
            continue
        out.setdefault(e.control, []).append(e)
    return out


def _chatters(step: Step, evs: list[InputEvent]) -> bool:
    if step.kind in ("slider", "knob", "round_lever"):
        # Passing through positions is normal; landing on one twice is a move gone back.
        seen = [e.value for e in evs]
        return len(seen) != len(set(seen))
    return len(evs) > 1  # a button's presses, a two-position token's moves


def verdicts(observed: list[Observed], *, stuck: Iterable[str] = (), untested: Iterable[str] = (),
             untested_reason: str | Text = NOT_TESTED_WITHOUT_BOARD,
             unwired: Iterable[str] = ()) -> list[Verdict]:
    """One verdict per control, in the order of the steps (then the untested ones)."""
    stuck = set(stuck)
    asked_saw: dict[str, dict[str, list[InputEvent]]] = {}
    for ob in observed:
        asked_saw[ob.step.control] = _activity(ob.events)

    def main_other(cid: str) -> str | None:
        """The one other control that answered when `cid` was asked."""
        others = [(len(v), k) for k, v in asked_saw.get(cid, {}).items() if k != cid]
        return max(others)[1] if others else None

    out: list[Verdict] = []
    for ob in observed:
        cid = ob.step.control
        saw = asked_saw[cid]
        mine = saw.get(cid, [])
        if cid in stuck:
            out.append(Verdict(cid, STUCK, Text(N_("active from the start: a shorted contact, a missing pull-up, "
                                                   "or a normally-closed part")), events=len(mine)))
            continue
        if mine:
            if _chatters(ob.step, mine):
                vals = ", ".join(str(e.value) if e.value is not True else "press" for e in mine)
                out.append(Verdict(cid, CHATTER, Text(N_("{n} events for one request ({values})"), n=len(mine),
                                                      values=vals), events=len(mine)))
            else:
                out.append(Verdict(cid, OK, events=len(mine)))
            continue
        other = main_other(cid)
        if other is None:
            out.append(Verdict(cid, NEVER, Text(N_("nothing arrived: check its wire, its ground and the map"))))
        elif main_other(other) == cid and other not in asked_saw.get(other, {}):
            out.append(Verdict(cid, SWAPPED, Text(DETAILS[SWAPPED], other=other), other=other))
        else:
            out.append(Verdict(cid, SEEN_AS, Text(DETAILS[SEEN_AS], other=other), other=other))
    for cid in untested:
        out.append(Verdict(cid, NOT_TESTED, untested_reason))
    for cid in unwired:
        out.append(Verdict(cid, NOT_WIRED, Text(N_("not in the hardware map: click it on the screen"))))
    return out


def summary(vs: list[Verdict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in vs:
        counts[v.verdict] = counts.get(v.verdict, 0) + 1
    return counts


def table(vs: list[Verdict], layout: Layout | None = None, tr: gettext.NullTranslations | None = None) -> str:
    """The summary table a person reads at a glance: problems first, then the rest. With the
    layout, each control by its plain name ("the red alarm"), its hardware map key beside it.
    In the language of `tr`."""
    tr = tr or translations(SOURCE)
    rank = {STUCK: 0, SWAPPED: 1, SEEN_AS: 2, NEVER: 3, CHATTER: 4, NOT_TESTED: 5, NOT_WIRED: 6, OK: 7}
    rows = sorted(vs, key=lambda v: (rank.get(v.verdict, 9), v.control))

    def name(cid: str) -> str:
        return layout.plain_name(cid, tr) if layout is not None and cid in layout else cid

    def word(verdict: str) -> str:
        return tr.pgettext(VERDICT, verdict)

    cols = [(tr.gettext("control"), [name(v.control) for v in rows])]
    if layout is not None:
        cols.append((tr.gettext("map key"), [v.control for v in rows]))
    cols.append((tr.gettext("verdict"), [word(v.verdict) for v in rows]))
    widths = [max([len(x) for x in values] + [len(head)]) for head, values in cols]
    detail = tr.gettext("detail")
    lines = ["  ".join(f"{head:<{w}}" for (head, _), w in zip(cols, widths)) + f"  {detail}",
             "  ".join("-" * w for w in widths) + "  " + "-" * len(detail)]
    for i, v in enumerate(rows):
        lines.append(("  ".join(f"{values[i]:<{w}}" for (_, values), w in zip(cols, widths))
                      + f"  {v.describe(name, tr)}").rstrip())
    counts = summary(vs)
    lines.append("")
    lines.append(", ".join(render(tr, N_("{n} {verdict}"), {"n": n, "verdict": word(k)})
                           for k, n in sorted(counts.items(), key=lambda kv: rank.get(kv[0], 9))))
    return "\n".join(lines)
