"""The layout's [kaboom] table: which controls Penguin Kaboom uses, checked against the panel."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import tomli_w

from panel.games.kaboom.settings import COLOURS
from panel.core.errors import ConfigError
from panel.hardware.map import load_map
from panel.games.kaboom.mapping_file import load_mapping
from panel.core.layout_file import default_layout_path, load_layout

ROOT = Path(__file__).resolve().parents[1]


def test_the_default_panel_maps_every_colour_to_a_button_of_that_colour():
    mapping = load_mapping()
    layout = load_layout(side="blue", expansion=True)
    assert set(mapping.players) == set(COLOURS)
    for colour, cid in mapping.players.items():
        assert layout.buttons[cid].colour == colour  # the blue side's printed colour
    assert layout.control(mapping.recharge).colour == "green"  # the app's green button
    assert layout.control(mapping.mission).colour == "blue"  # the app's blue button
    assert mapping.cover_open in layout.tokens[mapping.cover].positions
    assert layout.tokens[mapping.cover].start != mapping.cover_open  # the protection starts on
    assert mapping.start == "cockpit.start"


def test_every_control_kaboom_uses_is_wired_with_a_light_on_the_reference_build():
    """The hardware map needs no change: each control is wired, and each button lit."""
    hmap = load_map("reference")  # the shipped map, by name
    mapping = load_mapping()
    buttons = list(mapping.players.values()) + [mapping.recharge, mapping.mission, mapping.alert_flipped,
                                                mapping.alert_deactivated, mapping.start]
    wired = set(hmap.controls)
    for cid in buttons + [mapping.cover]:
        assert cid in wired, cid
    for cid in buttons:
        assert cid in hmap.neopixel.buttons, cid


def broken(tmp_path, change) -> list[str]:
    raw = tomllib.loads(default_layout_path().read_text())
    change(raw["kaboom"])
    path = tmp_path / "layout.toml"
    path.write_text(tomli_w.dumps(raw))
    with pytest.raises(ConfigError) as e:
        load_mapping(path)
    lines = [str(p) for p in e.value.problems]
    assert all("\n" not in line and line.startswith(f"{path}: kaboom") for line in lines), lines
    return [line[len(str(path)) + 2:] for line in lines]


def test_every_problem_of_a_kaboom_table_at_once(tmp_path):
    def change(k):
        k["players"]["pink"] = "alarm.red"
        k["players"]["red"] = "alarm.nothing"
        k["recharge"] = "alarm.yellow"  # already the yellow player
        k["mission"] = "lever.big"  # a lever, not a button
        del k["alert_flipped"]
        k["cover"] = {"control": "lever.big", "open": "up"}  # where it starts
        k["colour"] = "blue"

    got = broken(tmp_path, change)
    for want in ("kaboom.colour: unknown key", "kaboom.players.pink: not a penguin colour",
                 "kaboom.players.red: 'alarm.nothing' is not a button of the layout",
                 "kaboom.recharge: alarm.yellow is already the players.yellow",
                 "kaboom.mission: 'lever.big' is not a button of the layout",
                 "kaboom.alert_flipped: missing", "kaboom.cover.open: 'up' is where lever.big starts"):
        assert any(line.startswith(want) for line in got), (want, got)


def test_a_layout_without_a_kaboom_table_says_so():
    with pytest.raises(ConfigError, match="has no \\[kaboom\\] table"):
        load_mapping(ROOT / "tests" / "data" / "tiny_layout.toml")
