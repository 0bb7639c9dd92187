"""The Kaboom missions file and match settings: presets resolved, problems listed one line
each with the file and the key."""

from __future__ import annotations

import tomllib

import pytest
import tomli_w

from panel.games.kaboom.settings import DIFFICULTIES, KaboomSettings
from panel.core.errors import ConfigError
from panel.games.kaboom.missions import default_missions_path, load_missions

SHIPPED = tomllib.loads(default_missions_path().read_text())


def test_the_shipped_file_has_three_difficulties_and_fifteen_missions_resolved_from_it():
    presets = load_missions()
    assert tuple(presets.difficulties) == DIFFICULTIES
    assert list(presets.missions) == list(range(1, 16))
    for m in SHIPPED["mission"]:
        for d in DIFFICULTIES:
            r = presets.rules(d, m["number"])
            assert r.time_per_player == SHIPPED["difficulty"][d]["time_per_player"] + m["time_change"]
            assert r.alert_seconds == SHIPPED["difficulty"][d]["alert_seconds"] + m["alert_change"]
            assert (r.recharge_seconds, r.recharge_above_start, r.alerts, r.alerts_face_up, r.name) == (
                m["recharge_seconds"], m["recharge_above_start"], m["alerts"], m["alerts_face_up"], m["name"])
            assert 20 <= r.recharge_seconds <= 30  # the rulebook's range


def test_the_shipped_file_says_its_values_are_the_houses():
    text = default_missions_path().read_text()
    assert "HOUSE'S VALUES" in text and "may change" in text


def test_harder_difficulties_never_give_more_time():
    presets = load_missions()
    for n in presets.missions:
        easy, medium, advanced = (presets.rules(d, n) for d in DIFFICULTIES)
        assert easy.time_per_player >= medium.time_per_player >= advanced.time_per_player
        assert easy.alert_seconds >= medium.alert_seconds >= advanced.alert_seconds


def broken(tmp_path, change) -> list[str]:
    raw = tomllib.loads(default_missions_path().read_text())
    change(raw)
    path = tmp_path / "missions.toml"
    path.write_text(tomli_w.dumps(raw))
    with pytest.raises(ConfigError) as e:
        load_missions(path)
    lines = [str(p) for p in e.value.problems]
    assert all("\n" not in line and line.startswith(f"{path}: ") for line in lines)
    return [line[len(str(path)) + 2:] for line in lines]


def test_every_problem_of_a_missions_file_at_once(tmp_path):
    def change(raw):
        raw["colour"] = "blue"
        del raw["difficulty"]["easy"]
        raw["difficulty"]["medium"]["alert_seconds"] = 2
        raw["mission"][1]["number"] = 7
        raw["mission"][2]["alerts_face_up"] = 5
        raw["mission"][3]["recharge_above_start"] = "yes"
        raw["mission"][14]["time_change"] = -1000
        raw["custom"]["wobble"] = 1

    got = broken(tmp_path, change)
    assert got[0].startswith("colour: unknown key")
    expected = ["difficulty.easy: missing", "difficulty.medium.alert_seconds: must be a whole number from 5 to 600",
                "mission[1].number: must be 2", "mission[2].alerts_face_up: 5 face up of 5 alert cards",
                "mission[3].recharge_above_start: must be true or false",
                "mission[14].time_change: gives -850 seconds on each player's clock at the start at advanced",
                "custom.wobble: unknown rule"]
    for want in expected:
        assert any(line.startswith(want) for line in got), (want, got)


def test_a_missing_file_and_bad_toml_are_one_line(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_missions(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[difficulty\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_missions(bad)


# ---------------------------------------------------------------------- settings

def settings(**raw):
    return KaboomSettings.from_dict({"mode": "kaboom", **raw}, load_missions(), file="s.toml")


def test_a_preset_mission_takes_its_numbers_from_the_file():
    s = settings(players=["red", {"colour": "blue", "name": "Miji"}], difficulty="advanced", mission=9, seed=3)
    assert s.rules == load_missions().rules("advanced", 9)
    assert [(p.colour, p.name) for p in s.players] == [("red", None), ("blue", "Miji")]
    assert KaboomSettings.from_dict(s.as_dict(), load_missions()) == s


def test_the_custom_mission_takes_its_four_parameters_and_defaults_the_rest():
    s = settings(players=["red"], mission="custom",
                 custom={"time_per_player": 90, "alert_seconds": 12, "recharge_seconds": 20,
                         "recharge_above_start": True})
    custom = load_missions().custom
    assert (s.rules.time_per_player, s.rules.alert_seconds, s.rules.recharge_seconds,
            s.rules.recharge_above_start) == (90, 12, 20, True)
    assert (s.rules.alerts, s.rules.alerts_face_up) == (custom.alerts, custom.alerts_face_up)
    assert settings(players=["red"], difficulty="easy", mission="custom").rules == settings(
        players=["red"], difficulty="advanced", mission="custom").rules  # the difficulty does not change it


@pytest.mark.parametrize("raw, expected", [
    ({"players": "red"}, "s.toml: match.players: must list up to 6 players"),
    ({"players": ["red", "pink"]}, "s.toml: match.players[1].colour: 'pink' is not a penguin colour"),
    ({"players": ["red", "red"]}, "s.toml: match.players[1].colour: two players have the red penguin"),
    ({"players": ["red"] * 7}, "s.toml: match.players: 7 players: at most 6"),
    ({"players": ["red"], "mission": 16}, "s.toml: match.mission: 16 is not a mission (1 to 15, or \"custom\")"),
    ({"players": ["red"], "difficulty": "hard"}, "s.toml: match.difficulty: 'hard' is not a difficulty"),
    ({"players": ["red"], "mission": 3, "custom": {}}, "s.toml: match.custom: custom parameters need mission"),
    ({"players": ["red"], "mission": "custom", "custom": {"alert_seconds": 1}},
     "s.toml: match.custom.alert_seconds: must be a whole number from 5 to 600"),
    ({"players": ["red"], "mission": "custom", "custom": {"alerts": 2, "alerts_face_up": 2}},
     "s.toml: match.custom.alerts_face_up: 2 face up of 2 alert cards"),
    ({"players": ["red"], "teams": []}, "s.toml: match.teams: unknown setting for Kaboom"),
    ({"players": ["red"], "seed": -1}, "s.toml: match.seed: must be a whole number"),
])
def test_bad_settings_name_the_key(raw, expected):
    with pytest.raises(ConfigError) as e:
        settings(**raw)
    assert any(str(p).startswith(expected) for p in e.value.problems), [str(p) for p in e.value.problems]

