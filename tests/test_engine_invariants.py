"""A Hypothesis state machine over random input streams, checking the engine's invariants."""

from __future__ import annotations

import copy

import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from panel.games.airlines import show
from panel.games.airlines.bot import BotCrew
from panel.games.airlines.cards import Card
from panel.games.airlines.engine import Match, MatchSettings, Phase, Team
from panel.games.airlines.engine.match import LIT_ACTIONS
from panel.core.events import Action, InputEvent
from panel.games.airlines.events import ACTIONS
from panel.core.layout_file import load_layout
from panel.hardware.map import load_map

LAYOUT = load_layout(expansion=True)
BUTTONS = sorted(LAYOUT.buttons)
TOKENS = sorted(LAYOUT.tokens)
DECK = [
    Card("simple", press=("grid.r1c1",)),
    Card("simple", press=("alarm.red", "beacon.blue")),
    Card("simple", set=(("slider.red", "3"),)),
    Card("simple", press=("radio.1",), set=(("switch.left", "up"), ("click.red", "on"))),
    Card("sequence", section="cross", steps=("up", "left", "down")),
    Card("sequence", section="arrows", steps=("left", "left", "right")),
    Card("coordinates", section="coords", steps=("A1", "B2", "C3")),
    Card("activation", word="FAN"),
]
PIXELS = load_map("reference").neopixel  # the built panel's strip, a LED on START and FLIP
SETTINGS = MatchSettings(teams=(Team("A", ("a1", "a2")), Team("B", ("b1", "b2"))), seed=5, expansion=True,
                         time_counters=3, target_points=6, turn_seconds=20)


class Reads(dict):
    """A snapshot that notes each key read of it."""

    def __init__(self, *args):
        super().__init__(*args)
        self.read: set = set()

    def get(self, key, default=None):
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.read.add(key)
        return super().__getitem__(key)


class MatchMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.match = Match(SETTINGS, LAYOUT, DECK, shuffle=True)
        self.t = 0.0
        self.inputs: list = []
        self.events: list = []
        self.in_turn = False

    def feed(self, event):
        self.inputs.append(event)
        self.match.snapshot(event.t)  # both views made before the step (what the match may keep)
        view = self.kept_view_before()
        new = self.match.handle(event)
        self.a_view_kept_is_unchanged(*view)
        self.the_views_kept_are_the_views_made_afresh(event.t)
        self.the_lights_are_the_snapshot_the_show_draws()  # first after the change
        self.check_stream(new)
        self.events += new

    def check_stream(self, new):
        for before, e in zip([None] + new, new):
            if e.type == "game_ended" and before is not None and before.type == "round_ended":
                # Played to the round's end (the target reached, or the game master's end at
                # the round's end, rule 25): every team has played as many turns.
                assert len(set(self.match.turns_played().values())) == 1, self.match.turns_played()
            if e.type == "turn_started":
                assert not self.in_turn
                self.in_turn = True
                self.turn = {"completed": 0, "mistakes": 0, "held": 0}
            elif e.type in ("card_drawn", "card_completed", "mistake", "counter_granted", "counter_spent",
                            "challenge", "challenge_ruled"):
                assert self.in_turn, f"{e.type} outside a turn"
                if e.type == "card_completed":
                    self.turn["completed"] += 1
                elif e.type == "challenge_ruled" and e.details["upheld"]:
                    self.turn["completed"] = e.details["completed"]
                elif e.type == "mistake":
                    self.turn["mistakes"] += 1
                elif e.type in ("counter_granted", "counter_spent"):
                    self.turn["held"] = e.details["held"]
            elif e.type == "turn_ended":
                assert self.in_turn
                self.in_turn = False
                d = e.details
                assert d["completed"] == self.turn["completed"]
                # a turn ends exactly on its three conditions
                if d["reason"] == "five_cards":
                    assert d["completed"] == 5 and d["points"] == 5 + d["counters"]
                elif d["reason"] == "mistakes":
                    assert self.turn["mistakes"] == 2 and d["points"] == d["completed"]
                else:
                    assert d["reason"] == "time" and self.turn["mistakes"] < 2 and d["completed"] < 5
                    assert d["points"] == d["completed"]
                assert d["counters"] == self.turn["held"]

    @rule(dt=st.floats(min_value=0.0, max_value=8.0))
    def wait(self, dt):
        self.t += dt
        self.match.snapshot(self.t)
        view = self.kept_view_before()
        new = self.match.advance(self.t)
        self.a_view_kept_is_unchanged(*view)
        self.the_views_kept_are_the_views_made_afresh(self.t)
        self.the_lights_are_the_snapshot_the_show_draws()
        self.check_stream(new)
        self.events += new

    @rule()
    def start_turn(self):
        self.feed(Action("start_turn", self.t))

    @rule(button=st.sampled_from(BUTTONS), dt=st.floats(min_value=0.0, max_value=1.0))
    def press(self, button, dt):
        self.t += dt
        self.feed(InputEvent(button, True, self.t))
        self.feed(InputEvent(button, False, self.t))

    @rule(token=st.sampled_from(TOKENS), data=st.data(), dt=st.floats(min_value=0.0, max_value=1.0))
    def move(self, token, data, dt):
        self.t += dt
        pos = data.draw(st.sampled_from(LAYOUT.tokens[token].positions))
        self.feed(InputEvent(token, pos, self.t))

    @precondition(lambda self: self.match.phase is Phase.IN_TURN and self.match.snapshot()["card"] is not None)
    @rule()
    def play_the_card(self):
        """The crew carries the card out as the tower reads it: cards completed, counters won."""
        card = self.match.snapshot(self.t)["card"]
        for event in BotCrew(self.match, accuracy=1.0).inputs_for_card(card, self.t):
            self.t = max(self.t, event.t)
            self.feed(event)

    @rule()
    def flip(self):
        self.feed(Action("flip", self.t))

    @rule(which=st.sampled_from(["current", 0, 1, 7]))
    def challenge(self, which):
        self.feed(Action("challenge", self.t, {"team": "B", "card": which}))

    @rule()
    def end_at_the_rounds_end(self):
        self.feed(Action("end", self.t, {"when": "round"}))

    @rule(reason=st.sampled_from(["pause", "link"]), resume=st.booleans())
    def pause_or_resume(self, reason, resume):
        self.feed(Action("resume" if resume else "pause", self.t, {"reason": reason}))

    @rule(upheld=st.booleans(), dt=st.floats(min_value=0.0, max_value=30.0))
    def rule_on_it(self, upheld, dt):
        self.t += dt
        self.feed(Action("rule", self.t, {"upheld": upheld}))

    @invariant()
    def counters_stay_within_the_pool(self):
        snap = self.match.snapshot()
        assert 0 <= snap["counters_held"] <= SETTINGS.time_counters
        assert snap["counters_held"] + snap["counters_pool"] == SETTINGS.time_counters
        assert 0 <= snap["mistakes"] < 2
        assert 0 <= snap["completed"] < 5

    @invariant()
    def the_actions_listed_are_the_ones_the_engine_allows(self):
        """The snapshot's list (kept while what the refusal reads stays the same) is the
        refusal's answer at this moment."""
        listed = self.match.snapshot()["actions"]
        ask = lambda name, **p: self.match.refusal(Action(name, self.match.now, p)) is None  # noqa: E731
        for name in ACTIONS:
            if name not in ("challenge", "rule", "touch", "end"):
                assert (name in listed) == ask(name), name
        for when in ("now", "round"):
            assert (when in listed.get("end", {}).get("when", [])) == ask("end", when=when), when
        assert ("touch" in listed) == ask("touch", control=TOKENS[0])
        for upheld in (True, False):
            assert (upheld in listed.get("rule", {}).get("upheld", [])) == ask("rule", upheld=upheld)
        options = listed.get("challenge", {"teams": [], "cards": []})
        for team in ("A", "B"):
            for card in ["current", 0, 1, 2, 3, 4]:
                assert (team in options["teams"] and card in options["cards"]) == \
                    ask("challenge", team=team, card=card), (team, card)

    def kept_view_before(self):
        view = self.match.kept_view()
        return view, copy.deepcopy(view)

    def a_view_kept_is_unchanged(self, view, as_it_was):
        """The view a step leaves the very same object is the same in every value (the pages'
        state is presented again only when it is another object: Presentation.state)."""
        if self.match.kept_view() is view:
            assert view == as_it_was
        clock = dict.fromkeys(Match.CLOCK)  # (the snapshot is the kept view with its clock set)
        assert {**self.match.kept_view(), **clock} == {**self.match.snapshot(self.t), **clock}

    def the_views_kept_are_the_views_made_afresh(self, t):
        """The views a match keeps across an input (a step of the card's entry) or a wait
        are the ones a match keeping nothing makes: a copy of its state with nothing kept."""
        fresh = copy.copy(self.match)
        fresh._lights = fresh._view = fresh._rest = None
        kept, made = self.match.lights(t), fresh.lights(t)
        assert {k: v for k, v in kept.items() if k != "actions"} == {k: v for k, v in made.items() if k != "actions"}
        # (the actions: all of them or only the lit ones, as the list of every action is kept or not)
        assert {n for n in LIT_ACTIONS if n in kept["actions"]} == {n for n in LIT_ACTIONS if n in made["actions"]}
        fresh._lights = fresh._view = fresh._rest = None
        assert self.match.snapshot(t) == fresh.snapshot(t)

    @invariant()
    def the_lights_are_the_snapshot_the_show_draws(self):
        """The panel's lights are drawn from `lights()` (made before the pages' whole
        snapshot): the same state, and the same frame and sounds as from the whole snapshot."""
        for now in (self.match.now, self.match.now + 0.3, self.match.now + 4.6):
            lights, whole = self.match.lights(now), Reads(self.match.snapshot(now))
            assert {k: whole[k] for k in lights if k != "actions"} == {k: v for k, v in lights.items() if k != "actions"}
            # the actions the lights show (all of them, or only the lit ones when not kept)
            assert lights["actions"].items() <= whole["actions"].items()
            assert {n for n in LIT_ACTIONS if n in lights["actions"]} == {n for n in LIT_ACTIONS if n in whole["actions"]}
            whole.read.clear()
            cues = [show.Cue("mistake", now - 0.1, whole["team"]), show.Cue("card", now - 0.2, whole["team"])]
            assert show.render(lights, now, PIXELS, cues) == show.render(whole, now, PIXELS, cues)
            assert show.motion(lights) == show.motion(whole)
            assert whole.read <= set(lights), f"the show reads {whole.read - set(lights)}, not in lights()"

    @invariant()
    def scores_are_the_sum_of_turn_points(self):
        points: dict = {}
        for e in self.events:
            if e.type == "turn_ended":
                points[e.details["team"]] = points.get(e.details["team"], 0) + e.details["points"]
        for team, score in self.match.scores.items():
            assert score == points.get(team, 0)

    def teardown(self):
        # Replaying the same inputs gives the same events, by construction.
        again = Match(SETTINGS, LAYOUT, DECK, shuffle=True)
        replayed = []
        for event in self.inputs:
            replayed += again.handle(event)
        replayed += again.advance(self.t)
        mine = self.events + self.match.advance(self.t)
        assert [e.as_dict() for e in replayed] == [e.as_dict() for e in mine]
        # What the played match kept between steps (the list of actions, the finished turns)
        # is what a match that never kept anything shows.
        assert self.match.snapshot(self.t) == again.snapshot(self.t)


MatchMachine.TestCase.settings = settings(max_examples=150, stateful_step_count=60, deadline=None)
TestMatchInvariants = pytest.mark.slow(MatchMachine.TestCase)
