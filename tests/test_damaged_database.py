"""A cockpit whose database is unusable (truncated, random bytes, a newer schema) keeps the
file aside under a new name, says so in the log and on /admin, and plays on a new one; on a
full disk (a real one: a 4 MB tmpfs in a mount namespace of its own, `unshare -rm`) it
plays without saving and says so on /admin and the board."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

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
        store, unsaved = open_store(db)
        assert unsaved is None  # a new database on the same disk: it saves
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


FULL_DISK = r"""
import asyncio, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[2])
from panel.run import open_store, start_warnings
from panel.service.cockpit import Cockpit
from panel.storage.store import Store
from play_helpers import five_card_turn, new_match

disk = Path(sys.argv[1])
db = disk / "panel.db"

async def play(store, **kw):
    cockpit = Cockpit(store, sim=True, **kw)
    await cockpit.start()
    await new_match(cockpit)
    await five_card_turn(cockpit)
    await cockpit.action("end", {})
    out = {"state": cockpit.presentation.state(), "problems": cockpit.presentation.problems(),
           "scores": dict(cockpit.match.scores)}
    await cockpit.close()
    return out

with Store(db) as store:  # a played database
    asyncio.run(play(store))
try:  # the disk fills up
    with open(disk / "fill", "wb") as f:
        while True:
            f.write(b"x" * 65536)
except OSError:
    pass
store, unsaved = open_store(db)
warnings, _ = start_warnings(store, type("R", (), {"match_defaults": {}})())
out = asyncio.run(play(store, warnings=warnings, unsaved=unsaved))
out["matches"] = len(store.matches())
out["store"] = str(store.path)
store.close()
print(json.dumps(out))
"""


def test_on_a_full_disk_the_cockpit_plays_without_saving_and_says_so(tmp_path):
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "full_disk.py"
    script.write_text(FULL_DISK)
    tests = str(Path(__file__).parent)
    inside = 'mount -t tmpfs -o size=4m tmpfs "$1" && exec "$2" "$3" "$1" "$4"'
    cmd = ["unshare", "-rm", "sh", "-c", inside, "full-disk", str(disk), sys.executable, str(script), tests]
    if not shutil.which("unshare") or subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode:
        pytest.skip("no user and mount namespaces here (unshare -rm)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[1]), tests])}
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["scores"] and max(out["scores"].values()) >= 5  # it played: a five-card turn scored
    assert out["matches"] == 2  # the played one, copied, and the new one
    assert not out["store"].startswith(str(disk))  # on a copy in memory
    assert "the disk is full" in out["state"]["unsaved"] and "without saving" in out["state"]["unsaved"]  # the board
    assert any("without saving" in p for p in out["problems"])  # /admin
