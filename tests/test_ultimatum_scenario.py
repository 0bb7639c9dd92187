"""The scripting contract with game = "ultimatum": `penguin-panel replay FILE --json` plays
the score sheet's entries, the example scenarios in scenarios/ give what they say, a refused
entry is listed with its reason, a bad file is one line per problem, and a game scored
through the service (the game master's action path), restarted, exported and debriefed
is the same game."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from panel.core.errors import ConfigError
from panel.games.scenarios import load_scenario, parse_scenario, run_scenario
from panel.games.ultimatum.engine import UltimatumGame
from panel.service.cockpit import Cockpit
from panel.service.replay import replay
from panel.storage.store import Store
from panel.tools.cli import main

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
LEA = "Lea: 41 + 4 (2 dancers) + 5 (most sheep) + 3 (seals, tied) = 53"


def replayed(path: Path, capsys) -> dict:
    assert main(["replay", str(path), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_lea_scenario_gives_the_rulebooks_breakdown(capsys):
    out = replayed(SCENARIOS / "ultimatum-lea.toml", capsys)
    assert out["game"] == "ultimatum" and out["finished"] and out["ended_by"] == "complete"
    assert out["lines"]["red"] == LEA
    assert out["winner"] == "green" and out["reason"] == "points" and out["tied"] == []
    assert out["scores"] == {"red": 41, "green": 46, "blue": 34} and out["out"] == ["blue-acrobatics"]
    assert {p["player"]: p["cards"] for p in out["players"]} == {
        "red": ["green-dance", "red-dance"], "green": ["red-music", "brown-music"], "blue": ["red-juggling"]}
    assert out["refused"] == [{"t": 8.0, "action": "performance", "colour": "brown", "form": "music",
                               "points": {"red": 7, "yellow": 1}, "reason": "points: no player has the yellow pieces"}]
    types = [e["type"] for e in out["events"]]
    assert types.count("entry_corrected") == 1 and types.count("entry_undone") == 1 and types[-1] == "game_won"


def test_the_shorter_scenario_refuses_a_fifth_player_and_asks_who_is_shorter(capsys):
    out = replayed(SCENARIOS / "ultimatum-shorter.toml", capsys)
    assert [r["reason"] for r in out["refused"]] == [
        "player: 4 players already: Penguin Ultimatum is for 2 to 4 players"]
    assert out["winner"] == "green" and out["reason"] == "shorter"
    assert out["final"]["red"]["total"] == out["final"]["green"]["total"] == 29


def test_the_text_log_says_each_refusal_at_its_moment_and_the_breakdown(capsys):
    assert main(["replay", str(SCENARIOS / "ultimatum-lea.toml")]) == 0
    text = capsys.readouterr().out
    assert "refused" in text and "no player has the yellow pieces" in text
    assert LEA in text and "winner: Max (most points)" in text


def test_an_unfinished_game_tied_on_every_count_waits_for_the_shorter_player():
    raw = {"game": "ultimatum", "match": {"players": [{"player": "red", "form": "dance"},
                                                      {"player": "green", "form": "music"}]},
           "input": [{"t": 1, "action": "end"}]}
    out = run_scenario(parse_scenario(raw, file="s.toml"))
    assert not out["finished"] and out["winner"] is None and out["tied"] == ["red", "green"]
    assert out["lines"] == {"red": "red player: 10 = 10", "green": "green player: 10 = 10"}


def test_a_wrong_entry_is_an_error_of_the_file():
    raw = {"game": "ultimatum", "match": {"players": [{"player": "red", "form": "dance"}]},
           "input": [{"t": 1, "action": "performance", "colour": "pink", "form": "dance", "points": {"red": 1}},
                     {"t": 2, "action": "penalty", "player": "red"},
                     {"t": 3, "action": "new_match"}]}
    with pytest.raises(ConfigError) as e:
        parse_scenario(raw, file="s.toml")
    said = [p.text() for p in e.value.problems]
    assert len(said) == 3 and "'pink' is not an entertainer's colour" in said[0]
    assert "either points or an entertainer card" in said[1] and "new_match" in said[2]


def test_replay_of_a_bad_file_is_one_line_per_problem(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('game = "ultimatum"\n[match]\nplayers = [{ player = "pink", form = "dance" }]\nseats = 2\n')
    r = subprocess.run([sys.executable, "-m", "panel", "replay", str(path), "--json"], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 2 and all(line.startswith(f"error: {path}: match.") for line in lines)


def test_the_debrief_command_tables_the_whole_sheet(capsys):
    assert main(["debrief", str(SCENARIOS / "ultimatum-lea.toml"), "--json"]) == 0
    tables = json.loads(capsys.readouterr().out)
    assert [r["kind"] for r in tables["entries"]] == ["add_player"] * 3 + ["performance"] * 6 + ["penalty", "end"]
    assert tables["entries"][6]["card_to"] == "blue" and tables["entries"][7]["card_to"] == "out (tied)"
    assert [(r["place"], r["player"], r["total"], r["winner"]) for r in tables["standings"]] == [
        (1, "green", 58, True), (2, "red", 53, False), (3, "blue", 39, False)]


# ---------------------------------------------------------------- through the service

GAME = {"game": "ultimatum", "players": [{"player": "red", "name": "Lea", "form": "dance"},
                                         {"player": "green", "name": "Max", "form": "music"}]}


def test_a_game_scored_through_the_game_masters_action_path(svc, gm):
    status, body = gm.get("/api/admin/status")
    assert body["games"]["ultimatum"]["available"] and body["games"]["ultimatum"]["forms"][0] == "juggling"
    status, body = gm.post("/api/admin/match", {**GAME, "players": GAME["players"] * 3})
    assert status == 400 and "\n" not in body["error"]
    assert gm.post("/api/admin/match", GAME)[0] == 200
    state = gm.state()
    assert state["game"] == "ultimatum" and state["phase"] == "setup" and state["scores"] == {"red": 10, "green": 10}
    assert state["lines_if_ended"] == {"red": "Lea: 10 = 10", "green": "Max: 10 = 10"}

    status, body = gm.act("performance", colour="red", form="dance", points={"red": 9, "yellow": 2})
    assert status == 400 and body["error"] == "points: no player has the yellow pieces"
    status, body = gm.act("performance", colour="red", form="dance", points={"red": 9, "green": 6})
    assert status == 200 and [e["type"] for e in body["events"]] == ["performance", "entertainer_awarded"]
    assert gm.act("penalty", player="green", points=3)[0] == 200
    assert gm.act("undo")[0] == 200
    assert gm.act("correct", entry=3, points={"red": 5, "green": 6})[0] == 200
    assert gm.state()["players"][0]["cards"] == ["red-dance"]
    status, body = gm.act("undo", entry=2)
    assert status == 400 and "undo takes no parameters" in body["error"]
    assert gm.act("end")[0] == 200
    state = gm.state()
    assert state["finished"] and state["status"] == "finished" and state["winner"] == "red"
    assert state["lines"]["red"] == "Lea: 15 + 2 (1 dancer) + 5 (most seals) = 22"
    assert "the game is over" in gm.act("undo")[1]["error"]

    status, body = gm.get(f"/api/admin/debrief?match={state['match_id']}")
    assert status == 200 and body["game"] == "ultimatum" and body["winner"] == "red"
    assert body["lines"]["red"].startswith("Lea: 15") and len(body["entries"]) == 4
    assert [r["player"] for r in body["tables"]["standings"]] == ["red", "green"]
    status, matches = gm.get("/api/admin/matches")
    assert matches["matches"][0]["game"] == "ultimatum" and matches["matches"][0]["teams"] == ["Lea", "Max"]


def test_a_restart_gives_the_same_sheet_as_a_replay_and_an_export_replays_it(tmp_path, capsys):
    async def scenario():
        db = tmp_path / "panel.db"
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                await cockpit.create_match(GAME)
                await cockpit.action("performance", {"colour": "green", "form": "dance", "points": {"red": 3, "green": 8}})
                await cockpit.action("penalty", {"player": "red", "card": "green-dance"})
                await cockpit.action("correct", {"entry": 4, "points": 2})  # points after all, not the card
                await cockpit.input("lever.big", "down")
                mid, before = cockpit.record.id, cockpit.match.snapshot()
            finally:
                await cockpit.close()
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                match = cockpit.match
                assert isinstance(match, UltimatumGame) and cockpit.record.id == mid
                assert match.snapshot() == before and match.snapshot()["players"][0]["cards"] == ["green-dance"]
                again, _ = replay(store.match(mid), store.entries(mid))
                assert again.snapshot() == match.snapshot()
            finally:
                await cockpit.close()
        return db, mid, before

    db, mid, before = asyncio.run(scenario())
    out = tmp_path / "game.toml"
    assert main(["matches", "export", str(mid), "--db", str(db), "--out", str(out)]) == 0
    assert main(["matches", "list", "--db", str(db)]) == 0
    assert "Lea, Max" in capsys.readouterr().out
    result = run_scenario(load_scenario(out))
    assert result["scores"] == before["scores"] and result["players"] == before["players"]
