"""A Hypothesis state machine over random streams of Pengo Jump reports (the panel's and the
game master's, allowed or not), checking the invariants: the bag never below zero, its
kinds always summing to what is left (and the draws taken out of it), the penguins home
between 0 and 4, every sea lion token in exactly one place, and a game fed its own reports
again gives the same events and the same state."""

from __future__ import annotations

from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from panel.core.events import Action
from panel.games.feed import play
from panel.games.pengo_jump.engine import BAG, IN_BAG, PENGUINS, TOKENS, PengoMatch
from panel.games.pengo_jump.events import ACTIONS, EVENT_TYPES, KINDS, SIZES
from panel.games.pengo_jump.settings import PengoSettings


class PengoMachine(RuleBasedStateMachine):
    @initialize(mode=st.sampled_from(("happy", "sea_lions")), players=st.integers(1, 10))
    def setup(self, mode, players):
        self.settings = PengoSettings(mode=mode, players=("",) * players)
        self.m = PengoMatch(self.settings)
        self.t = 0.0
        self.inputs: list = []
        self.events: list = []
        self.drawn = 0

    def feed(self, name, **params):
        self.t += 1.0
        a = Action(name, self.t, params)
        self.inputs.append(a)
        allowed = self.m.refusal(a) is None
        new = self.m.handle(a)
        assert all(e.type in EVENT_TYPES for e in new)
        if not allowed:
            assert new == []
        self.drawn += sum(e.type == "chunk_drawn" for e in new)
        self.events += new

    @rule(kind=st.sampled_from(KINDS + ("ice",)))
    def draw(self, kind):
        self.feed("draw", kind=kind)

    @rule(name=st.sampled_from(("home", "fell", "end_turn")))
    def report(self, name):
        self.feed(name)

    @rule(name=st.sampled_from(("sea_lion", "token_fell")), size=st.sampled_from(SIZES))
    def sea_lion(self, name, size):
        self.feed(name, size=size)

    @rule()
    def abandon_rarely(self):
        if len(self.inputs) % 23 == 22:
            self.feed("abandon")

    @invariant()
    def the_bag_never_below_zero_and_its_kinds_sum_to_what_is_left(self):
        bag = self.m.bag
        assert all(0 <= bag[k] <= BAG[k] for k in KINDS)
        assert sum(bag.values()) == self.m.left == IN_BAG - self.drawn
        s = self.m.snapshot()
        assert sum(s["bag"].values()) == s["left"]
        if s["left"]:
            assert abs(sum(s["odds"].values()) - 1.0) < 1e-9

    @invariant()
    def penguins_and_tokens_stay_whole(self):
        assert 0 <= self.m.home <= PENGUINS
        if self.m.tokens is not None:
            for size, places in self.m.tokens.items():
                assert min(places.values()) >= 0 and sum(places.values()) == TOKENS[size]

    @invariant()
    def the_game_ends_only_by_the_rulebook(self):
        if self.m.outcome == "won":
            assert self.m.home == PENGUINS
        if self.m.outcome == "lost":
            assert self.m.left == 0 and self.m.home < PENGUINS

    def teardown(self):
        if not hasattr(self, "m"):
            return
        again = PengoMatch(self.settings)
        assert [e.as_dict() for e in play(again, self.inputs)] == [e.as_dict() for e in self.events]
        assert again.snapshot() == self.m.snapshot()


PengoMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)
TestPengoInvariants = PengoMachine.TestCase


def test_every_action_is_declared():
    assert set(ACTIONS) == {"draw", "home", "fell", "sea_lion", "token_fell", "end_turn", "abandon", "new_match"}
