"""The self-test's verdicts, from the events each step saw: pure logic, no pins."""

from __future__ import annotations

from panel.core.events import InputEvent
from panel.core.layout_file import load_layout
from panel.hardware.selftest import (CHATTER, NEVER, NOT_TESTED, NOT_WIRED, OK, SEEN_AS, STUCK, SWAPPED, Observed, Step,
                            plan, table, verdicts)


def press(cid, t=1.0):
    return [InputEvent(cid, True, t), InputEvent(cid, False, t + 0.1)]


def step(cid, kind="button", target=None):
    return Step(cid, kind, f"press {cid}", target)


def by_control(vs):
    return {v.control: v for v in vs}


def test_plan_follows_the_layout_and_asks_tokens_for_their_far_end():
    layout = load_layout(None)
    steps = plan(layout, ["switch.left", "cross.up", "round_lever.red", "knob.main", "cockpit.flip"],
                 {"round_lever.red": "0"})
    order = [c.id for c in layout.controls()]
    assert [s.control for s in steps] == sorted([s.control for s in steps], key=order.index)
    s = {x.control: x for x in steps}
    assert s["cross.up"].kind == "button" and s["cross.up"].prompt == "press up on the direction cross once"
    lever = layout.control("round_lever.red")
    assert s["round_lever.red"].target == lever.positions[-1]
    sw = layout.control("switch.left")
    assert s["switch.left"].target == ([p for p in sw.positions if p != sw.start][0])
    assert s["knob.main"].prompt.startswith("turn the rotating knob to ")
    assert s["round_lever.red"].prompt == f"move the red round lever to {lever.positions[-1]}"


def test_each_control_seen_once_is_ok():
    obs = [Observed(step("a"), press("a")), Observed(step("b"), press("b"))]
    assert [(v.control, v.verdict, v.events) for v in verdicts(obs)] == [("a", OK, 1), ("b", OK, 1)]


def test_a_swapped_pair_names_both():
    obs = [Observed(step("a"), press("b")), Observed(step("c"), press("c")), Observed(step("b"), press("a"))]
    v = by_control(verdicts(obs))
    assert (v["a"].verdict, v["a"].other) == (SWAPPED, "b") and "b" in v["a"].detail
    assert (v["b"].verdict, v["b"].other) == (SWAPPED, "a") and "a" in v["b"].detail
    assert v["c"].verdict == OK


def test_seen_where_another_was_expected_is_not_a_swap_when_the_other_answers_itself():
    # a's wire lands on b's input; b is fine: a is "seen as b", b is ok.
    obs = [Observed(step("a"), press("b")), Observed(step("b"), press("b"))]
    v = by_control(verdicts(obs))
    assert (v["a"].verdict, v["a"].other) == (SEEN_AS, "b")
    assert v["b"].verdict == OK


def test_never_seen_stuck_and_chattering():
    obs = [Observed(step("dead"), []),
           Observed(step("held"), []),
           Observed(step("worn"), press("worn", 1.0) + press("worn", 1.2)),
           Observed(step("sw", "switch", "on"), [InputEvent("sw", "on", 1), InputEvent("sw", "off", 1.05),
                                                   InputEvent("sw", "on", 1.1)]),
           Observed(step("rl", "round_lever", "2"), [InputEvent("rl", "1", 1), InputEvent("rl", "2", 1.3)])]
    v = by_control(verdicts(obs, stuck=["held"]))
    assert v["dead"].verdict == NEVER
    assert v["held"].verdict == STUCK
    assert v["worn"].verdict == CHATTER and v["worn"].events == 2 and "2 events" in v["worn"].detail
    assert v["sw"].verdict == CHATTER and "on, off, on" in v["sw"].detail
    assert v["rl"].verdict == OK  # passing through the middle on the way is one move


def test_releases_do_not_count_and_untested_and_unwired_are_listed():
    obs = [Observed(step("a"), [InputEvent("a", False, 0.5)] + press("a"))]
    vs = verdicts(obs, untested=["m"], unwired=["x"])
    assert [(v.control, v.verdict) for v in vs] == [("a", OK), ("m", NOT_TESTED), ("x", NOT_WIRED)]


def test_table_puts_problems_first_and_counts():
    obs = [Observed(step("a"), press("a")), Observed(step("z"), [])]
    text = table(verdicts(obs, stuck=[]))
    lines = text.splitlines()
    assert lines[2].startswith("z ") and NEVER in lines[2]
    assert lines[3].startswith("a ") and OK in lines[3]
    assert lines[-1] == "1 never seen, 1 ok"


def test_the_table_names_controls_in_plain_words_with_their_map_key():
    layout = load_layout(None)
    obs = [Observed(step("alarm.red"), press("beacon.white")), Observed(step("beacon.white"), press("alarm.red"))]
    vs = verdicts(obs)
    assert vs[0].detail == "its wire and beacon.white's are swapped"  # the JSON report: ids, for scripts
    lines = table(vs, layout).splitlines()
    assert lines[0].split() == ["control", "map", "key", "verdict", "detail"]
    assert lines[2].startswith("the red alarm ") and " alarm.red " in lines[2]
    assert lines[2].endswith("its wire and the white beacon's are swapped")
