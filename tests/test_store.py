"""The service's SQLite store: a real file, WAL, the log kept in order across reopenings."""

import asyncio
import sqlite3

import pytest

from panel.core.i18n import translations
from panel.core.errors import StoreError, StoreUnavailable, StoreWriteError
from panel.storage.store import Store
from waiting import until


def test_match_log_and_settings_survive_reopening(tmp_path):
    db = tmp_path / "panel.db"
    with Store(db) as store:
        mid = store.create_match({"mode": "competitive"}, {"knob.main": "1"}, "ABC234").id
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
        assert store._db.execute("PRAGMA page_size").fetchone()[0] == 1024  # one block per commit, mostly


def test_a_schema_1_database_is_brought_up_to_date_and_keeps_its_matches(tmp_path):
    """A database made before summaries and retention (schema 1, 4 KiB pages) opens: the
    new table and column are added in one transaction, nothing else changes."""
    db = tmp_path / "old.db"
    con = sqlite3.connect(db)
    con.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE matches (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL,
            settings_json TEXT NOT NULL, positions_json TEXT NOT NULL, status TEXT NOT NULL, code TEXT NOT NULL);
        CREATE TABLE inputs (match_id INTEGER NOT NULL REFERENCES matches(id), seq INTEGER NOT NULL,
            t REAL NOT NULL, kind TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (match_id, seq)) WITHOUT ROWID;
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO matches VALUES (1, '2026-01-02T10:00:00+0000', '{}', '{}', 'finished', 'ABCDEF');
        INSERT INTO matches VALUES (2, '2026-01-02T11:00:00+0000', '{}', '{}', 'abandoned', 'GHJKLM');
        DELETE FROM matches WHERE id = 2;
        INSERT INTO inputs VALUES (1, 1, 0.5, 'input', '{"control": "a", "value": true}');
        PRAGMA user_version=1;
    """)
    con.close()
    with Store(db) as store:
        assert store._db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert store._db.execute("PRAGMA page_size").fetchone()[0] == 4096  # kept
        (record,) = store.matches()
        assert (record.id, record.status, record.pruned) == (1, "finished", None)
        assert [e.data for e in store.entries(1)] == [{"control": "a", "value": True}]
        assert store.summary(1) is None
        assert store.create_match({}, {}, "NPQRST").id == 3  # id 2 was given once: never again


def _count(db, table="inputs"):
    other = sqlite3.connect(db)
    try:
        return other.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0]
    finally:
        other.close()


def test_queued_entries_are_read_back_and_committed_together(tmp_path):
    """An append returns before its commit (the press is judged at once); the store's own
    reads see it at once; another connection (a replay after a crash) once it is committed,
    and a burst of entries is one transaction (one fsync for all of them)."""
    db = tmp_path / "p.db"
    with Store(db, commit_within=3600) as store:  # nothing commits unless asked
        mid = store.create_match({}, {}, "C").id
        for i in range(50):
            store.append(mid, i * 0.1, "input", {"control": "a", "value": i % 2 == 0})
        assert [e.seq for e in store.entries(mid)] == list(range(1, 51))
        assert store.match(mid).status == "active" and store.latest_match().id == mid
        assert store.last_seq(mid) == 50
        assert _count(db) == 0 and store.pending == 51
        store.sync()
        assert _count(db) == 50 and store.pending == 0 and store.commits == 1
        store.append(mid, 9.0, "advance", {})
        assert [e.seq for e in store.entries(mid)][-2:] == [50, 51]  # committed and queued, in order
    assert _count(db) == 51  # closing commits what is queued


def test_an_awaited_flush_commits_at_once_and_an_unawaited_entry_within_the_window(tmp_path):
    db = tmp_path / "p.db"

    async def scenario():
        with Store(db, commit_within=3600) as store:
            mid = store.create_match({}, {}, "C").id
            store.append(mid, 1.0, "input", {"control": "a", "value": True})
            await store.flushed()  # what answers a person waits for this
            assert _count(db) == 1
            await store.flushed()  # nothing queued: returns at once
        with Store(db, commit_within=0.0) as store:  # commits as soon as it can
            store.append(mid, 2.0, "input", {"control": "a", "value": False})
            await until(lambda: store.pending == 0)
            assert _count(db) == 2

    asyncio.run(scenario())


def test_a_store_that_cannot_write_says_so_keeps_the_writes_and_catches_up(tmp_path):
    """A full card: whoever waits gets StoreUnavailable with the reason (an HTTP 503), the
    entries stay queued in order, a new write is refused (StoreWriteError, nothing of it
    kept), and once there is room again the queued entries are committed."""
    db = tmp_path / "p.db"

    async def scenario():
        with Store(db) as store:
            mid = store.create_match({}, {}, "C").id
            await store.flushed()
            other = sqlite3.connect(db, isolation_level=None)
            other.execute("CREATE TABLE ballast(x)")
            other.execute("INSERT INTO ballast VALUES (zeroblob(200000))")
            # The file may not grow past its size now: SQLite's own "database or disk is full".
            pages = other.execute("PRAGMA page_count").fetchone()[0]
            store._queue_write("job", lambda con: con.execute(f"PRAGMA max_page_count={pages}"))
            await store.flushed()
            for i in range(400):
                store.append(mid, i, "input", {"control": "grid.r1c1", "value": "x" * 100})
            with pytest.raises(StoreUnavailable, match="full"):
                await store.flushed()
            assert store.failure and "full" in store.failure
            with pytest.raises(StoreUnavailable):  # asked again: tried again, still full
                await store.flushed()
            assert _count(db) == 0 and store.last_seq(mid) == 400  # kept, in memory, in order
            with pytest.raises(StoreWriteError, match="the disk is full"):  # a new write: refused, not kept
                store.append(mid, 400, "input", {"control": "grid.r1c1", "value": "late"})
            # One the cockpit judged while the store still wrote (handed over after its light):
            # kept behind the others, to be committed with them.
            store.append(mid, 400, "input", {"control": "grid.r1c1", "value": "judged"}, decided=True)
            assert store.last_seq(mid) == 401
            with pytest.raises(StoreWriteError, match="the disk is full"):  # a request's try: still full
                await store.writable()
            other.execute("DELETE FROM ballast")  # room inside the file again
            other.close()
            await store.writable()  # the writer's try now commits what waits
            assert store.failure is None and _count(db) == 401 and store.last_seq(mid) == 401
            store.append(mid, 400, "input", {"control": "grid.r1c1", "value": "late"})
            await store.flushed()
            assert [e.seq for e in store.entries(mid)] == list(range(1, 403))
            assert [e.data["value"] for e in store.entries(mid)][-2:] == ["judged", "late"]

    asyncio.run(scenario())


def test_status_and_latest_match(tmp_path):
    with Store(tmp_path / "p.db") as store:
        a = store.create_match({}, {}, "A").id
        b = store.create_match({}, {}, "B").id
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


def _logged(tmp_path, n=120, *, commit_each=True):
    """A store with one match of n entries, each committed on its own (as when somebody
    waits for each: n transactions in the WAL), or all at once."""
    db = tmp_path / "panel.db"
    store = Store(db)
    mid = store.create_match({"mode": "competitive"}, {}, "ABC234").id
    for i in range(n):
        store.append(mid, float(i), "input", {"control": "grid.r1c1", "value": i % 2 == 0})
        if commit_each:
            store.sync()
    store.sync()
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
        assert len(s.warnings) == 1 and "journal is damaged" in str(s.warnings[0]), s.warnings
        said = s.warnings[0].text(translations("es"))  # in the language of whoever reads it
        assert "journal" not in said and str(wal) in said, said
        assert len(s.entries(mid)) < 120  # what SQLite dropped, now said instead of silent


def test_quick_check_finds_a_damaged_page(tmp_path):
    store, mid = _logged(tmp_path, 400, commit_each=False)
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
    assert problem and "damaged" in str(problem) and "\n" not in str(problem)
    assert "damaged" not in problem.text(translations("es"))


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


def test_an_entry_queued_without_waking_the_writer_is_read_at_once_and_committed_once_told(tmp_path):
    """The cockpit queues a press's entry with wake=False (before the engine judges it) and
    wakes the writer once the light is out: the entry is in the log at once, and the writer
    commits it when told."""
    db = tmp_path / "p.db"

    async def scenario():
        with Store(db, commit_within=0.0) as store:  # commits as soon as it is told
            mid = store.create_match({}, {}, "C").id
            store.sync()
            store.append(mid, 1.0, "input", {"control": "a", "value": True}, wake=False)
            assert [(e.seq, e.data) for e in store.entries(mid)] == [(1, {"control": "a", "value": True})]
            store.wake_writer()
            await until(lambda: store.pending == 0)
            assert _count(db) == 1
            store.wake_writer()  # nothing owed: nothing to do

    asyncio.run(scenario())
