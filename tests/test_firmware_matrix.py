"""The matrix scanner under CPython on the fake machine: debounce, rollover, ghosts.
Each scan here is 1 ms of board time (the time the board's clock gives each scan)."""

import pytest

from panel.firmware.matrix import Matrix, event
from panel.link.fake_machine import FakeClock, FakeMachine

ROWS = [2, 3, 4, 5, 6, 7, 8, 9]
COLS = list(range(10, 22))          # consecutive: the one-register fast path
COLS_SPLIT = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22]  # not: one Pin per key


def make(diodes=True, fast=True, release_ms=5, wired_diodes=None):
    m = FakeMachine(diodes=diodes if wired_diodes is None else wired_diodes)
    mx = Matrix(m, ROWS, COLS if fast else COLS_SPLIT, release_ms=release_ms, settle_us=0, diodes=diodes)
    mx.now = 0
    return m, mx, (COLS if fast else COLS_SPLIT)


def scan(mx, n=1, ms=1):
    """n scans, `ms` apart on the board's clock; the events as (down, row, col)."""
    out = []
    for _ in range(n):
        mx.now += ms
        k = mx.scan(mx.now)
        out += [event(mx.ev[i]) for i in range(k)]
    return out


@pytest.mark.parametrize("fast", [True, False])
def test_a_press_reports_on_the_first_closed_reading_and_a_release_after_5_ms(fast):
    m, mx, cols = make(fast=fast)
    assert mx._shift == (10 if fast else -1)
    m.press(ROWS[2], cols[11])
    assert scan(mx) == [(True, 2, 11)]       # eager: the very first scan
    assert scan(mx, 50) == []
    m.press(ROWS[2], cols[11], False)
    assert scan(mx, 4) == []                  # 4 ms open: still down
    assert scan(mx) == [(False, 2, 11)]       # the 5th open reading releases it


def test_chatter_on_press_and_release_gives_one_press_and_one_release():
    m, mx, cols = make()
    events = []
    # press bounce: closed/open alternating for 3 ms, then closed
    for level in [1, 0, 1, 0, 1, 1, 1, 1]:
        m.press(ROWS[0], cols[0], bool(level))
        events += scan(mx)
    # release bounce: open readings shorter than 5 ms interrupted by closures
    for level in [0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0]:
        m.press(ROWS[0], cols[0], bool(level))
        events += scan(mx)
    events += scan(mx, 10)
    assert events == [(True, 0, 0), (False, 0, 0)]  # the bounces made no extra press


def test_a_closure_during_the_release_restarts_its_wait():
    m, mx, cols = make()
    m.press(ROWS[1], cols[1])
    scan(mx)
    m.press(ROWS[1], cols[1], False)
    scan(mx, 3)                                # 3 ms open
    m.press(ROWS[1], cols[1])
    scan(mx, 1)                                # a bounce: closed again
    m.press(ROWS[1], cols[1], False)
    assert scan(mx, 4) == []                   # 4 ms open since that closure
    assert scan(mx, 1) == [(False, 1, 1)]      # 5 ms


def test_n_key_rollover_with_diodes_every_key_of_a_rectangle_and_no_ghost():
    m, mx, cols = make()
    for r, c in [(0, 0), (0, 5), (3, 0)]:     # three corners of a rectangle
        m.press(ROWS[r], cols[c])
    assert sorted(scan(mx)) == [(True, 0, 0), (True, 0, 5), (True, 3, 0)]
    m.press(ROWS[3], cols[5])                  # the real fourth corner
    assert scan(mx) == [(True, 3, 5)]
    every = [(r, c) for r in range(8) for c in range(12)]
    for r, c in every:
        m.press(ROWS[r], cols[c])
    scan(mx)
    assert sorted(mx.down()) == every          # all 96 at once


def test_without_diodes_a_rectangle_makes_a_ghost_that_the_scanner_would_report():
    # Why the docs insist on diodes: the same three keys on a matrix without them,
    # scanned as if it had them, report a fourth key nobody pressed.
    m, mx, cols = make(diodes=True, wired_diodes=False)
    for r, c in [(0, 0), (0, 5), (3, 0)]:
        m.press(ROWS[r], cols[c])
    assert (True, 3, 5) in scan(mx)


def test_without_diodes_and_configured_so_ambiguous_keys_are_held_back():
    m, mx, cols = make(diodes=False)
    m.press(ROWS[0], cols[0])
    m.press(ROWS[0], cols[5])
    assert sorted(scan(mx)) == [(True, 0, 0), (True, 0, 5)]
    m.press(ROWS[3], cols[0])                  # completes three corners: (3,5) would be a ghost
    assert scan(mx, 3) == []                   # neither the real (3,0) nor the ghost is reported
    m.press(ROWS[0], cols[5], False)           # the rectangle opens: (3,0) is unambiguous now
    out = scan(mx, 6)
    assert (True, 3, 0) in out and (False, 0, 5) in out and (True, 3, 5) not in out


@pytest.mark.parametrize("ms", [1, 2, 5])
def test_the_release_takes_release_ms_on_the_boards_clock_at_any_scan_rate(ms):
    m, mx, cols = make(release_ms=10)
    m.press(ROWS[0], cols[3])
    scan(mx, 1, ms)
    m.press(ROWS[0], cols[3], False)
    n = 0
    while not scan(mx, 1, ms):
        n += 1
    assert (n + 1) * ms == 10                  # released 10 ms after the last closed reading


def test_the_settle_wait_is_taken_per_row():
    m, clock = FakeMachine(), FakeClock()
    mx = Matrix(m, ROWS, COLS, settle_us=10, sleep_us=clock.sleep_us)
    mx.scan(0)
    assert clock.us == 80
