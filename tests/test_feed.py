"""The log's entry and the engine's input are one (panel.games.feed): the service judges
an input as it logs it (`entry_of`, then the engine's `handle`), a replay reads it back
from the log (`entry_event`, `apply`), and both make the same match."""

from __future__ import annotations

from panel.core.events import Action, InputEvent
from panel.games.feed import apply, entry_event, entry_of

from engine_helpers import move, press, scenario, start

INPUTS = [start(0), press("grid.r1c1", 1.5), press("alarm.red", 2.0), move("click.blue", "on", 2.5),
          {"t": 3.0, "action": "flip"}, press("grid.r1c2", 3.5), press("grid.r1c2", 4.0),
          {"t": 4.5, "action": "pause", "reason": "link"}, {"t": 6.0, "action": "resume"}, press("grid.r2c3", 7.0)]


def test_an_input_read_back_from_its_entry_is_the_same_input():
    for event in scenario(INPUTS).inputs:
        kind, data = entry_of(event)
        back = entry_event(kind, event.t, data)
        assert back == event and type(back) is type(event)
        assert kind == ("input" if isinstance(event, InputEvent) else "action")


def test_judging_as_logged_and_replaying_the_log_make_the_same_match():
    sc = scenario(INPUTS, end=40)
    served, replayed = sc.new_match(), sc.new_match()
    told, read = [], []
    log = []
    for event in sc.inputs:
        told += served.advance(event.t)
        kind, data = entry_of(event)
        log.append((kind, event.t, data))
        told += served.handle(event)  # (the service's press path: judged as logged)
    for kind, t, data in log:
        read += replayed.advance(t)
        read += apply(replayed, kind, t, data)
    assert [e.as_dict() for e in told] == [e.as_dict() for e in read]
    assert any(e.type == "mistake" for e in told) and any(isinstance(e, Action) for e in sc.inputs)
    assert served.snapshot(10.0) == replayed.snapshot(10.0)
