"""The config files' one checker (panel.core.schema): every problem of a file at once, each
with the file, the key as written and a reason said in the reader's language."""

from __future__ import annotations

import pytest

from panel.core.errors import ConfigError
from panel.core.i18n import N_, translations
from panel.core.schema import Array, Bool, Choice, Each, Int, Problems, Str, Table

TEAM = Table(fields={"name": Str(required=True), "players": Int(default=2, lo=2, hi=8, what=N_("a player count"))})
FILE = Table(fields={"side": Choice(options=("blue", "gray"), default="blue"), "expansion": Bool(default=False),
                     "teams": Array(of=TEAM), "seats": Each(of=Int(lo=0))})


def read(raw):
    problems = Problems("club.toml")
    return FILE.read_top(raw, problems), problems


def test_a_good_file_reads_as_plain_values_with_its_defaults():
    values, problems = read({"teams": [{"name": "Ice"}], "seats": {"a": 1}})
    assert not problems
    assert values == {"side": "blue", "expansion": False, "teams": [{"name": "Ice", "players": 2}],
                      "seats": {"a": 1}}


def test_every_problem_is_reported_at_once_with_file_key_and_reason():
    values, problems = read({"side": "green", "expansion": "yes", "teams": [{"players": 9}, "Fire"],
                             "seats": {"a": -1, "b": True}, "colour": 1})
    assert [str(p) for p in problems.found] == [
        "club.toml: colour: unknown key (expected one of: side, expansion, teams, seats)",
        "club.toml: side: 'green' is not one of: blue, gray",
        "club.toml: expansion: must be true or false",
        "club.toml: teams[0]: missing 'name'",
        "club.toml: teams[0].players: 9 is out of range (a player count)",
        "club.toml: teams[1]: must be a table, not str",
        "club.toml: seats.a: -1 is out of range (a whole number)",
        "club.toml: seats.b: must be a whole number, not True",
    ]
    # A wrong value reads as its default, so the checks that need several values still run.
    assert values["side"] == "blue" and values["teams"] == [{"name": None, "players": 2}, None]
    with pytest.raises(ConfigError) as e:
        problems.raise_any()
    assert len(e.value.problems) == 8


def test_unknown_keys_list_the_expected_ones_in_every_table():
    _, problems = read({"teams": [{"name": "Ice", "captain": "Ana"}]})
    assert [str(p) for p in problems.found] == [
        "club.toml: teams[0].captain: unknown key (expected one of: name, players)"]


def test_the_reason_is_said_in_the_readers_language():
    _, problems = read({"expansion": 3, "teams": [{"name": "Ice", "players": 1}]})
    es = translations("es")
    said = [p.text(es) for p in problems.found]
    assert said[0] == "club.toml: expansion: " + es.gettext("must be true or false")
    assert said[0] != str(problems.found[0])
    assert "club.toml: teams[0].players: " in said[1] and es.gettext("a player count") in said[1]
