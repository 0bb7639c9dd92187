"""A cockpit whose database is unusable (truncated, random bytes, a newer schema) keeps the
file aside under a new name, says so in the log and on /admin, and plays on a new one."""

from __future__ import annotations

import asyncio
import os
import sqlite3

import pytest

from panel.run import open_store, start_warnings
from panel.service.cockpit import Cockpit
from panel.storage.store import Store
from play_helpers import five_card_turn, new_match


def played(path) -> bytes:
    """A real cockpit database with a finished match in it, as bytes."""
    async def play():
        with Store(path) as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            await new_match(cockpit)
            await five_card_turn(cockpit)
            await cockpit.action("end", {})
            await cockpit.close()

    asyncio.run(play())
    return path.read_bytes()


def truncated(tmp_path, db):
    data = played(tmp_path / "whole.db")
    db.write_bytes(data[: len(data) // 3])


def random_bytes(tmp_path, db):
    db.write_bytes(os.urandom(64 * 1024))


def newer(tmp_path, db):
    con = sqlite3.connect(db)
    con.execute("PRAGMA user_version=99")
    con.close()


@pytest.mark.parametrize("damage", [truncated, random_bytes, newer])
def test_an_unusable_database_is_kept_aside_and_the_cockpit_plays_on_a_new_one(tmp_path, damage, capsys):
    db = tmp_path / "panel.db"
    damage(tmp_path, db)
    before = db.read_bytes()

    async def scenario():
        store = open_store(db)
        try:
            warnings, _ = start_warnings(store, type("R", (), {"match_defaults": {}})())
            cockpit = Cockpit(store, sim=True, warnings=warnings)
            await cockpit.start()
            await new_match(cockpit)
            await five_card_turn(cockpit)
            assert cockpit.match.scores  # playable: a turn scored
            await cockpit.close()
            return [str(w) for w in cockpit.warnings]
        finally:
            store.close()

    said = asyncio.run(scenario())
    kept = [f for f in tmp_path.iterdir() if f.name.startswith("panel.db.damaged-") and not f.name.endswith(("-wal", "-shm"))]
    # Kept whole, beside, under a new name (SQLite's open may mark WAL mode in its 100-byte header).
    after = kept[0].read_bytes() if len(kept) == 1 else b""
    assert len(after) == len(before) and after[100:] == before[100:]
    assert any(kept[0].name in w and "plays on a new database" in w for w in said)  # on /admin
    assert kept[0].name in capsys.readouterr().out  # and in the log
    with Store(db) as fresh:  # the new one holds the match just played
        assert len(fresh.matches()) == 1


def test_a_database_the_disk_cannot_open_is_not_moved(tmp_path):
    """Not the file's fault (a directory in the way here): the clear line and exit, file untouched."""
    from panel.core.errors import DatabaseUnusable, StoreError

    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(StoreError) as e:
        open_store(blocker / "panel.db")
    assert not isinstance(e.value, DatabaseUnusable)
    assert blocker.read_text() == ""
