"""PIN, sessions, rate limit, Host allow-list and same-origin checks."""

import asyncio

import pytest

from panel.server.security import (LOGIN_BUDGET, LOGIN_BUDGET_WINDOW, LoginRefused, PinError, Security, check_pin_format, hash_pin, split_host,
                                    verify_pin)
from panel.storage.store import Store


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


@pytest.fixture
def security(tmp_path):
    with Store(tmp_path / "p.db") as store:
        clock = Clock()
        sec = Security(store, allow_hosts=["cafe.example"], clock=clock, session_seconds=60)
        sec.clock = clock
        yield sec


def test_first_start_makes_a_pin_once_and_keeps_only_its_hash(security):
    pin = security.ensure_pin()
    assert pin.isdigit() and len(pin) == 6
    assert security.ensure_pin() is None
    stored = security._store.get_setting("pin_hash")
    assert pin not in stored and stored.startswith("pbkdf2_sha256$")
    assert security.check_pin(pin)
    assert not security.check_pin(str((int(pin) + 1) % 10**6).zfill(6))


def test_pin_format_and_hash():
    assert check_pin_format(1234) == "1234"
    for bad in ("12", "12a4", "", "1" * 13, None, True, "١٢٣٤"):
        with pytest.raises(PinError):
            check_pin_format(bad)
    h = hash_pin("4321")
    assert verify_pin("4321", h) and not verify_pin("4322", h)
    assert not verify_pin("4321", "garbage") and not verify_pin("4321", "md5$1$00$00")


def login(security, pin, client):
    return asyncio.run(security.login(pin, client))


def test_login_gives_session_and_csrf_and_a_new_pin_logs_out(security):
    security.set_pin("2468")
    s = login(security, "2468", "10.0.0.5")
    assert security.session(s.token) is s
    assert security.check_csrf(s, s.csrf) and not security.check_csrf(s, "x") and not security.check_csrf(s, None)
    security.set_pin("1357")
    assert security.session(s.token) is None


def test_session_expires(security):
    security.set_pin("2468")
    s = login(security, "2468", "a")
    security.clock.t += 61
    assert security.session(s.token) is None
    assert security.session(None) is None and security.session("nope") is None


def test_five_wrong_pins_in_a_minute_then_429_per_client(security):
    security.set_pin("2468")
    for _ in range(5):
        with pytest.raises(LoginRefused) as e:
            login(security, "0000", "a")
        assert e.value.status == 403
    with pytest.raises(LoginRefused) as e:
        login(security, "2468", "a")  # even the right PIN waits
    assert e.value.status == 429
    assert login(security, "2468", "b")  # another client is not locked out
    security.clock.t += 61
    assert login(security, "2468", "a")


def test_wrong_pins_from_every_address_share_one_budget(security):
    """Rotating addresses buys nothing: 30 wrong PINs in ten minutes close the logins,
    for every address, until the oldest is ten minutes old."""
    security.set_pin("2468")
    for i in range(LOGIN_BUDGET):
        with pytest.raises(LoginRefused) as e:
            login(security, "0000", f"10.0.{i // 200}.{i % 200}")
        assert e.value.status == 403
        security.clock.t += 1
    with pytest.raises(LoginRefused) as e:
        login(security, "2468", "10.9.9.9")  # a fresh address, even with the right PIN
    assert e.value.status == 429 and "this cockpit" in str(e.value)
    security.clock.t += LOGIN_BUDGET_WINDOW - LOGIN_BUDGET + 1  # the first failure is now too old
    assert login(security, "2468", "10.9.9.9")
    assert security._failures == {}  # the addresses of old failures are forgotten


def test_host_allow_list(security):
    for ok in ("localhost", "localhost:8080", "127.0.0.1:80", "[::1]:8080", "127.3.4.5", "CAFE.example:8080"):
        assert security.host_allowed(ok), ok
    for bad in ("evil.example", "evil.example:8080", "", None, "cafe.example.evil.com"):
        assert not security.host_allowed(bad), bad
    assert split_host("Pi.local.:8080") == "pi.local"


def test_same_origin():
    same = Security.same_origin
    assert same(None, None, "pi.local:8080")  # curl, scripts: cookie and CSRF token still needed
    assert same("http://pi.local:8080", None, "pi.local:8080")
    assert same(None, "http://pi.local:8080/admin", "pi.local:8080")
    assert not same("http://evil.example", None, "pi.local:8080")
    assert not same("null", None, "pi.local:8080")
    assert not same(None, "http://evil.example/x", "pi.local:8080")
    assert not same("http://pi.local:8080", None, None)


# ------------------------------------------------ the game master can always sign in (issue 24, item 2)

async def _try(security, pin, client, **kw):
    try:
        await security.login(pin, client, **kw)
        return 200
    except LoginRefused as e:
        return e.status


