"""The service when its store fails: a full disk, and rows a start cannot read.

The full disk is SQLite's own (see service_helpers.fill_the_disk): every commit of the
store's writer gets SQLITE_FULL ("database or disk is full"), as on a full card.
"""

import asyncio
import json
import shutil
import sqlite3

import aiohttp
import pytest

from panel.service.cockpit import RETRY_FIRST
from panel.storage.store import Store
from service_helpers import PIN, Client, ServiceThread, fill_the_disk, free_the_disk, start_play

@pytest.mark.slow  # a turn run out on the real clock, then a dozen of the pages' ticks at 0 s
def test_a_full_disk_is_503_with_the_reason_and_the_timer_backs_off(tmp_path):
    with ServiceThread(tmp_path / "panel.db") as svc:
        gm = svc.client()
        gm.login()
        match_id = gm.new_match(turn_seconds=5, time_counters=0)["match_id"]
        assert gm.act("start_turn")[0] == 200
        acked = []
        for value in (True, False, True):
            assert gm.post("/api/sim/input", {"control": "grid.r1c1", "value": value})[0] == 200
            acked.append(value)

        svc.on_loop(lambda: fill_the_disk(svc.store, match_id, svc.cockpit.now()))
        status, body = gm.post("/api/sim/input", {"control": "grid.r1c1", "value": False})
        assert status == 503 and "the disk is full" in body["error"] and "nothing was changed" in body["error"]
        assert gm.state()["store_error"] == "the disk is full"
        assert any("cannot save: the disk is full" in w for w in gm.get("/api/admin/status")[1]["warnings"])
        assert gm.act("pause")[0] == 503  # a game master's action is refused the same way

        attempts = []
        real_append = svc.store.append

        def append(*args, **kw):
            attempts.append(args[2])
            return real_append(*args, **kw)

        async def watch():
            """The turn's time runs out with the disk full: the pages keep ticking at 0 s, and
            the owner task tries the clock advance a few times, backing off, not thousands."""
            async with aiohttp.ClientSession() as session:
                async with session.ws_connect(f"{svc.base}/ws?view=board") as ws:
                    ticks_at_zero = 0
                    async for msg in ws:
                        data = json.loads(msg.data)
                        if data["type"] != "state" or data["state"]["time_left"] != 0:
                            continue
                        assert data["state"]["phase"] == "in_turn" and data["state"]["store_error"]
                        ticks_at_zero += 1
                        if ticks_at_zero == 1:
                            svc.on_loop(lambda: setattr(svc.store, "append", append))
                        if ticks_at_zero == 13:
                            break
                    waits = svc.on_loop(lambda: svc.cockpit._retry_wait)
                    advances = attempts.count("advance")
                    # Freed: the next try logs the advance, the turn ends, the error clears.
                    svc.on_loop(lambda: free_the_disk(svc.store))
                    async for msg in ws:
                        data = json.loads(msg.data)
                        if data["type"] == "state" and data["state"]["phase"] != "in_turn":
                            return advances, waits, data["state"]

        advances, waits, after = asyncio.run(watch())
        assert 1 <= advances <= 12  # 12 ticks of 0.25 s: tries at 0.5 s, then 1 s, 2 s ... apart
        assert waits > RETRY_FIRST  # the wait grew
        assert after["store_error"] is None and after["phase"] == "between_turns"

    with Store(tmp_path / "panel.db") as store:  # nothing acknowledged is lost
        logged = [e.data["value"] for e in store.entries(match_id) if e.kind == "input"]
        assert logged == acked
        assert [e.kind for e in store.entries(match_id)][-1] == "advance"


# ---------------------------------------------------------------- a start with bad rows

@pytest.fixture(scope="module")
def played_db(tmp_path_factory):
    """A database whose latest match is in a turn, with a few inputs logged."""
    path = tmp_path_factory.mktemp("played") / "panel.db"
    with ServiceThread(path) as svc:
        gm = svc.client()
        gm.login()
        gm.new_match()
        assert gm.act("start_turn")[0] == 200
        for value in (True, False, True):
            assert gm.post("/api/sim/input", {"control": "grid.r1c1", "value": value})[0] == 200
        gm.post("/api/admin/settings", {"turn_seconds": 40})
    return path


BAD_ROWS = {
    "settings": ("UPDATE matches SET settings_json = '{\"mode\": ' WHERE id = 1", "its settings are not valid JSON"),
    "positions": ("UPDATE matches SET positions_json = '[1, 2' WHERE id = 1", "its positions are not valid JSON"),
    "input": ("UPDATE inputs SET json = '{\"control\": \"grid' WHERE match_id = 1 AND seq = 3",
              "log entry 3: not valid JSON"),
    "engine": ("UPDATE inputs SET json = '{\"value\": true}' WHERE match_id = 1 AND seq = 3",
               "its log cannot be replayed"),
    "defaults": ("UPDATE settings SET value = '{\"turn_seconds\": ' WHERE key = 'match_defaults'",
                 "the defaults for new matches saved on /admin cannot be used"),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_a_start_survives_a_row_it_cannot_read(tmp_path, played_db, case):
    db = tmp_path / "panel.db"
    shutil.copy(played_db, db)
    sql, why = BAD_ROWS[case]
    con = sqlite3.connect(db)
    con.execute(sql)
    con.commit()
    con.close()
    settings = tmp_path / "settings.toml"
    settings.write_text(f'[service]\npin = "{PIN}"\n')
    log = open(tmp_path / "service.log", "w")
    p, base = start_play(db, "--settings", str(settings), stderr=log)
    try:
        assert base, f"the service did not start (exit {p.returncode})"
        gm = Client(base)
        gm.login()
        warnings = gm.get("/api/admin/status")[1]["warnings"]
        assert len(warnings) == 1 and why in warnings[0] and "\n" not in warnings[0], warnings
        state = gm.state()
        if case == "defaults":  # the match is fine: restored (paused); the file's defaults apply
            assert state["match_id"] == 1 and state["phase"] == "paused"
        else:
            assert "set aside" in warnings[0] and state["match_id"] is None and state["phase"] == "idle"
            gm.new_match()  # and the cockpit plays on
            assert gm.act("start_turn")[0] == 200
    finally:
        p.terminate()
        p.wait(30)
        p.stdout.close()
        log.close()
    assert "Traceback" not in (tmp_path / "service.log").read_text()
    if case != "defaults":
        with Store(db) as store:
            assert store.match(1).status == "set_aside" and why in store.set_aside_reason(1)
