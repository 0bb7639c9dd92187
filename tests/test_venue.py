"""The venue process against a real Mosquitto and real cockpits (Cockpit + Bridge, real
SQLite files): a match reaching the leaderboard, twenty cockpits at once with every
finished match counted once, rebuilding from retained messages and its own store, a
broker restart, bad payloads, and the admin API protected like the cockpit's."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

import aiohttp
import aiomqtt
import pytest
from aiohttp import web

from mosquitto import Mosquitto
from panel.mqtt import protocol as p
from panel.mqtt.bridge import Bridge
from panel.core.errors import Refused
from panel.service.cockpit import Cockpit
from panel.server.security import Security
from panel.storage.store import Store
from panel.venue.app import build_app
from panel.venue.store import VenueStore
from panel.venue.venue import Venue
from play_helpers import five_card_turn, mistake, new_match, snapshot
from waiting import until

PIN = "8642"


@pytest.fixture
def broker(tmp_path):
    with Mosquitto(tmp_path / "broker", cockpits=[f"c{i:02d}" for i in range(1, 21)] + ["c1", "c2"]) as b:
        yield b


@contextlib.asynccontextmanager
async def cockpits(broker: Mosquitto, tmp_path, ids: list[str]):
    """Simulated cockpits (each its own SQLite file) with their bridges, connected."""
    stack = contextlib.AsyncExitStack()
    out = []
    async with stack:
        for cid in ids:
            store = stack.enter_context(Store(tmp_path / f"{cid}.db"))
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            stack.push_async_callback(cockpit.close)
            bridge = Bridge(cockpit, broker.bridge(cid, name=f"Cockpit {cid.upper()}"), backoff=(0.05, 0.5))
            await bridge.start()
            stack.push_async_callback(bridge.close)
            out.append((cockpit, bridge))
        for _, bridge in out:
            await bridge.connected.wait()
        yield out


@contextlib.asynccontextmanager
async def venue_on(broker: Mosquitto, db, *, client_id: str = "penguin-panel-venue-test"):
    """The venue (follower + web app) on a free port; yields (venue, base URL)."""
    with VenueStore(db) as store:
        venue = Venue(store, broker.broker("venue"), client_id=client_id, backoff=(0.05, 0.5))
        security = Security(store)
        security.set_pin(PIN)
        await venue.start()
        runner = web.AppRunner(build_app(venue, security, name="Test café"), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        try:
            yield venue, f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
        finally:
            await runner.cleanup()
            await venue.close()


async def get(base: str, path: str) -> dict:
    async with aiohttp.ClientSession() as s, s.get(base + path) as r:
        assert r.status == 200, await r.text()
        return await r.json()


async def finish(cockpit, *, five: bool = False) -> int:
    """Play a short match to its end on the game master's "end"; its id. A turn is scored
    first (two mistakes end it): a match ended before any is not played (rule 25)."""
    await new_match(cockpit)
    if five:
        await five_card_turn(cockpit)
    else:
        await cockpit.action("start_turn", {})
        await mistake(cockpit)
        await mistake(cockpit)
    await cockpit.action("end", {})
    return cockpit.record.id


# ---------------------------------------------------------------------------- one match

def test_a_cockpits_match_reaches_the_venue_leaderboard(broker, tmp_path):
    async def scenario():
        async with venue_on(broker, tmp_path / "venue.db") as (venue, base), \
                cockpits(broker, tmp_path, ["c1"]) as [(cockpit, bridge)]:
            await until(lambda: "c1" in venue.cockpits)
            await new_match(cockpit)
            await five_card_turn(cockpit)
            turn = cockpit.match.history[-1]
            await cockpit.action("start_turn", {})  # Puffins' turn: as many turns each (rule 25)
            await mistake(cockpit)
            await mistake(cockpit)
            await cockpit.action("end", {})
            await until(lambda: venue.counted == 1)
            board = await get(base, "/api/venue")
            assert board["venue"] == "Test café" and board["broker"] is True
            [c1] = board["cockpits"]
            assert (c1["id"], c1["name"], c1["online"]) == ("c1", "Cockpit C1", True)
            assert c1["state"]["phase"] == "finished" and c1["state"]["winner"] == ["Gulls"]
            for period in ("day", "week", "all"):
                lb = await get(base, f"/api/leaderboard?period={period}")
                assert lb == board["leaderboard"][period]
                assert lb["matches"] == 1 and lb["cockpits"] == [{"cockpit": "c1", "name": "Cockpit C1", "matches": 1}]
                assert lb["teams"][0] == {"team": "Gulls", "played": 1, "wins": 1, "points": turn["points"]}
                assert lb["teams"][1] == {"team": "Puffins", "played": 1, "wins": 0, "points": 0}
                best = lb["best_turns"][0]
                assert (best["team"], best["points"], best["cards"]) == ("Gulls", turn["points"], 5)
                assert turn["points"] == 5 + turn["counters"]  # 5 cards + the counters held
                assert lb["fastest_five"][0]["seconds"] == pytest.approx(turn["ended"] - turn["started"], abs=0.1)
            async with aiohttp.ClientSession() as s, s.get(base + "/api/leaderboard?period=year") as r:
                assert r.status == 400 and "day, week or all" in (await r.json())["error"]

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- twenty cockpits

def test_twenty_cockpits_at_once_every_finished_match_counted_once(broker, tmp_path):
    ids = [f"c{i:02d}" for i in range(1, 21)]

    async def scenario():
        async with cockpits(broker, tmp_path, ids) as fleet:
            finished: set[tuple[str, int]] = set()
            async with venue_on(broker, tmp_path / "venue.db") as (venue, base):
                await until(lambda: len(venue.cockpits) == 20)
                done = await asyncio.gather(*(finish(c) for c, _ in fleet))
                finished |= {(b.settings.cockpit_id, m) for (_, b), m in zip(fleet, done)}
                await until(lambda: venue.counted == 20)
            # The venue away: the cockpits play on; its persistent session keeps their results.
            done = await asyncio.gather(*(finish(c) for c, _ in fleet))
            finished |= {(b.settings.cockpit_id, m) for (_, b), m in zip(fleet, done)}
            abandoned = fleet[0][0]
            await new_match(abandoned)
            await abandoned.action("abandon", {})  # an abandoned match never counts
            async with venue_on(broker, tmp_path / "venue.db") as (venue, base):
                await until(lambda: venue.counted == 20)  # the 20 it missed, not the 20 it had
                await asyncio.gather(*(finish(c) for c, _ in fleet[:10]))
                await until(lambda: venue.counted == 30)
                finished |= {(b.settings.cockpit_id, c.record.id) for c, b in fleet[:10]}
                counted = venue.store.counted()
                assert sorted(counted) == sorted(finished) and len(counted) == len(set(counted)) == 50
                assert (await get(base, "/api/leaderboard?period=all"))["matches"] == 50

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- rebuilding

def _bridges_up(fleet) -> bool:
    return all(b.connected.is_set() for _, b in fleet)


def test_results_kept_for_an_absent_venue_are_not_pushed_out_by_states_and_events(tmp_path):
    """The broker keeps a small queue for the absent venue (12 messages here; Mosquitto's
    default is 1,000): a cockpit playing three matches meanwhile sends far more states and
    events than that. The venue takes states and events at QoS 0 (the state is retained,
    an event is only worth showing live), so the queue holds what matters: all three
    results are counted when the venue is back."""
    async def scenario(broker):
        async with cockpits(broker, tmp_path, ["c1"]) as [(cockpit, bridge)]:
            async with venue_on(broker, tmp_path / "venue.db") as (venue, _base):
                await until(lambda: "c1" in venue.cockpits)
            done = [await finish(cockpit, five=True) for _ in range(3)]
            await until(lambda: bridge._sent_id == done[-1])  # every result is on the broker
            async with venue_on(broker, tmp_path / "venue.db") as (venue, _base):
                await until(lambda: venue.counted == 3)
                assert sorted(m for _c, m in venue.store.counted()) == sorted(done)

    with Mosquitto(tmp_path / "broker", cockpits=["c1"], max_queued=12) as broker:
        asyncio.run(scenario(broker))


@pytest.mark.slow  # many restarts: the venue twice, the broker stopped, started and restarted
def test_the_venue_rebuilds_from_retained_messages_then_from_its_own_store(broker, tmp_path):
    async def scenario():
        async with cockpits(broker, tmp_path, ["c1", "c2"]) as cockpits_now:
            [(c1, _), (c2, _)] = cockpits_now
            await finish(c1)
            await new_match(c2)
            await c2.action("start_turn", {})
            # A venue that has never run: the retained states and the last result are all it needs.
            async with venue_on(broker, tmp_path / "venue.db", client_id="fresh") as (venue, _):
                await until(lambda: venue.counted == 1 and {"c1", "c2"} <= set(venue.cockpits)
                                 and (venue.cockpits["c2"]["state"] or {}).get("phase") == "in_turn")
                assert venue.store.counted() == [("c1", c1.record.id)]
            broker.stop()
            # The broker down: the venue starts from its own store and says the broker is away.
            async with venue_on(broker, tmp_path / "venue.db", client_id="fresh") as (venue, base):
                board = await get(base, "/api/venue")
                assert board["broker"] is False
                assert {c["id"]: c["state"]["phase"] for c in board["cockpits"]} == {"c1": "finished", "c2": "in_turn"}
                assert board["leaderboard"]["all"]["matches"] == 1
                await mistake(c2)  # played on meanwhile: the turn scored (rule 25), then the end
                await mistake(c2)
                await c2.action("end", {})
                broker.start()
                await venue.connected.wait()
                await until(lambda: venue.counted == 1 and venue.cockpits["c2"]["state"]["phase"] == "finished")
                assert sorted(venue.store.counted()) == [("c1", c1.record.id), ("c2", c2.record.id)]
                # The broker restarts under a running venue: it comes back and counts on.
                broker.restart()
                await until(lambda: venue.connected.is_set() and _bridges_up(cockpits_now))
                await finish(c1)
                await until(lambda: venue.counted == 2)
                assert len(venue.store.counted()) == 3

    asyncio.run(scenario())


def test_a_broken_payload_is_said_once_and_changes_nothing(broker, tmp_path, caplog):
    async def scenario():
        caplog.set_level(logging.INFO, logger="penguin-panel")
        async with venue_on(broker, tmp_path / "venue.db") as (venue, _), \
                cockpits(broker, tmp_path, ["c1"]) as [(cockpit, bridge)]:
            await until(lambda: "c1" in venue.cockpits and venue.cockpits["c1"]["state"])
            before = dict(venue.cockpits["c1"]["state"])
            async with aiomqtt.Client("127.0.0.1", broker.port, username="c1", password=broker.passwords["c1"],
                                      identifier="c1-impostor-twin") as c:
                for junk in (b"{not json", b'{"v": 1, "cockpit": "c1"}', json.dumps({**before, "cockpit": "c2"}).encode()):
                    await c.publish(bridge.topic("state"), junk, qos=1)
                await c.publish(bridge.topic("result"), b'{"v": 1}', qos=1)
            await new_match(cockpit)  # then a good state again
            await until(lambda: venue.cockpits["c1"]["state"]["match"] is not None)
            said = [r.getMessage() for r in caplog.records if "ignored a message" in r.getMessage()]
            assert len(said) == 2 and all("\n" not in s for s in said)  # one per cockpit and topic
            assert "state" in said[0] and "not JSON" in said[0] and "result" in said[1]
            assert venue.counted == 0

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- the admin

def test_venue_commands_need_the_pin_and_go_through_the_cockpits_checks(broker, tmp_path):
    async def scenario():
        async with venue_on(broker, tmp_path / "venue.db") as (venue, base), \
                cockpits(broker, tmp_path, ["c1"]) as [(cockpit, _)]:
            await until(lambda: "c1" in venue.cockpits)
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as s:
                cmd = {"cockpit": "c1", "action": "start"}
                async with s.post(base + "/api/admin/command", json=cmd) as r:
                    assert r.status == 403 and "PIN" in (await r.json())["error"]
                async with s.post(base + "/api/admin/login", json={"pin": "0000"}) as r:
                    assert r.status == 403
                async with s.post(base + "/api/admin/login", json={"pin": PIN}) as r:
                    csrf = {"X-CSRF-Token": (await r.json())["csrf"]}
                async with s.post(base + "/api/admin/command", json=cmd) as r:
                    assert r.status == 403 and "CSRF" in (await r.json())["error"]
                async with s.post(base + "/api/admin/command", json=cmd,
                                  headers={**csrf, "Origin": "http://elsewhere.example"}) as r:
                    assert r.status == 403 and "cross-site" in (await r.json())["error"]
                async with s.post(base + "/api/admin/command", json=cmd, headers={**csrf, "Host": "evil.example"}) as r:
                    assert r.status == 421
                async with s.post(base + "/api/admin/command", json=cmd, headers=csrf) as r:
                    assert r.status == 200, await r.text()
                assert cockpit.active and snapshot(cockpit)["phase"] == "in_turn"
                async with s.post(base + "/api/admin/command", json=cmd, headers=csrf) as r:
                    with pytest.raises(Refused) as refused:
                        await cockpit.action("start_turn", {})
                    assert r.status == 409 and (await r.json())["error"] == str(refused.value)
                for body, status in (({"cockpit": "c9", "action": "pause"}, 404),
                                     ({"cockpit": "c1", "action": "abandon"}, 400),
                                     ({"cockpit": "c1"}, 400), ({"cockpit": "c1", "action": "end", "x": 1}, 400),
                                     ({"cockpit": "c1", "action": "end", "when": "later"}, 400),
                                     ({"cockpit": "c1", "action": "pause", "when": "now"}, 400),
                                     ({"cockpit": "c1", "action": "end", "when": 3}, 400)):
                    async with s.post(base + "/api/admin/command", json=body, headers=csrf) as r:
                        assert r.status == status, body
                async with s.get(base + "/api/admin/status") as r:
                    status = await r.json()
                    assert status["commands"] == list(p.COMMANDS) and status["cockpits"][0]["id"] == "c1"
                await mistake(cockpit)  # the turn scored (two mistakes): a match was played (rule 25)
                await mistake(cockpit)
                async with s.post(base + "/api/admin/command", json={"cockpit": "c1", "action": "end"},
                                  headers=csrf) as r:
                    assert r.status == 200
                assert cockpit.record.status == "ended"
            async with aiohttp.ClientSession() as s, s.get(base + "/api/admin/status") as r:
                assert r.status == 403

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- damaged files (issue 24)

def test_a_damaged_venue_file_is_answered_with_what_can_be_read(tmp_path, caplog):
    """A cockpit's row with bad JSON and a damaged page under the top lists: the venue
    starts, says each once in one line, and /api/venue answers 200 with the rest (no 500,
    no traceback), however often it is asked."""
    from panel.mqtt.settings import BrokerSettings
    from test_venue_store import damage, result, turn

    db = tmp_path / "venue.db"
    with VenueStore(db) as store:
        store.add_result(result("c1", 1, {"Gulls": 9, "Terns": 1}, [turn("Gulls", 9, 5, "five_cards", 20.0),
                                                                    turn("Terns", 1, 1, "time", 30.0)],
                                winner=["Gulls"]))
        store.save_cockpit("c1", "online", {"phase": "idle"}, 0.0)
        store._db.execute("UPDATE cockpits SET state_json='{\"phase\": ' WHERE id='c1'")
    damage(db, "board_tops")

    async def scenario():
        with VenueStore(db) as store:
            venue = Venue(store, BrokerSettings(host="127.0.0.1", port=1))  # no broker: the board still answers
            runner = web.AppRunner(build_app(venue, Security(store), name="Test café"), access_log=None)
            await runner.setup()
            site = web.TCPSite(runner, "127.0.0.1", 0)
            await site.start()
            base = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
            try:
                for _ in range(3):
                    board = await get(base, "/api/venue")
                lb = board["leaderboard"]["all"]
                assert lb["unreadable"] == ["turns"] and lb["best_turns"] == []
                assert lb["matches"] == 1 and lb["teams"][0]["team"] == "Gulls"
                assert [(c["id"], c["state"]) for c in board["cockpits"]] == [("c1", None)]
            finally:
                await runner.cleanup()

    with caplog.at_level("WARNING", logger="penguin-panel"):
        asyncio.run(scenario())
    said = [r for r in caplog.records if r.name == "penguin-panel"]
    assert len(said) == 2 and not any(r.exc_info for r in caplog.records), [r.getMessage() for r in said]
    assert all("\n" not in r.getMessage() for r in said)
