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
