"""One list of match settings: declared on MatchSettings's fields, read by the settings
file, the service's web API and the game master's page, with the same one-line messages."""

from __future__ import annotations

import dataclasses

import pytest

from panel.games.airlines.engine import SETTINGS, MatchSettings, names
from panel.core.errors import ConfigError
from panel.run import read_settings
from service_helpers import MATCH, ServiceThread


def test_the_list_is_the_dataclass():
    assert [s.name for s in SETTINGS] == [f.name for f in dataclasses.fields(MatchSettings)]
    defaults = MatchSettings()
    assert all(getattr(defaults, s.name) == s.default for s in SETTINGS)
    # Each place takes what the declaration says, and nothing else.
    assert names("form") == ("mode", "teams", "turn_seconds", "time_counters", "target_points", "settle_ms", "seed",
                             "side", "expansion")
    assert names("defaults") == ("mode", "teams", "turn_seconds", "time_counters", "target_points", "settle_ms",
                                 "side", "expansion")
    assert names("file") == names("defaults") + ("touch_sensors",)


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.kind == "number"], ids=lambda s: s.name)
def test_number_limits_come_from_the_declaration(setting):
    teams = [{"name": "A", "players": ["a", "b"]}]
    for ok in (setting.low, setting.high):
        assert getattr(MatchSettings.from_dict({"teams": teams, setting.name: ok}), setting.name) == ok
    for bad in (setting.low - 1, setting.high + 1, "many", True):
        with pytest.raises(ConfigError, match=f"match.{setting.name}: must be a .*number from {setting.low} "
                                              f"to {setting.high}"):
            MatchSettings.from_dict({"teams": teams, setting.name: bad})


BAD = {"turn_seconds": 2, "colour": "red"}
LINES = ["turn_seconds: must be a number from 5 to 600, not 2", "colour: unknown setting (expected one of: "]


def test_the_same_messages_from_the_file_and_the_web(tmp_path):
    f = tmp_path / "settings.toml"
    f.write_text('[match]\nturn_seconds = 2\ncolour = "red"\n')
    with pytest.raises(ConfigError) as e:
        read_settings(str(f))
    from_file = [str(p) for p in e.value.problems]
    with ServiceThread(tmp_path / "panel.db") as svc:
        gm = svc.client()
        gm.login()
        status, defaults = gm.post("/api/admin/settings", BAD)
        assert status == 400
        status, new_match = gm.post("/api/admin/match", {**MATCH, **BAD})
        assert status == 400
        status, admin = gm.get("/api/admin/status")
    for line in LINES:
        assert any(p.endswith(f": match.{line}") or f"match.{line}" in p for p in from_file), from_file
        assert line in defaults["error"] and line in new_match["error"]
    # The page gets the declaration itself: labels, defaults, limits, where each is set.
    assert admin["settings"] == [s.as_dict() for s in SETTINGS]


def test_the_file_may_name_the_teams_but_not_a_seed(tmp_path):
    f = tmp_path / "settings.toml"
    f.write_text('[match]\nteams = [{ name = "Otters", players = ["Ana", "Bo"] }]\ntouch_sensors = true\nseed = 3\n')
    with pytest.raises(ConfigError) as e:
        read_settings(str(f))
    assert [str(p) for p in e.value.problems] == [
        f"{f}: match.seed: unknown setting (expected one of: {', '.join(names('file'))})"]
    f.write_text('[match]\nteams = [{ name = "Otters", players = ["Ana"] }]\ntouch_sensors = "yes"\n')
    with pytest.raises(ConfigError) as e:
        read_settings(str(f))
    assert [str(p) for p in e.value.problems] == [
        f"{f}: match.teams[0].players: team 'Otters' needs at least 2 players (a tower and a crew), "
        "or none named",
        f"{f}: match.touch_sensors: must be true or false"]
