"""The scripting contract with mode = "kaboom": `penguin-panel replay` runs Kaboom scenarios."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from panel.tools.cli import main
from panel.core.errors import ConfigError
from panel.games.scenario_inputs import input_entry
from panel.games.scenarios import parse_scenario, run_scenario

MATCH = {"mode": "kaboom", "players": ["red", "blue"], "mission": "custom", "seed": 1,
         "custom": {"time_per_player": 40, "alert_seconds": 15, "recharge_seconds": 25, "recharge_above_start": False,
                    "alerts": 3}}

SUCCESS = """
[match]
mode = "kaboom"
players = ["red", { colour = "blue", name = "Miji" }]
mission = "custom"
custom = { time_per_player = 40, alert_seconds = 15, recharge_seconds = 25, recharge_above_start = false }
seed = 1

[[input]]
t = 0
press = "cockpit.start"
[[input]]
t = 3
action = "pass"
colour = "{first}"
[[input]]
t = 15.5
press = "cross.red"
[[input]]
t = 17
press = "cross.up"
[[input]]
t = 18
move = "lever.big"
to = "down"
[[input]]
t = 19
press = "cross.up"
[[input]]
t = 20
hold = "alarm.red"
[[input]]
t = 21
hold = "beacon.blue"
"""


def first_player(seed: int = 1) -> str:
    out = run_scenario(parse_scenario({"match": dict(MATCH, seed=seed), "input": [{"t": 0, "action": "start"}]}))
    return out["events"][0]["first"]


def test_replay_json_of_a_mission_accomplished(tmp_path, capsys):
    path = tmp_path / "k.toml"
    path.write_text(SUCCESS.replace("{first}", first_player()))
    assert main(["replay", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"game", "events", "refused", "time_left", "finished", "outcome", "reason", "failed_colour"}
    types = [e["type"] for e in out["events"]]
    assert types == ["mission_started", "turn_passed", "alert", "alert_flipped", "cover_lifted",
                     "mission_confirmed", "mission_accomplished"]
    assert out["refused"] == [{"t": 17.0, "action": "confirm", "control": "cross.up",
                               "reason": "lift the mission button's cover first"}]
    first = out["events"][0]["first"]
    other = "blue" if first == "red" else "red"
    # first played 0-3 s, the other 3-19 s (then the clocks stopped)
    assert out["time_left"] == {first: 37.0, other: 24.0}
    assert (out["finished"], out["outcome"], out["reason"]) == (True, "success", None)


def test_replay_json_of_a_mission_failed_by_a_clock():
    out = run_scenario(parse_scenario({"match": MATCH, "input": [{"t": 0, "action": "start"}], "end": 100}))
    assert [e["type"] for e in out["events"]] == ["mission_started", "alert", "alert", "mission_failed"]
    first = out["events"][0]["first"]
    assert (out["outcome"], out["reason"], out["failed_colour"]) == ("failed", "clock_out", first)
    assert out["events"][-1]["t"] == 40.0 and out["time_left"][first] == 0.0


def test_replay_json_of_a_mission_failed_by_the_last_alert():
    inputs = [{"t": 0, "action": "start"}, {"t": 16, "action": "alert_flipped"}, {"t": 31, "action": "alert_flipped"},
              {"t": 32, "action": "alert_flipped"}, {"t": 46, "action": "alert_flipped"}]
    out = run_scenario(parse_scenario({"match": dict(MATCH, custom=dict(MATCH["custom"], time_per_player=600)),
                                       "input": inputs}))
    types = [e["type"] for e in out["events"]]
    assert types == ["mission_started", "alert", "alert_flipped", "alert", "alert_flipped", "alert",
                     "alert_flipped", "mission_failed"]
    assert out["refused"] == [{"t": 32.0, "action": "alert_flipped", "reason": "no alert is waiting to be flipped"}]
    assert (out["outcome"], out["reason"]) == ("failed", "last_alert")


def test_the_human_log_says_how_it_ended(tmp_path, capsys):
    path = tmp_path / "k.toml"
    path.write_text(SUCCESS.replace("{first}", first_player()))
    assert main(["replay", str(path)]) == 0
    text = capsys.readouterr().out
    assert "mission_accomplished" in text and text.strip().endswith("mission accomplished")
    assert "refused              confirm (control=cross.up): lift the mission button's cover first" in text


def test_a_logged_mission_round_trips_through_input_entries():
    inputs = [{"t": 0, "press": "cockpit.start"}, {"t": 2, "press": "alarm.red"}, {"t": 2.5, "press": "beacon.blue"},
              {"t": 4, "action": "recharge"}, {"t": 5, "action": "pause", "reason": "link"},
              {"t": 9, "action": "resume", "reason": "link"}, {"t": 16, "press": "cross.red"},
              {"t": 17, "move": "lever.big", "to": "down"}, {"t": 18, "press": "cross.up"}]
    sc = parse_scenario({"match": MATCH, "input": inputs, "end": 30})
    first = run_scenario(sc)
    assert run_scenario(sc) == first
    again = parse_scenario({"match": MATCH, "input": [input_entry(e) for e in sc.inputs], "end": 30})
    assert run_scenario(again) == first


@pytest.mark.parametrize("inputs, expected", [
    ([{"t": 1, "press": "grid.r9c9"}], "input[0].press: 'grid.r9c9' is not a button of the panel (Kaboom uses"),
    ([{"t": 1, "move": "lever.huge", "to": "2"}], "input[0].move: 'lever.huge' is not a token of the panel"),
    ([{"t": 1, "move": "lever.big", "to": "sideways"}], "input[0].to: 'sideways' is not a position of lever.big"),
    ([{"t": 1, "action": "flip"}], "input[0].action: 'flip' is not a Kaboom action"),
    ([{"t": 1, "action": "pass"}], "input[0].colour: None is not a penguin colour"),
    ([{"t": 1, "action": "recharge", "colour": "red"}], "input[0].colour: recharge takes no parameters"),
    ([{"t": 1, "action": "pause", "reason": "lunch"}], "input[0].reason: 'lunch' is not a reason to pause"),
    ([{"t": 1, "action": "new_match"}], "input[0].action: a scenario plays one mission"),
    ([{"t": 2, "action": "start"}, {"t": 1, "action": "recharge"}], "input[1].t: 1.0 is before"),
])
def test_bad_kaboom_inputs_name_the_key(inputs, expected):
    with pytest.raises(ConfigError) as err:
        parse_scenario({"match": MATCH, "input": inputs}, file="k.toml")
    assert any(str(p).startswith(f"k.toml: {expected}") for p in err.value.problems), [
        str(p) for p in err.value.problems]


def test_other_controls_change_nothing_and_the_panel_table_sets_the_protection():
    """A logged mission holds every press of the panel; the engine uses the [kaboom] ones.
    The [panel] table says where tokens stand at the start: the lever already down lifts
    nothing (Kaboom rule 9: every mission starts protected), moving it again does."""
    inputs = [{"t": 0, "action": "start"}, {"t": 1, "press": "grid.r1c1"}, {"t": 1, "move": "slider.red", "to": 3},
              {"t": 2, "press": "cross.up"}, {"t": 3, "move": "lever.big", "to": "up"},
              {"t": 3.5, "move": "lever.big", "to": "down"}, {"t": 4, "press": "cross.up"}]
    out = run_scenario(parse_scenario({"match": MATCH, "input": inputs, "panel": {"lever.big": "down"}}))
    assert [e["type"] for e in out["events"]] == ["mission_started", "cover_lifted", "mission_confirmed"]
    assert [(r["t"], r["action"], r["reason"]) for r in out["refused"]] == [
        (2.0, "confirm", "lift the mission button's cover first")]
    with pytest.raises(ConfigError, match="panel.lever.big: 'sideways' is not a position"):
        parse_scenario({"match": MATCH, "input": [], "panel": {"lever.big": "sideways"}}, file="k.toml")


def test_a_colour_the_panel_lacks_is_named(tmp_path):
    layout = tmp_path / "layout.toml"
    from panel.core.layout_file import default_layout_path

    layout.write_text(default_layout_path().read_text().replace('black = "alarm.black", ', ""))
    with pytest.raises(ConfigError, match="the panel has no button for the black penguin"):
        parse_scenario({"match": dict(MATCH, players=["red", "black"], layout=str(layout)), "input": []}, file="k.toml")


def test_replay_of_a_bad_kaboom_file_is_one_line_per_problem(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('[match]\nmode = "kaboom"\nplayers = ["red", "pink"]\nmission = 99\n')
    r = subprocess.run([sys.executable, "-m", "panel", "replay", str(path), "--json"], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"error: {path}: match.") for line in lines)
