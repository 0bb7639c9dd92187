"""The stored matches as history: debrief summaries made once from the log and served until
the log changes, and the retention of logs (the summaries stay), through the real store,
the `matches` command and the service's own daily run."""

import asyncio
import json
import sqlite3
from datetime import datetime, timedelta

import pytest

from panel.tools.cli import main
from panel.service.cockpit import Cockpit
from panel.service.history import NotStored, Retention, debrief_json, prune
from panel.run import prune_logs
from panel.storage.store import Store
from teams import TEAMS



def play(db, matches=3, *, last_active=False):
    """Matches played through the real cockpit: a turn with two mistakes each, then ended."""

    async def run():
        ids = []
        with Store(db) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                for i in range(matches):
                    ids.append((await cockpit.create_match({"teams": TEAMS, "seed": i}))["match_id"])
                    await cockpit.action("start_turn", {})
                    card = cockpit.match.snapshot()["card"]
                    wrong = [b for b in ("alarm.red", "alarm.yellow", "grid.r1c1", "radio.1")
                             if b not in card.get("press", []) and b.split(".")[0] != card.get("section")][:2]
                    for b in wrong:
                        await cockpit.input(b, True)
                        await cockpit.input(b, False)
                    if not (last_active and i == matches - 1):
                        await cockpit.action("end", {})
            finally:
                await cockpit.close()
        return ids

    return asyncio.run(run())


def age(db, match_id, days):
    """Make a match look `days` old (as if played then)."""
    created = (datetime.now().astimezone() - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S%z")
    con = sqlite3.connect(db)
    con.execute("UPDATE matches SET created=? WHERE id=?", (created, match_id))
    con.commit()
    con.close()


def log_rows(db, match_id):
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT COUNT(*) FROM inputs WHERE match_id=?", (match_id,)).fetchone()[0]
    finally:
        con.close()


def test_the_debrief_is_made_from_the_log_once_and_again_only_when_it_changes(tmp_path, monkeypatch):
    db = tmp_path / "panel.db"
    (mid,) = play(db, 1, last_active=True)
    with Store(db) as store:
        reads = []
        entries = store.entries
        monkeypatch.setattr(store, "entries", lambda m: reads.append(m) or entries(m))
        first = debrief_json(store, mid)
        assert reads == [mid]
        body = json.loads(first)
        assert body["match_id"] == mid and body["status"] == "active"
        assert [t["mistakes"] for t in body["tables"]["turns"]] == [2]
        store.sync()
        assert debrief_json(store, None) == first and reads == [mid]  # the summary, the log not read
        store.append(mid, 200.0, "action", {"name": "end", "params": {}})  # the log grew
        store.set_status(mid, "ended")
        again = json.loads(debrief_json(store, mid))
        assert reads == [mid, mid] and again["status"] == "ended" and again["finished"] is True
        with pytest.raises(NotStored, match="no match 99"):
            debrief_json(store, 99)


def test_prune_removes_old_logs_keeps_their_debriefs_and_never_the_match_in_play(tmp_path):
    db = tmp_path / "panel.db"
    old, recent, playing = play(db, 3, last_active=True)
    for mid in (old, playing):
        age(db, mid, 100)
    with Store(db) as store:
        before = {mid: json.loads(debrief_json(store, mid)) for mid in (old, recent)}
        store.sync()
        report = prune(store, Retention(days=90))
        assert report.removed == [old] and report.kept == []
        assert store.match(old).pruned is not None and store.match(recent).pruned is None
        assert store.entries(old) == [] and log_rows(db, old) == 0
        assert log_rows(db, recent) > 0 and log_rows(db, playing) > 0  # the match in play keeps its log
        assert json.loads(debrief_json(store, old)) == before[old]  # served from the kept summary
        # By count: only the newest match keeps its log (and the one being played).
        report = prune(store, Retention(days=None, matches=1))
        assert report.removed == [recent]
        assert json.loads(debrief_json(store, recent)) == before[recent]
        assert prune(store, Retention(days=1, matches=1)).removed == []  # nothing left to remove


def test_a_summary_is_made_before_its_log_goes(tmp_path):
    """A match whose debrief was never opened still has one once its log is removed."""
    db = tmp_path / "panel.db"
    (mid,) = play(db, 1)
    age(db, mid, 400)
    with Store(db) as store:
        assert store.summary(mid) is None
        assert prune(store, Retention()).removed == [mid]
        assert json.loads(debrief_json(store, mid))["tables"]["turns"][0]["mistakes"] == 2


def test_the_prune_command_the_listing_and_the_export_say_what_happened(tmp_path, capsys):
    db = tmp_path / "panel.db"
    first, second = play(db, 2)
    age(db, first, 10)
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[service]\ndb = "{db}"\nkeep_logs_days = 7\n')
    assert main(["matches", "prune", "--settings", str(settings)]) == 0
    out = capsys.readouterr().out
    assert "removed the log of 1 match (its debrief is kept); keeping logs of the last 7 days" in out
    assert main(["matches", "list", "--db", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == str(second) and "log removed" not in lines[0]  # newest first
    assert lines[1].split()[0] == str(first) and "(log removed, debrief kept)" in lines[1]
    assert main(["matches", "export", str(first), "--db", str(db)]) == 2
    assert "log was removed on" in capsys.readouterr().err
    # The options over the settings file; a wrong value is one line.
    assert main(["matches", "prune", "--settings", str(settings), "--keep-days", "0", "--keep-matches", "0"]) == 0
    assert "removed the logs of 0 matches (their debriefs are kept); keeping every log" in capsys.readouterr().out
    assert main(["matches", "prune", "--db", str(db), "--keep-days", "-3"]) == 2
    assert "--keep-days: must be 0 (no limit) or more" in capsys.readouterr().err
    settings.write_text('[service]\nkeep_logs_days = "a month"\n')
    assert main(["matches", "prune", "--db", str(db), "--settings", str(settings)]) == 2
    assert "service.keep_logs_days: must be a whole number of days" in capsys.readouterr().err


def test_the_services_daily_run_prunes_in_a_process_of_its_own(tmp_path, caplog):
    db = tmp_path / "panel.db"
    first, second = play(db, 2)
    age(db, first, 31)
    caplog.set_level("INFO", logger="penguin-panel")
    assert asyncio.run(prune_logs(db, Retention(days=30))) == 0
    assert log_rows(db, first) == 0 and log_rows(db, second) > 0
    assert "matches prune: removed the log of 1 match" in caplog.text