def test_five_wrong_pins_a_minute_from_one_address_never_keep_the_game_master_out(security):
    """The issue's attack: 5 wrong PINs a minute from one phone, for four hours. Before, it
    never tripped its own limit and kept the cockpit-wide budget spent: the right PIN from
    another address got 429 from t = 314 s on."""
    security.set_pin("2468")

    async def run():
        checked, answers = 0, []
        for minute in range(240):
            for i in range(5):
                security.clock.t = 1000.0 + minute * 60 + i * 12
                checked += await _try(security, "0000", "10.0.0.66") == 403
            answers.append(await _try(security, "2468", "10.0.0.7"))
        return checked, answers
    checked, answers = asyncio.run(run())
    assert answers == [200] * 240
    assert checked <= 5 + 10  # its free tries, then one guess per lock, each twice as long (at most an hour)


@pytest.mark.parametrize("every", [0.5, 12.0, 61.0, 300.0, 1900.0])
def test_one_address_at_any_rate_cannot_keep_the_game_master_out(security, every):
    security.set_pin("2468")

    async def run():
        refused = []
        for i in range(int(6 * 3600 / every)):
            security.clock.t = 1000.0 + i * every
            await _try(security, "0000", "10.0.0.66")
            if i % max(1, int(600 / every)) == 0:  # the game master, every ten minutes, from her phone
                refused.append(await _try(security, "2468", "10.0.0.7"))
        return refused
    assert set(asyncio.run(run())) == {200}


def test_a_burst_from_one_address_is_cut_at_its_free_tries(security):
    security.set_pin("2468")

    async def run():
        return await asyncio.gather(*(_try(security, "0000", "10.0.0.66") for _ in range(40)))
    statuses = asyncio.run(run())
    assert statuses.count(403) == 5 and statuses.count(429) == 35


def test_the_lock_doubles_with_each_wrong_pin_and_the_right_one_ends_it(security):
    security.set_pin("2468")
    for _ in range(5):
        assert login_status(security, "0000", "a") == 403
    for lock in (60, 120, 240):
        assert login_status(security, "2468", "a") == 429  # locked: even the right PIN waits
        security.clock.t += lock - 1
        assert login_status(security, "2468", "a") == 429
        security.clock.t += 2
        assert login_status(security, "0000", "a") == 403  # the next guess doubles the lock
    security.clock.t += 481
    assert login_status(security, "2468", "a") == 200
    assert login_status(security, "0000", "a") == 403  # counted from none again


def login_status(security, pin, client, **kw):
    return asyncio.run(_try(security, pin, client, **kw))


def test_own_screen_and_paired_devices_get_in_when_the_network_spent_the_ceiling(security):
    security.set_pin("2468")
    paired = security.pair_device()
    for i in range(LOGIN_BUDGET):
        assert login_status(security, "0000", f"10.0.{i // 200}.{i % 200}") == 403
    assert login_status(security, "2468", "10.9.9.9") == 429  # a new device on the network waits
    assert login_status(security, "2468", "10.9.9.9", device="forged") == 429
    assert login_status(security, "2468", "10.9.9.9", device=paired) == 200  # the game master's phone
    for own in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):  # the cockpit's own screen
        assert login_status(security, "2468", own) == 200
    # Each of them keeps a lock of its own: a guest cannot spend it, nor can it be spent for free.
    for _ in range(5):
        assert login_status(security, "0000", "127.0.0.1") == 403
    assert login_status(security, "2468", "127.0.0.1") == 429
    assert login_status(security, "2468", "::1") == 200


def test_sessions_and_counts_of_wrong_pins_survive_a_restart(tmp_path):
    clock = Clock()
    with Store(tmp_path / "p.db") as store:
        sec = Security(store, clock=clock)
        sec.set_pin("2468")
        s = asyncio.run(sec.login("2468", "10.0.0.7"))
        for _ in range(5):
            assert login_status(sec, "0000", "10.0.0.66") == 403
    with Store(tmp_path / "p.db") as store:
        again = Security(store, clock=clock)
        kept = again.session(s.token)
        assert kept is not None and again.check_csrf(kept, s.csrf) and not again.check_csrf(kept, "x")
        assert login_status(again, "2468", "10.0.0.66") == 429  # still locked
        clock.t += 61
        assert login_status(again, "2468", "10.0.0.66") == 200
        assert "2468" not in str(store.settings()) and s.token not in str(store.settings())


def test_the_game_master_signs_in_on_a_full_disk(tmp_path):
    """A full disk keeps no new session or pairing, and the game master signs in all the same
    (the sessions hold in memory until a restart; the browser is paired at a later sign-in)."""
    from service_helpers import NETWORK, ServiceThread, fill_the_disk, free_the_disk

    with ServiceThread(tmp_path / "panel.db") as svc:
        gm = svc.client()
        gm.login()
        match_id = gm.new_match()["match_id"]
        svc.on_loop(lambda: fill_the_disk(svc.store, match_id, svc.cockpit.now()))
        try:
            phone = svc.client(source=NETWORK)
            phone.login()  # asserts 200
            status, body = phone.get("/api/admin/status")
            assert status == 200, body
            assert not any(c.name == "pp_device" for c in phone.jar)  # not paired: nothing could keep it
        finally:
            svc.on_loop(lambda: free_the_disk(svc.store))
