"""A Hypothesis state machine over random Kaboom input streams, checking the invariants:
exactly one clock runs while the mission is played, no clock goes below zero, and a
mission fed its own inputs again gives the same events and the same state."""

from __future__ import annotations

from hypothesis import event, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from panel.games.kaboom.engine import Phase
from panel.games.kaboom.events import EVENT_TYPES
from panel.games.kaboom.settings import COLOURS
from panel.core.events import Action, InputEvent

from kaboom_helpers import MAPPING, match

BUTTONS = ("recharge", "mission", "alert_flipped", "alert_deactivated", "start")


class KaboomMachine(RuleBasedStateMachine):
    @initialize(colours=st.lists(st.sampled_from(COLOURS), min_size=0, max_size=6, unique=True),
                seed=st.integers(0, 2**32), above=st.booleans(), alerts=st.integers(1, 6),
                time=st.integers(10, 40), alert_seconds=st.integers(5, 20),
                start=st.sampled_from((True, True, True, False)))  # mostly started at once
    def setup(self, colours, seed, above, alerts, time, alert_seconds, start):
        self.kw = dict(seed=seed, time_per_player=time, alert_seconds=alert_seconds, recharge_seconds=7,
                       recharge_above_start=above, alerts=alerts, alerts_face_up=min(1, alerts - 1))
        self.colours = tuple(colours)
        self.m = match(self.colours, **self.kw)
        self.t = 0.0
        self.inputs: list = []
        self.events: list = []
        if start:
            self.feed(Action("start", 0.0))

    def feed(self, event):
        self.inputs.append(event)
        new = self.m.handle(event)
        self.check(new)
        self.events += new

    def check(self, new):
        for e in new:
            assert e.type in EVENT_TYPES
            if e.type == "mission_failed" and e.details["reason"] == "clock_out":
                assert e.details["time_left"][e.details["colour"]] == 0.0
            if e.type == "turn_passed" and len(self.m.colours) > 1:
                assert e.details["to"] != e.details["from"]
            if e.type == "mission_accomplished":
                assert all(p["held"] for p in self.m.snapshot()["players"])

    @rule(dt=st.floats(min_value=0.0, max_value=15.0))
    def wait(self, dt):
        self.t += dt
        new = self.m.advance(self.t)
        self.check(new)
        self.events += new
        self.inputs.append(("advance", self.t))

    @rule(colour=st.sampled_from(COLOURS), down=st.booleans())
    def colour(self, colour, down):
        self.feed(InputEvent(MAPPING.players[colour], down, self.t))

    @rule(role=st.sampled_from(BUTTONS))
    def button(self, role):
        control = getattr(MAPPING, role)
        self.feed(InputEvent(control, True, self.t))
        self.feed(InputEvent(control, False, self.t))

    @rule(position=st.sampled_from(MAPPING.cover_positions))
    def cover(self, position):
        self.feed(InputEvent(MAPPING.cover, position, self.t))

    @rule(name=st.sampled_from(("pause", "resume")), reason=st.sampled_from(("pause", "link")))
    def pause(self, name, reason):
        self.feed(Action(name, self.t, {"reason": reason}))

    @rule()
    def close_the_mission(self):
        self.feed(InputEvent(MAPPING.cover, MAPPING.cover_open, self.t))
        self.feed(InputEvent(MAPPING.mission, True, self.t))
        self.feed(InputEvent(MAPPING.mission, False, self.t))

    @rule()
    def every_finger(self):
        for c in self.m.colours:
            self.feed(InputEvent(MAPPING.players[c], True, self.t))

    @rule(n=st.integers(1, 20))
    def abandon(self, n):
        if n == 7:  # now and then: an abandoned mission ends every stream early
            self.feed(Action("abandon", self.t))

    @invariant()
    def one_clock_runs_while_played(self):
        if not hasattr(self, "m"):
            return
        runs = [c for c, clock in self.m.clocks.items() if clock.running]
        if self.m.phase is Phase.PLAYING:
            assert runs == [self.m.active]
            assert self.m.alert_clock.running
        else:
            assert runs == [] and not self.m.alert_clock.running
            assert self.m.next_deadline() is None

    @invariant()
    def no_clock_below_zero_nor_above_a_cap(self):
        if not hasattr(self, "m"):
            return
        for p in self.m.snapshot(self.t)["players"]:
            assert p["time_left"] >= 0.0
            if not self.kw["recharge_above_start"]:
                assert p["time_left"] <= self.kw["time_per_player"]
        a = self.m.snapshot(self.t)["alerts"]
        assert 0 <= a["face_up"] <= a["total"] and a["waiting"] >= 0
        assert (a["face_up"] == a["total"]) <= (self.m.reason == "last_alert")

    @invariant()
    def allowed_is_what_refusal_allows(self):
        if not hasattr(self, "m"):
            return
        snap = self.m.snapshot(self.t)
        assert snap["finished"] == (snap["outcome"] is not None)
        if snap["finished"]:
            assert list(snap["actions"]) == ["new_match"]

    def teardown(self):
        if not hasattr(self, "m"):
            return
        event(f"ended {self.m.phase.value} {self.m.outcome or ''} {self.m.reason or ''}".strip())
        # replay equality: the same inputs to a fresh match give the same events and state
        again = match(self.colours, **self.kw)
        events = []
        for item in self.inputs:
            if isinstance(item, tuple):
                events += again.advance(item[1])
            else:
                events += again.handle(item)
        assert [e.as_dict() for e in events] == [e.as_dict() for e in self.events]
        assert again.snapshot(self.t) == self.m.snapshot(self.t)


TestKaboomInvariants = KaboomMachine.TestCase
TestKaboomInvariants.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)
