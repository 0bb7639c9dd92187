"""The scripting contract: scenario files, `penguin-panel replay`, and log round trips."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from panel.tools.cli import main
from panel.core.errors import ConfigError
from panel.games.scenario_inputs import input_entry
from panel.games.scenarios import parse_scenario, run_scenario

from engine_helpers import SIMPLE, TWO_TEAMS, scenario

SCENARIO = """
end = 100

[match]
mode = "competitive"
teams = [{ name = "Ice", players = ["ann", "bob"] }, { name = "Snow", players = ["cid", "dee"] }]
turn_seconds = 30
seed = 4

[[cards]]
kind = "simple"
press = ["grid.r3c4"]
set = { "round_lever.blue" = 0 }

[[cards]]
kind = "sequence"
section = "cross"
steps = ["up", "up", "down", "right"]

[[cards]]
kind = "simple"
press = ["alarm.red"]

[[input]]
t = 1
action = "start_turn"
[[input]]
t = 2
press = "grid.r3c4"
[[input]]
t = 3
move = "round_lever.blue"
to = 0
[[input]]
t = 4
hold = "alarm.red"
[[input]]
t = 5
release = "alarm.red"
"""


def test_replay_json_follows_the_contract(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(SCENARIO)
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "airlines"  # every result names its game (the word everywhere)
    assert set(out) == {"game", "events", "refused", "scores", "round", "finished", "winner", "tier", "outcome"}
    assert out["refused"] == []
    types = [e["type"] for e in out["events"]]
    assert types[:3] == ["turn_started", "card_drawn", "card_completed"]
    completed = [e for e in out["events"] if e["type"] == "card_completed"]
    assert completed[0]["t"] == 3.5  # the lever settles 500 ms after the move
    mistake = [e for e in out["events"] if e["type"] == "mistake"][0]
    assert mistake["control"] == "alarm.red" and mistake["t"] == 4.0
    ended = [e for e in out["events"] if e["type"] == "turn_ended"][0]
    assert ended["reason"] == "time" and ended["points"] == 1 and ended["t"] == 31.0
    assert out["scores"] == {"Ice": 1, "Snow": 0} and out["finished"] is False and out["round"] == 1


def test_replay_is_deterministic_and_a_log_round_trips(tmp_path):
    sc = scenario([{"t": 0, "action": "start_turn"}, {"t": 1, "press": "grid.r1c1"}, {"t": 2, "move": "slider.red", "to": 2},
                   {"t": 3, "action": "challenge", "team": "Snow", "card": 0}, {"t": 4, "action": "rule", "upheld": True}],
                  end=60)
    first = run_scenario(sc)
    assert run_scenario(sc) == first
    raw = {"match": {"mode": "competitive", "teams": TWO_TEAMS}, "cards": SIMPLE, "end": 60,
           "input": [input_entry(e) for e in sc.inputs]}
    assert run_scenario(parse_scenario(raw)) == first


def test_generated_deck_is_used_without_cards(tmp_path):
    raw = {"match": {"mode": "competitive", "teams": TWO_TEAMS, "seed": 9}, "input": [{"t": 0, "action": "start_turn"}]}
    out = run_scenario(parse_scenario(raw))
    assert [e["type"] for e in out["events"]][:2] == ["turn_started", "card_drawn"]
    again = run_scenario(parse_scenario(raw))
    assert out == again


@pytest.mark.parametrize("raw, expected", [
    ({"match": {"mode": "solo", "teams": TWO_TEAMS}}, "match.mode: 'solo' is not a mode"),
    ({"match": {"teams": []}}, "match.teams: needs at least one team"),
    ({"match": {"teams": [{"name": "A", "players": ["x"]}]}}, "needs at least 2 players"),
    ({"match": {"mode": "cooperative", "teams": [{"name": "A", "players": list("abcdefg")}]}}, "2 to 6 players, these teams have 7"),
    ({"match": {"mode": "cooperative", "teams": [{"name": "A", "players": ["x", "y"]}, {"name": "B", "players": ["y"]}]}},
     "y listed in two teams"),
    ({"match": {"teams": TWO_TEAMS, "turn_seconds": -1}}, "match.turn_seconds: must be a number"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "press": "nope.x"}]}, "input[0].press: 'nope.x' is not a button"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "move": "slider.red", "to": 9}]}, "input[0].to: '9' is not a position"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 2, "action": "start_turn"}, {"t": 1, "action": "flip"}]},
     "input[1].t: 1.0 is before the previous input's 2.0"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "action": "dance"}]}, "input[0].action: 'dance' is not an action"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "action": "rule"}]}, "input[0].upheld: must be true"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "action": "challenge", "team": "Snow", "card": "last"}]},
     "input[0].card: must be \"current\" or the index"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "action": "flip", "team": "Snow"}]},
     "input[0].team: flip takes no parameters"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "action": "resume", "reason": "challenge"}]},
     "input[0].reason: a challenge stops the timer"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "action": "touch", "control": "grid.r1c1"}]},
     "input[0].control: 'grid.r1c1' is not a token"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1, "action": "new_match"}]}, "a scenario plays one match"),
    ({"match": {"teams": TWO_TEAMS}, "input": [{"t": 1}]}, "needs exactly one of press, hold, release, move, action"),
    ({"match": {"teams": TWO_TEAMS}, "cards": [{"kind": "activation", "word": "FNAP"}]}, "no keypad"),
    ({"match": {"teams": TWO_TEAMS}, "cards": [{"kind": "simple", "press": ["grid.r9c9"]}]}, "cards[0]: button 'grid.r9c9' is not on"),
    ({"input": []}, "a scenario needs a [match] table"),
])
def test_bad_scenarios_name_the_key(raw, expected):
    with pytest.raises(ConfigError) as err:
        parse_scenario(raw, file="s.toml")
    assert any(expected in str(p) for p in err.value.problems), [str(p) for p in err.value.problems]


def test_replay_bad_file_gives_one_line_per_problem_and_no_traceback(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[match]\nmode = "solo"\nteams = []\n')
    r = subprocess.run([sys.executable, "-m", "panel", "replay", str(path), "--json"], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"error: {path}: match.") for line in lines)


def test_replay_missing_file(capsys):
    assert main(["replay", "/nonexistent/x.toml"]) == 2
    assert "file not found" in capsys.readouterr().err


CONTRACT_TYPES = {"turn_started", "card_drawn", "mistake", "card_completed", "counter_granted", "counter_spent",
                  "challenge", "challenge_ruled", "turn_ended", "round_ended", "game_ended"}


def test_contract_inputs_give_only_the_contracts_event_types():
    # A whole demo-like match with challenges, skips and reshuffles (a tiny deck).
    cards = [{"kind": "simple", "set": {"round_lever.red": 1}}, {"kind": "simple", "press": ["grid.r1c1"]},
             {"kind": "simple", "press": ["grid.r1c2"]}]
    inputs = [{"t": 0, "action": "start_turn"}, {"t": 1, "press": "grid.r1c1"}, {"t": 2, "press": "grid.r1c2"},
              {"t": 3, "action": "challenge", "team": "Snow", "card": 0}, {"t": 4, "action": "rule", "upheld": False},
              {"t": 5, "action": "flip"}, {"t": 40, "action": "start_turn"}, {"t": 41, "press": "alarm.red"},
              {"t": 42, "press": "alarm.green"}]
    out = run_scenario(scenario(inputs, cards=cards, end=100, target_points=1))
    types = {e["type"] for e in out["events"]}
    assert types <= CONTRACT_TYPES, types - CONTRACT_TYPES
    assert {"challenge", "challenge_ruled", "game_ended"} <= types
    assert any(e.get("skipped") for e in out["events"] if e["type"] == "card_drawn")


SELF_CHALLENGE = """
[match]
mode = "competitive"
teams = [{ name = "Ice", players = ["ann", "bob"] }, { name = "Snow", players = ["cid", "dee"] }]

