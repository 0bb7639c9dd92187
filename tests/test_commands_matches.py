"""Exporting a stored match's log as a scenario: it replays to the service's match."""

import asyncio

from panel.tools.cli import main
from panel.games.scenarios import load_scenario, run_scenario
from panel.service.cockpit import Cockpit
from panel.storage.store import Store
from teams import TEAMS
from waiting import until



def test_export_replays_to_the_same_match_and_feeds_the_debrief(tmp_path, capsys):
    db = tmp_path / "panel.db"

    async def play():
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                await cockpit.create_match({"teams": TEAMS, "seed": 11})
                await cockpit.action("start_turn", {})
                card = cockpit.match.snapshot()["card"]
                await cockpit.input("alarm.red" if "alarm.red" not in card.get("press", []) else "alarm.green", True)
                await cockpit.input("slider.red", "3")
                # the slider settles: a mistake (it is on no card's list here), the second: the turn ends
                await until(lambda: cockpit.match.history)
                return cockpit.match.snapshot(), list(cockpit.match.history), cockpit.record.id
            finally:
                await cockpit.close()

    snap, history, match_id = asyncio.run(play())
    assert main(["matches", "list", "--db", str(db)]) == 0
    assert "Gulls, Puffins" in capsys.readouterr().out
    out = tmp_path / "log.toml"
    assert main(["matches", "export", str(match_id), "--db", str(db), "--out", str(out)]) == 0
    result = run_scenario(load_scenario(out))
    ended = [e for e in result["events"] if e["type"] == "turn_ended"]
    assert [(e["reason"], e["mistakes"]) for e in ended] == [(h["reason"], h["mistakes"]) for h in history]
    assert [e["control"] for e in result["events"] if e["type"] == "mistake"][0] in ("alarm.red", "alarm.green")
    assert result["scores"] == snap["scores"]
    assert main(["debrief", str(out)]) == 0
    assert "Controls that caused mistakes" in capsys.readouterr().out


def test_export_of_a_missing_match_or_database_is_one_line(tmp_path, capsys):
    assert main(["matches", "list", "--db", str(tmp_path / "none.db")]) == 2
    assert "no such database" in capsys.readouterr().err
    with Store(tmp_path / "p.db"):
        pass
    assert main(["matches", "export", "7", "--db", str(tmp_path / "p.db")]) == 2
    assert "no match 7" in capsys.readouterr().err


def test_a_kaboom_mission_exports_replays_and_is_debriefed(tmp_path, capsys):
    """A mission played on the cockpit (with presses Kaboom does not use, and the protection
    already off at set-up) exports to a scenario that replays to the same mission."""
    from panel.games.kaboom.mapping_file import load_mapping

    mapping = load_mapping()
    db = tmp_path / "panel.db"

    async def play():
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                await cockpit.input(mapping.cover, mapping.cover_open)  # before the set-up
                await cockpit.create_match({"mode": "kaboom", "players": ["red", {"colour": "white", "name": "Miji"}],
                                            "difficulty": "advanced", "mission": 12, "seed": 4})
                # Kaboom rule 9: the lever left down before the set-up lifts nothing; moved again, it does.
                await cockpit.input(mapping.cover, next(p for p in mapping.cover_positions if p != mapping.cover_open))
                await cockpit.input(mapping.cover, mapping.cover_open)
                await cockpit.action("start", {})
                await cockpit.input("grid.r1c1", True)  # not Kaboom's: changes nothing
                await cockpit.input(mapping.recharge, True)
                await cockpit.input(mapping.players[cockpit.match.active], True)
                await cockpit.input(mapping.mission, True)  # the protection is off: closing
                return cockpit.match.snapshot(cockpit.now()), cockpit.record.id
            finally:
                await cockpit.close()

    snap, match_id = asyncio.run(play())
    assert snap["phase"] == "closing"
    assert main(["matches", "list", "--db", str(db)]) == 0
    assert "red, Miji" in capsys.readouterr().out
    out = tmp_path / "log.toml"
    assert main(["matches", "export", str(match_id), "--db", str(db), "--out", str(out)]) == 0
    result = run_scenario(load_scenario(out))
    assert [e["type"] for e in result["events"]][-1] == "mission_confirmed"
    assert result["time_left"] == {p["colour"]: p["time_left"] for p in snap["players"]}
    assert main(["debrief", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Penguins: where the time went" in text and "Miji" in text
