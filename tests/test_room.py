"""The room (issue 23, items 3 and 6; issue 24, item 7): every page of the cockpit's own
computer is the room's screen (the board and /join show the join code, /sim takes its
presses), served on 127.0.0.1, 0.0.0.0 or "::"; a group playing again keeps its join
code and its phones, a new group gets a new one that no earlier phone holds.

Against the real service (aiohttp, the cockpit, a SQLite file) on a free port; a device of
the café's network is played by a client sending from another address than 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

import aiohttp
import pytest

from panel.server.peers import this_computer
from panel.service.join_codes import IDLE_SECONDS, JoinCodes, code_ok
from panel.storage.store import Store
from service_helpers import NETWORK, ServiceThread
from test_app import is_error

START = {"control": "cockpit.start", "value": True}
RELEASE = {"control": "cockpit.start", "value": False}


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


# ---------------------------------------------------------------------------- this computer

@pytest.mark.parametrize("address", ["127.0.0.1", "::1", "::ffff:127.0.0.1"])
def test_this_computer_is_its_own_two_addresses_however_written(address):
    assert this_computer(address)


@pytest.mark.parametrize("address", ["127.0.2.1", "192.168.1.20", "::ffff:192.168.1.20", "fe80::1%eth0",
                                     "fd00::2", "::ffff:127.0.2.1", "localhost", "", None, "garbage"])
def test_no_other_address_is_this_computer(address):
    assert not this_computer(address)


def press(client, body):
    return client.post("/api/sim/input", body)


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0", "::"])
def test_every_page_of_this_computer_shows_the_code_and_presses_the_panel(tmp_path, host):
    """Served on this computer only (the quickest game), on the network, or on "::" (where
    the Pi's own screen at 127.0.0.1 arrives as ::ffff:127.0.0.1): a page of this computer
    gets the join code with no PIN, and its presses on /sim are taken; a device of the
    network gets neither."""
    with ServiceThread(tmp_path / "panel.db", host=host) as svc:
        here = svc.client()
        join = here.get("/api/join")
        assert join[0] == 200 and join[1]["code"] == svc.on_loop(lambda: svc.cockpit.join_code())
        assert press(here, START) == (200, {"ok": True, "logged": True})  # a walk-up match set up
        assert press(here, RELEASE)[0] == 200
        elsewhere = svc.client(source=NETWORK)
        assert "room's screen" in is_error(*elsewhere.get("/api/join"), 403)
        assert "only on the computer running the cockpit" in is_error(*press(elsewhere, START), 403)


# ---------------------------------------------------------------------------- the join codes, on their own

def test_a_group_keeps_its_code_until_a_new_group_plays(tmp_path):
    clock = Clock()
    with Store(tmp_path / "panel.db") as store:
        codes = JoinCodes(store, unsaved=pytest.fail, clock=clock)
        first = codes.next
        assert codes.idle_in() is None  # a code no match used yet: nobody's to keep
        assert codes.for_match(new_group=True) == first  # phones that scanned it ahead are the new group
        assert codes.idle_in() is None  # in play: not idle
        codes.over(first, abandoned=False)
        assert codes.next == first and codes.idle_in() == IDLE_SECONDS
        clock.t += IDLE_SECONDS - 1
        assert codes.for_match(new_group=False) == first  # START again within the idle time: kept
        codes.over(first, abandoned=False)
        version = codes.version
        second = codes.for_match(new_group=True)  # the game master's new match: a new group
        assert second != first and codes.version != version
        codes.over(second, abandoned=True)  # abandoned: its code goes with it
        third = codes.next
        assert third not in (first, second) and codes.idle_in() is None
        codes.over(codes.for_match(new_group=False), abandoned=False)
        clock.t += IDLE_SECONDS
        assert codes.idle_in() == 0  # idle: the cockpit renews it then (see below)


def test_a_restart_between_matches_makes_a_new_code_and_one_during_a_match_keeps_it(tmp_path):
    with Store(tmp_path / "panel.db") as store:
        codes = JoinCodes(store, unsaved=pytest.fail)
        played = codes.for_match(new_group=False)
        codes.over(played, abandoned=False)
    with Store(tmp_path / "panel.db") as store:  # restarted with that match in play (restored)
        codes = JoinCodes(store, unsaved=pytest.fail)
        codes.restarted(played, in_play=True)
        assert codes.next == played
        codes.restarted(played, in_play=False)  # with no match in play: nobody knows how long it stood
        assert codes.next != played


@pytest.mark.parametrize("typed", ["–", "Ñ", "AB3K9Ñ", "ÅB3K9Z", "\udcff", "ß" * 3, "\x00" * 6])
def test_a_code_typed_with_any_character_is_just_not_the_code(typed):
    assert code_ok(typed, "AB3K9Z") is False


# ---------------------------------------------------------------------------- the join codes, served

async def _ws(session, svc, path):
    return await session.ws_connect(svc.base.replace("http://", "ws://") + path)


async def _until(ws, kind, timeout=10):
    """The next message of `kind`, or the socket's close (a WSMessage)."""
    while True:
        msg = await asyncio.wait_for(ws.receive(), timeout)
        if msg.type != aiohttp.WSMsgType.TEXT:
            return msg
        data = json.loads(msg.data)
        if data["type"] == kind:
            return data


def _in_thread(fn):
    return asyncio.get_running_loop().run_in_executor(None, fn)


def test_a_group_playing_again_keeps_its_phones_and_an_earlier_group_cannot_read_the_new_card(tmp_path):
    """START after a result plays with the same code: the tower's phone stays joined and gets
    the new match's card. The game master's new match, an abandon and an idle table each make
    a new code: the phones holding the old one are closed and cannot read the new card."""
    with ServiceThread(tmp_path / "panel.db") as svc:
        here, gm = svc.client(), svc.client()
        gm.login()
        code = here.get("/api/join")[1]["code"]

        async def scenario(session):
            tower = await _ws(session, svc, f"/ws?view=tower&code={code}")
            assert (await _until(tower, "card"))["card"] is None  # joined ahead
            await _in_thread(lambda: (press(here, START), press(here, RELEASE)))  # walk-up: match 1
            assert (await _until(tower, "card"))["card"] is not None
            await _in_thread(lambda: gm.act("end", when="now"))
            assert here.get("/api/join")[1]["code"] == code  # kept for the group
            await _in_thread(lambda: (press(here, START), press(here, RELEASE)))  # the same group again
            assert svc.client().state()["match_id"] == 2
            card = None
            while card is None:  # the new match's first card, on the same socket
                card = (await _until(tower, "card"))["card"]
            assert here.get(f"/api/tower?code={code}")[0] == 200

            # The game master's new match: a new group, a new code.
            await _in_thread(lambda: gm.act("end", when="now"))
            new = await _in_thread(lambda: gm.new_match()["code"])
            assert new != code
            closed = await _until(tower, "never")
            assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4403
            await _in_thread(lambda: gm.act("start_turn"))
            assert is_error(*here.get(f"/api/tower?code={code}"), 403)
            assert here.get(f"/api/tower?code={new}")[1]["card"] is not None

            # Abandoned: the code goes with the match.
            await _in_thread(lambda: gm.act("abandon"))
            after_abandon = here.get("/api/join")[1]["code"]
            assert after_abandon != new

            # An idle table: a new code once no match has been in play for IDLE_SECONDS.
            await _in_thread(lambda: (press(here, START), press(here, RELEASE)))
            assert here.get("/api/join")[1]["code"] == after_abandon  # START plays with the code shown
            phone = await _ws(session, svc, f"/ws?view=tower&code={after_abandon}")
            board = await _ws(session, svc, "/ws?view=board")
            await _in_thread(lambda: gm.act("end", when="now"))
            version = (await _until(board, "state"))["state"]["join"]
            svc.on_loop(lambda: setattr(svc.cockpit.codes, "kept_since", svc.cockpit.codes.kept_since - IDLE_SECONDS))
            svc.on_loop(lambda: svc.cockpit.queue.put_nowait((lambda: None, asyncio.get_running_loop().create_future())))
            closed = await _until(phone, "never")
            assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4403
            state = (await _until(board, "state"))["state"]
            while state["join"] == version:
                state = (await _until(board, "state"))["state"]
            idle_code = here.get("/api/join")[1]["code"]
            assert idle_code != after_abandon and after_abandon not in json.dumps(state)
            await board.close()

        async def run():
            async with aiohttp.ClientSession() as session:
                await scenario(session)
        asyncio.run(run())


def test_a_restart_between_matches_gives_the_next_group_a_new_code(tmp_path):
    db = tmp_path / "panel.db"
    with ServiceThread(db) as svc:
        here, gm = svc.client(), svc.client()
        gm.login()
        code = gm.new_match()["code"]
        gm.act("end", when="now")
        assert here.get("/api/join")[1]["code"] == code
    with ServiceThread(db) as svc:
        assert svc.client().get("/api/join")[1]["code"] != code


# ---------------------------------------------------------------------------- the game master's phone

@pytest.mark.parametrize("typed", ["%E2%80%93", "%C3%91", "AB%C3%913K", "%C3%A9"])
def test_a_tower_code_with_a_non_ascii_character_is_a_one_line_refusal(svc, gm, typed, caplog):
    gm.new_match()
    public = svc.client(source=NETWORK)
    assert "join code" in is_error(*public.get(f"/api/tower?code={typed}"), 403)

    async def tower():
        async with aiohttp.ClientSession() as session:
            ws = await _ws(session, svc, f"/ws?view=tower&code={typed}")
            return await ws.receive()
    closed = asyncio.run(tower())
    assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4403
    assert "Traceback" not in caplog.text and "internal error" not in caplog.text


def test_signed_out_is_said_by_a_flag_in_every_language(svc, gm):
    """A page decides "signed out" by the answer's flag, not by its English words: a
    session gone (a new PIN ends them all), or its token replaced."""
    gm.new_match()
    assert gm.post("/api/admin/settings", {"language": "es"})[0] == 200
    gone = svc.client()
    gone.login()
    stale_token = gone.csrf
    gone.login()  # signed in again: the page's old token is stale
    status, body = gone.post("/api/admin/action", {"action": "start_turn"}, headers={"X-CSRF-Token": stale_token})
    assert status == 403 and body["signed_out"] is True
    assert gm.post("/api/admin/settings", {"pin": "97531"})[0] == 200  # every session ends
    for status, body in (gone.post("/api/admin/action", {"action": "start_turn"}), gone.get("/api/admin/status")):
        assert status == 403 and body["signed_out"] is True and "PIN" in body["error"] and "log in" not in body["error"]
    status, body = gone.post("/api/admin/login", {"pin": "97531"}, headers={"Origin": "http://evil.example"})
    assert status == 403 and "signed_out" not in body  # a cross-site request is no sign-out