[[cards]]
kind = "simple"
press = ["grid.r1c1"]

[[cards]]
kind = "simple"
press = ["grid.r1c2"]

[[input]]
t = 0
action = "start_turn"
[[input]]
t = 2
action = "challenge"
team = "Ice"
card = "current"
[[input]]
t = 3
action = "rule"
upheld = false
[[input]]
t = 4
action = "flip"
"""


def test_a_team_challenging_its_own_turn_is_refused_by_the_replay(tmp_path, capsys):
    """Ice plays and challenges its own card, then asks for a ruling that would give it the
    card with its counter: the engine refuses the challenge (rule 19), so there is no
    challenge, no ruling, no card completed and no counter to flip with; each refusal is
    reported with the engine's reason, in the JSON and as a `refused` line."""
    path = tmp_path / "self.toml"
    path.write_text(SELF_CHALLENGE)
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    types = [e["type"] for e in out["events"]]
    assert types == ["turn_started", "card_drawn"]
    assert out["refused"] == [
        {"t": 2.0, "action": "challenge", "team": "Ice", "card": "current",
         "reason": "team: Ice cannot challenge its own turn"},
        {"t": 3.0, "action": "rule", "upheld": False, "reason": "no challenge is open"},
        {"t": 4.0, "action": "flip", "reason": "the crew holds no time counter"},
    ]
    assert out["scores"] == {"Ice": 0, "Snow": 0}
    assert main(["replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert "    2.00s  refused          challenge (team=Ice, card=current): team: Ice cannot challenge its own turn" in text
    assert "card_completed" not in text and "challenge_ruled" not in text
    # The same challenge by the other team is taken: the rejected ruling completes the card.
    path.write_text(SELF_CHALLENGE.replace('team = "Ice"', 'team = "Snow"'))
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["refused"] == []
    assert [e["by"] for e in out["events"] if e["type"] == "card_completed"] == ["challenge"]
    assert [e["type"] for e in out["events"]].count("counter_spent") == 1


def test_refusals_are_asked_at_the_actions_moment():
    """A challenge after the timer ran out is refused at its moment (no turn in progress),
    though the turn was running when the previous input came."""
    out = run_scenario(scenario([{"t": 0, "action": "start_turn"},
                                 {"t": 31, "action": "challenge", "team": "Snow", "card": "current"}]))
    assert out["refused"] == [{"t": 31.0, "action": "challenge", "team": "Snow", "card": "current",
                               "reason": "no turn is in progress: start one first"}]
    assert [e["type"] for e in out["events"]][-1] == "turn_ended"
