"""What every game's scenario has in common: the [[input]] array (each entry a table with a
time `t`, in order, and exactly one verb: press, hold, release, move ... to, or action with
the game's parameters) and the [panel] table (where the tokens stand at the start). Each
game's reader gives what differs (its actions, its check of an action, its words for a
control it does not know); this reads the rest, once."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator

from panel.core.errors import Problem
from panel.core.events import Action, InputEvent
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


def read_inputs(raw_inputs: Any, layout: Layout, file: str | None, *, action_params: Iterable[str],
                malformed: Callable[[Action], Any], not_a_button: Callable[[Any], Text],
                not_a_token: Callable[[Any], Text], new_match: Text,
                key: str = "input") -> tuple[list[InputEvent | Action], list[Problem]]:
    """The [[input]] entries as engine inputs, every problem at once. A press is a hold and a
    release at the same moment; `malformed` is the game's check of an action's shape (its
    Refusal, or None); the `not_a_*` give the game's words for a control it does not have."""
    params = tuple(dict.fromkeys(action_params))
    extras = {"press": set(), "hold": set(), "release": set(), "move": {"to"}, "action": set(params)}
    problems: list[Problem] = []
    out: list[InputEvent | Action] = []
    for e, t, verb, bad in each_input(raw_inputs, file, key, extras, problems):
        target = e[verb]
        if verb in ("press", "hold", "release"):
            if not isinstance(target, str) or (target not in layout.buttons and target not in layout.cockpit):
                bad(not_a_button(target), verb)
                continue
            if verb in ("press", "hold"):
                out.append(InputEvent(target, True, t))
            if verb in ("press", "release"):
                out.append(InputEvent(target, False, t))
        elif verb == "move":
            move = _move(e, target, layout, t, not_a_token, bad)
            if move is not None:
                out.append(move)
        elif target == "new_match":
            bad(new_match, "action")
        else:
            action = Action(target, t, {p: e[p] for p in params if p in e})
            why = malformed(action)
            if why is not None:
                bad(Text(why.message, **why.values), why.param)
                continue
            out.append(action)
    return out, problems


def _move(e: dict[str, Any], target: Any, layout: Layout, t: float, not_a_token: Callable[[Any], Text],
          bad: Callable[..., None]) -> InputEvent | None:
    tok = layout.tokens.get(target) if isinstance(target, str) else None
    if tok is None:
        bad(not_a_token(target), "move")
        return None
    to = e.get("to")
    to = str(to) if isinstance(to, int) and not isinstance(to, bool) else to
    if to not in tok.positions:
        bad(Text(N_("{value} is not a position of {id} ({positions})"), value=repr(to), id=target,
                 positions=", ".join(tok.positions)), "to")
        return None
    return InputEvent(target, to, t)


def read_end(raw: dict[str, Any], file: str | None, problems: list[Problem]) -> float | None:
    """The top-level `end = t`: where the scenario stops (its clocks run to it), or None."""
    end = raw.get("end")
    if end is not None and (not isinstance(end, (int, float)) or isinstance(end, bool) or end < 0):
        problems.append(Problem(file, "end", Text(N_("must be a time in seconds (a number >= 0)"))))
        return None
    return float(end) if end is not None else None


def input_entry(event: InputEvent | Action) -> dict[str, Any]:
    """One logged input as a scenario [[input]] entry (the inverse of read_inputs)."""
    if isinstance(event, Action):
        return {"t": event.t, "action": event.name, **event.params}
    if isinstance(event.value, bool):
        return {"t": event.t, ("hold" if event.value else "release"): event.control}
    return {"t": event.t, "move": event.control, "to": event.value}


def print_events(out: dict[str, Any], refused_word: str, *, unsaid: tuple[str, ...] = ()) -> None:
    """A scenario result's events and refusals as the log a person reads, in time order: one
    line per event (its `unsaid` keys left out), a refused input a `refused_word` line at its
    moment with the reason (stable: a refusal after that moment's events). Each game prints
    its own last lines."""
    lines = []
    for e in out["events"]:
        details = ", ".join(f"{k}={v}" for k, v in e.items() if k not in ("t", "type", *unsaid))
        lines.append((e["t"], f"{e['t']:8.2f}s  {e['type']:<20} {details}"))
    for r in out["refused"]:
        asked = ", ".join(f"{k}={v}" for k, v in r.items() if k not in ("t", "action", "reason"))
        lines.append((r["t"], f"{r['t']:8.2f}s  {refused_word:<20} {r['action']}{f' ({asked})' if asked else ''}: "
                              f"{r['reason']}"))
    for _t, line in sorted(lines, key=lambda tl: tl[0]):
        print(line)
