"""What every game's scenario has in common: the [[input]] array's shape (each entry a
table with a time `t`, in order, and exactly one verb, and no key the verb does not take)
and the [panel] table (where the tokens stand at the start). Each game's scenario reader
checks what the verbs name; this checks the rest, once."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from panel.core.errors import Problem
from panel.core.i18n import N_, Text
from panel.core.layout import Layout


def each_input(raw_inputs: Any, file: str | None, key: str, extras: dict[str, set[str]],
               problems: list[Problem]) -> Iterator[tuple[dict[str, Any], float, str, Callable[..., None]]]:
    """Yield (entry, t, verb, bad) for each well-shaped entry; `extras` gives, per verb, the
    keys it takes besides `t` and itself. `bad(reason, sub=None)` records a problem of that
    entry. Entries with a missing or out-of-order time, or not one verb, are reported and
    skipped."""
    if not isinstance(raw_inputs, list):
        problems.append(Problem(file, key, Text(N_("must be an array of tables ([[input]])"))))
        return
    verbs = tuple(extras)
    last_t = 0.0
    for i, e in enumerate(raw_inputs):
        k = f"{key}[{i}]"

        def bad(reason: Text, sub: str | None = None, k: str = k) -> None:
            problems.append(Problem(file, f"{k}.{sub}" if sub else k, reason))

        if not isinstance(e, dict):
            bad(Text(N_("must be a table")))
            continue
        t = e.get("t")
        if not isinstance(t, (int, float)) or isinstance(t, bool) or t < 0:
            bad(Text(N_("needs a time 't' in seconds (a number >= 0)")), "t")
            continue
        t = float(t)
        if t < last_t:
            bad(Text(N_("{t} is before the previous input's {last}: inputs go in time order"), t=t, last=last_t), "t")
            continue
        last_t = t
        found = [v for v in verbs if v in e]
        if len(found) != 1:
            bad(Text(N_("needs exactly one of {verbs}"), verbs=", ".join(verbs)))
            continue
        verb = found[0]
        for extra in e:
            if extra not in {"t", verb} | extras[verb]:
                bad(Text(N_("unknown key for a '{verb}' input"), verb=verb), extra)
        yield e, t, verb, bad


def start_positions(panel: Any, layout: Layout, file: str | None,
                    problems: list[Problem]) -> dict[str, str]:
    """The [panel] table: token id = its position at the start, each checked."""
    if not isinstance(panel, dict):
        problems.append(Problem(file, "panel", Text(N_("must be a table of token id = position"))))
        return {}
    positions = {}
    for tid, pos in panel.items():
        pos = str(pos) if isinstance(pos, int) and not isinstance(pos, bool) else pos
        tok = layout.tokens.get(tid)
        if tok is None:
            problems.append(Problem(file, f"panel.{tid}", Text(N_("no such token on the layout"))))
        elif pos not in tok.positions:
            problems.append(Problem(file, f"panel.{tid}", Text(N_("{value} is not a position ({positions})"), value=repr(pos),
                                                                positions=", ".join(tok.positions))))
        else:
            positions[tid] = pos
    return positions
