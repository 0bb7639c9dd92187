"""A Hypothesis state machine over random Penguin Ultimatum score sheets (performances,
penalties in points or cards, undos, corrections, players sitting down, the end and the
shorter player), checking after every entry, refused or not:

- the total of the players' points always equals the start (10 each) plus what the entries
  that stand entered (performances' points added, penalties' points taken off), counted
  here from the machine's own list of entries, undone and corrected as it asked;
- an entertainer card is never in two places: every one of the sixteen is exactly once yet
  to perform, with one player, or out of the game;
- a refused entry changes nothing, and the same entries fed to a fresh engine give the
  same sheet;
and that anything a page or a script may send is taken or refused in one line."""

from __future__ import annotations

from hypothesis import event, given, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from panel.core.events import Action
from panel.games.ultimatum.cards import CARDS, ENTERTAINER_COLOURS, FORMS, PLAYER_COLOURS, START_POINTS
from panel.games.ultimatum.engine import UltimatumGame
from panel.games.ultimatum.events import ACTIONS, EVENT_TYPES
from panel.games.ultimatum.settings import UltimatumSettings

POINTS = st.integers(0, 12)


class UltimatumMachine(RuleBasedStateMachine):
    @initialize(n=st.sampled_from((0, 2, 3, 3, 4, 4)), forms=st.permutations(FORMS))
    def setup(self, n, forms):
        self.seated = [{"player": c, "form": f} for c, f in zip(PLAYER_COLOURS[:n], forms)]
        self.g = UltimatumGame(UltimatumSettings.from_dict({"players": self.seated}))
        self.actions: list[Action] = []
        # The machine's own sheet: the entries that stand, and what undo goes back to.
        self.entries: list[dict] = [{"kind": "add_player", **p} for p in self.seated]
        self.versions: list[list[dict]] = []
        self.t = 0.0

    def ask(self, name: str, **params) -> bool:
        self.t += 1.0
        action = Action(name, self.t, params)
        before = self.g.snapshot()
        refused = self.g.refusal(action)
        events = self.g.handle(action)
        if refused is not None:
            assert events == [] and self.g.snapshot() == before  # Ultimatum rule 12
            return False
        assert all(e.type in EVENT_TYPES for e in events)
        event(f"{name} taken")  # the statistics show that each kind of entry is exercised
        self.actions.append(action)
        return True

    def who(self, data) -> list[str]:
        """Some of the players, now and then with a colour nobody plays (refused)."""
        playing = [p["player"] for p in self.g.snapshot()["players"]]
        pool = playing if playing and data.draw(st.integers(0, 9)) else list(PLAYER_COLOURS)
        return data.draw(st.lists(st.sampled_from(pool), unique=True, min_size=1))

    def entry(self, name: str, **params) -> None:
        if self.ask(name, **params):
            self.versions.append(list(self.entries))
            self.entries.append({"kind": name, **params})

    @rule(colour=st.sampled_from(ENTERTAINER_COLOURS), form=st.sampled_from(FORMS), data=st.data())
    def performance(self, colour, form, data):
        self.entry("performance", colour=colour, form=form, points={p: data.draw(POINTS) for p in self.who(data)})

    @rule(points=st.integers(1, 9), data=st.data())
    def penalty_in_points(self, points, data):
        self.entry("penalty", player=self.who(data)[0], points=points)

    @rule(data=st.data())
    def penalty_in_a_card(self, data):
        player = self.who(data)[0]
        held = next((p["cards"] for p in self.g.snapshot()["players"] if p["player"] == player), [])
        card = data.draw(st.sampled_from(held)) if held and data.draw(st.booleans()) else data.draw(st.sampled_from(CARDS))
        self.entry("penalty", player=player, card=card)

    @rule(player=st.sampled_from(PLAYER_COLOURS), form=st.sampled_from(FORMS))
    def sits_down(self, player, form):
        self.entry("add_player", player=player, form=form)

    @rule(now=st.integers(0, 7))
    def end(self, now):
        if now == 0:  # seldom: after the end, only the shorter player and undo are taken
            self.entry("end")

    @rule(player=st.sampled_from(PLAYER_COLOURS))
    def shorter(self, player):
        self.entry("shorter", player=player)

    @rule()
    def undo(self):
        if self.ask("undo"):
            self.entries = self.versions.pop()

    @rule(data=st.data())
    def correct(self, data):
        n = data.draw(st.integers(1, len(self.entries) + 1))
        old = self.entries[n - 1] if n <= len(self.entries) else {"kind": "performance"}
        if old["kind"] == "performance":
            given = {"points": {p: data.draw(POINTS) for p in self.who(data)}}
        elif old["kind"] == "penalty":
            given = data.draw(st.sampled_from([{"points": data.draw(st.integers(1, 9))},
                                               {"card": data.draw(st.sampled_from(CARDS))}]))
        else:
            given = {"form": data.draw(st.sampled_from(FORMS))}
        if self.ask("correct", entry=n, **given):
            self.versions.append(list(self.entries))
            new = {**old, **given}
            if old["kind"] == "penalty":
                new = {k: v for k, v in new.items() if k not in ("points", "card")} | given
            self.entries[n - 1] = new

    @invariant()
    def the_points_add_up_to_the_start_plus_what_was_entered(self):
        s = self.g.snapshot()
        seated = [e for e in self.entries if e["kind"] == "add_player"]
        entered = sum(sum(e["points"].values()) for e in self.entries if e["kind"] == "performance")
        entered -= sum(e.get("points", 0) for e in self.entries if e["kind"] == "penalty")
        assert sum(s["scores"].values()) == START_POINTS * len(seated) + entered
        assert len(s["entries"]) == len(self.entries)

    @invariant()
    def an_entertainer_card_is_never_in_two_places(self):
        s = self.g.snapshot()
        places = [c for p in s["players"] for c in p["cards"]] + s["out"] + s["pile"]
        assert sorted(places) == sorted(CARDS)

    def teardown(self):
        if not hasattr(self, "g"):
            return
        again = UltimatumGame(UltimatumSettings.from_dict({"players": self.seated}))
        for action in self.actions:
            again.handle(action)
        assert again.snapshot() == self.g.snapshot()


UltimatumMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=30, deadline=None)
test_the_score_sheet_keeps_its_invariants = UltimatumMachine.TestCase


# Whatever a page or a script sends (the game master's page posts JSON): any action name,
# any parameters, any values. The engine answers each with a refusal of one line, or takes
# it, and never raises.
JSON = st.recursive(st.none() | st.booleans() | st.integers(-5, 2000) | st.floats(allow_nan=False) | st.text(max_size=5)
                    | st.sampled_from(PLAYER_COLOURS + FORMS + ENTERTAINER_COLOURS + CARDS),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.sampled_from(PLAYER_COLOURS + ("x",)), inner, max_size=3), max_leaves=6)
PARAMS = st.dictionaries(st.sampled_from(("player", "name", "form", "colour", "points", "card", "entry", "bogus")),
                         JSON, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(list(ACTIONS) + ["fly"]), PARAMS), max_size=10))
def test_anything_sent_is_taken_or_refused_in_one_line(asked):
    g = UltimatumGame(UltimatumSettings.from_dict({"players": [{"player": "red", "form": "dance"},
                                                               {"player": "green", "form": "music"}]}))
    for i, (name, params) in enumerate(asked):
        action = Action(name, float(i), params)
        why = g.refusal(action)
        if why is not None:
            assert "\n" not in why.text()
        g.handle(action)
        g.snapshot()
