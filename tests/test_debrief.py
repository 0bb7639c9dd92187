"""The workshop debrief: tables computed from a match's events."""

from __future__ import annotations

import csv
import json

from panel.tools.cli import main
from panel.games.airlines.debrief import debrief
from panel.games.tables import markdown_table

from engine_helpers import run

SEQ = {"kind": "sequence", "section": "cross", "steps": ["up", "down", "left"]}
CARDS = [{"kind": "simple", "press": ["grid.r1c1"]}, SEQ, {"kind": "simple", "press": ["grid.r1c2"]}] * 3


def test_debrief_tables_follow_the_match():
    out = run([{"t": 0, "action": "start_turn"}, {"t": 4, "press": "grid.r1c1"},  # simple card in 4 s
               {"t": 5, "press": "alarm.red"},  # a mistake on the sequence card
               {"t": 6, "press": "cross.up"}, {"t": 7, "press": "cross.down"}, {"t": 8, "press": "cross.left"},
               {"t": 10, "press": "cross.ok"},  # sequence completed 6 s after it was drawn
               {"t": 40, "action": "start_turn"}, {"t": 41, "move": "slider.red", "to": 2}],
              cards=CARDS, end=100)
    tables = debrief(out["events"])
    ice, snow = tables["turns"]
    assert (ice["team"], ice["cards"], ice["mistakes"], ice["points"], ice["ended_by"]) == ("Ice", 2, 1, 2, "time")
    assert ice["mean_seconds_per_card"] == 5.0 and ice["seconds"] == 30.0
    assert (snow["team"], snow["cards"], snow["mistakes"]) == ("Snow", 0, 1)
    kinds = {r["kind"]: r for r in tables["card_kinds"]}
    assert kinds["simple"]["completed"] == 1 and kinds["simple"]["mean_seconds"] == 4.0
    assert kinds["sequence"]["mistakes"] == 1 and kinds["sequence"]["mean_seconds"] == 6.0
    # People read the plain name; scripts and spreadsheets get the id beside it.
    assert [(r["control"], r["control_id"]) for r in tables["controls"]] == [
        ("the red alarm", "alarm.red"), ("the red slider", "slider.red")]
    assert "| the red alarm | alarm.red | 1 |" in markdown_table(tables["controls"])


def test_a_turn_the_end_cut_short_is_a_row_of_its_own_that_scores_nothing():
    """Ended now mid-turn (rule 25): the turn's card and mistake count in every table, its
    points are none, as the result says; the scores are the sum of the turns' points."""
    out = run([{"t": 0, "action": "start_turn"}, {"t": 4, "press": "grid.r1c1"}, {"t": 40, "action": "start_turn"},
               {"t": 41, "press": "grid.r1c2"}, {"t": 42, "press": "alarm.red"}, {"t": 43, "action": "end"}],
              cards=[{"kind": "simple", "press": [f"grid.r1c{i}"]} for i in (1, 3, 2, 4)], end=100)
    tables = debrief(out["events"])
    ice, snow = tables["turns"]
    assert (snow["team"], snow["cards"], snow["mistakes"], snow["ended_by"], snow["points"]) == \
        ("Snow", 1, 1, "ended", 0)
    assert sum(k["completed"] for k in tables["card_kinds"]) == ice["cards"] + snow["cards"] == 2
    assert {t["team"]: t["points"] for t in tables["turns"]} == out["scores"] == {"Ice": 1, "Snow": 0}


def test_debrief_command_prints_tables_and_writes_csv(tmp_path, capsys):
    log = tmp_path / "log.toml"
    assert main(["demo", "--seed", "2", "--scenario-out", str(log)]) == 0
    capsys.readouterr()
    assert main(["debrief", str(log), "--csv", str(tmp_path / "csv"), "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert len(tables["turns"]) >= 2
    with (tmp_path / "csv" / "turns.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [r["team"] for r in rows] == [t["team"] for t in tables["turns"]]
    with (tmp_path / "csv" / "controls.csv").open() as f:  # the header even with no mistakes
        assert next(csv.reader(f))[:3] == ["control", "control_id", "mistakes"]
