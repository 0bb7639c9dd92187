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


# ---------------------------------------------------------------- damage a crash may leave

def _crash_copy(db, dest):
    """The files a power cut leaves: the database and its WAL, copied while the store is open."""
    import shutil

    dest.mkdir()
    shutil.copy(db, dest / db.name)
    shutil.copy(db.with_name(db.name + "-wal"), dest / (db.name + "-wal"))
    return dest / db.name


def _logged(tmp_path, n=120):
    db = tmp_path / "panel.db"
    store = Store(db)
    mid = store.create_match({"mode": "competitive"}, {}, "ABC234")
    for i in range(n):
        store.append(mid, float(i), "input", {"control": "grid.r1c1", "value": i % 2 == 0})
    return store, mid


def test_a_garbled_wal_that_drops_saved_entries_is_told(tmp_path):
    store, mid = _logged(tmp_path)
    whole = _crash_copy(store.path, tmp_path / "whole")
    garbled = _crash_copy(store.path, tmp_path / "garbled")
    torn = _crash_copy(store.path, tmp_path / "torn")
    store.close()
    wal = garbled.with_name(garbled.name + "-wal")
    data = bytearray(wal.read_bytes())
    page_size = int.from_bytes(data[8:12], "big")
    frames = (len(data) - 32) // (24 + page_size)
    middle = 32 + (frames // 2) * (24 + page_size) + 24 + 200  # inside the middle frame's page
    data[middle] ^= 0xFF
    wal.write_bytes(bytes(data))
    torn_wal = torn.with_name(torn.name + "-wal")
    torn_wal.write_bytes(torn_wal.read_bytes()[:-(page_size // 2)])  # the last write cut short

    with Store(whole, scan_wal=True) as s:
        assert s.warnings == [] and len(s.entries(mid)) == 120
    with Store(torn, scan_wal=True) as s:
        assert s.warnings == [] and len(s.entries(mid)) == 119  # the unfinished last one only
    with Store(garbled, scan_wal=True) as s:
        assert len(s.warnings) == 1 and "journal is damaged" in s.warnings[0], s.warnings
        assert len(s.entries(mid)) < 120  # what SQLite dropped, now said instead of silent


def test_quick_check_finds_a_damaged_page(tmp_path):
    store, mid = _logged(tmp_path, 400)
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything into the main file
    page_size = store._db.execute("PRAGMA page_size").fetchone()[0]
    assert store.quick_check() is None
    store.close()
    db = tmp_path / "panel.db"
    data = bytearray(db.read_bytes())
    for i in range(3 * page_size + 8, 3 * page_size + 200):  # inside a b-tree page, past its header
        data[i] = 0xAB
    db.write_bytes(bytes(data))
    with Store(db) as s:
        problem = s.quick_check()
    assert problem and "damaged" in problem and "\n" not in problem


def test_rows_that_cannot_be_read_are_named(tmp_path):
    store, mid = _logged(tmp_path, 3)
    store._db.execute("UPDATE inputs SET json='{not json' WHERE seq=2")
    with pytest.raises(StoreError, match="log entry 2: not valid JSON"):
        store.entries(mid)
    store._db.execute("UPDATE matches SET settings_json='[1' WHERE id=?", (mid,))
    record = store.latest_match()
    assert record.problem.startswith("its settings are not valid JSON") and record.settings == {}
    store.set_aside(mid, "entry 2 unreadable")
    assert store.latest_match().status == "set_aside" and store.set_aside_reason(mid) == "entry 2 unreadable"
    store.close()
