"""The service's SQLite store: a real file, WAL, the log kept in order across reopenings."""

import sqlite3

import pytest

from panel.service.store import Store, StoreError


def test_match_log_and_settings_survive_reopening(tmp_path):
    db = tmp_path / "panel.db"
    with Store(db) as store:
        mid = store.create_match({"mode": "competitive"}, {"knob.main": "1"}, "ABC234")
        assert store.append(mid, 0.5, "action", {"name": "start_turn", "params": {}}) == 1
        assert store.append(mid, 1.25, "input", {"control": "grid.r1c1", "value": True}) == 2
        store.set_setting("pin_hash", "x")
        store.set_setting("pin_hash", "y")
    with Store(db) as store:
        record = store.latest_match()
        assert (record.id, record.status, record.code) == (mid, "active", "ABC234")
        assert record.settings == {"mode": "competitive"} and record.positions == {"knob.main": "1"}
        entries = store.entries(mid)
        assert [(e.seq, e.t, e.kind) for e in entries] == [(1, 0.5, "action"), (2, 1.25, "input")]
        assert entries[1].data == {"control": "grid.r1c1", "value": True}
        # A reopened store continues the sequence, never overwrites an entry.
        assert store.append(mid, 2.0, "advance", {}) == 3
        assert store.get_setting("pin_hash") == "y"
        assert store.get_setting("missing", "d") == "d"


def test_database_is_wal_with_full_sync(tmp_path):
    with Store(tmp_path / "p.db") as store:
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_entries_are_committed_at_once(tmp_path):
    """Another connection (a replay after a crash) sees an entry as soon as append returns."""
    db = tmp_path / "p.db"
    with Store(db) as store:
        mid = store.create_match({}, {}, "C")
        store.append(mid, 1.0, "input", {"control": "a", "value": True})
        other = sqlite3.connect(db)
        assert other.execute("SELECT COUNT(*) FROM inputs").fetchone()[0] == 1
        other.close()


def test_status_and_latest_match(tmp_path):
    with Store(tmp_path / "p.db") as store:
        a = store.create_match({}, {}, "A")
        b = store.create_match({}, {}, "B")
        store.set_status(a, "abandoned")
        assert store.latest_match().id == b
        assert [m.status for m in store.matches()] == ["abandoned", "active"]
        with pytest.raises(ValueError):
            store.set_status(b, "lost")
        with pytest.raises(ValueError):
            store.append(b, 0, "guess", {})


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path):
    bad = tmp_path / "notes.db"
    bad.write_text("these are not the tables you are looking for" * 100)
    with pytest.raises(StoreError, match="notes.db: cannot open the database"):
        Store(bad)


def test_a_newer_schema_is_refused(tmp_path):
    db = tmp_path / "p.db"
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version=99")
    con.close()
    with pytest.raises(StoreError, match="newer"):
        Store(db)


def test_close_is_idempotent(tmp_path):
    store = Store(tmp_path / "p.db")
    store.close()
    store.close()
    assert store.closed
