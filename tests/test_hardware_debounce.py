"""The debouncer alone: pure, timestamps in, changes out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from panel.hardware.debounce import Debouncer


def feed(d: Debouncer, edges: list[tuple[bool, float]], end: float) -> list[tuple[bool, float]]:
    out = []
    for level, t in edges:
        out += d.edge(level, t)
    out += d.poll(end)
    return out


def test_press_is_reported_at_its_first_edge():
    d = Debouncer()
    assert d.edge(True, 1.0) == [(True, 1.0)]
    assert d.state is True


def test_release_waits_for_the_window_and_carries_its_edge_time():
    d = Debouncer(window=0.012)
    d.edge(True, 1.0)
    assert d.edge(False, 1.2) == []
    assert d.deadline == 1.2 + 0.012
    assert d.poll(1.211) == []
    assert d.poll(1.212) == [(False, 1.2)]
    assert d.deadline is None


def test_chatter_on_press_and_release_gives_one_press_one_release():
    d = Debouncer()
    edges = [(True, 0.0), (False, 0.001), (True, 0.003), (False, 0.006), (True, 0.010),
             (False, 0.500), (True, 0.502), (False, 0.505), (True, 0.507), (False, 0.509)]
    assert feed(d, edges, 1.0) == [(True, 0.0), (False, 0.509)]


def test_a_quick_tap_inside_the_window_is_one_press():
    d = Debouncer()
    assert feed(d, [(True, 0.0), (False, 0.004)], 1.0) == [(True, 0.0), (False, 0.004)]


def test_a_late_edge_settles_the_pending_release_first():
    # the loop was busy and never polled: the next press still sees the release before it
    d = Debouncer()
    out = feed(d, [(True, 0.0), (False, 0.015), (True, 0.030)], 0.030)
    assert out == [(True, 0.0), (False, 0.015), (True, 0.030)]


def test_repeated_levels_are_harmless():
    d = Debouncer()
    assert feed(d, [(True, 0.0), (True, 0.001), (False, 0.1), (False, 0.105)], 1.0) == [(True, 0.0), (False, 0.1)]


# Hypothesis: any chatter of up to 10 ms gives exactly one press per press, and presses
# 30 ms apart are all counted.

bursts = st.lists(st.floats(min_value=0.0, max_value=0.010), min_size=0, max_size=8).map(sorted)


def burst_edges(start: float, level: bool, offsets: list[float]) -> list[tuple[bool, float]]:
    """First edge at start, then flips at the offsets, ending at `level`."""
    offsets = offsets[: len(offsets) // 2 * 2]
    edges = [(level, start)]
    state = level
    for dt in offsets:
        state = not state
        edges.append((state, start + dt + 1e-6))
    return edges


def run(presses, period: float, release_after: float) -> list[tuple[bool, float]]:
    d = Debouncer()
    edges: list[tuple[bool, float]] = []
    for i, (down, up) in enumerate(presses):
        t0 = i * period
        edges += burst_edges(t0, True, down)
        edges += burst_edges(t0 + release_after, False, up)
    return feed(d, sorted(edges, key=lambda e: e[1]), 100.0)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(bursts, bursts), min_size=1, max_size=10), st.floats(min_value=0.011, max_value=0.3))
def test_chatter_of_up_to_10ms_gives_exactly_one_press(presses, hold):
    out = run(presses, hold + 0.030, hold)  # held `hold`, open >= 20 ms after the release burst
    assert [level for level, _ in out] == [True, False] * len(presses)
    assert [t for level, t in out if level] == [i * (hold + 0.030) for i in range(len(presses))]


short_bursts = st.lists(st.floats(min_value=0.0, max_value=0.004), max_size=4).map(sorted)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(bursts, short_bursts), min_size=2, max_size=20))
def test_presses_30ms_apart_are_all_counted(presses):
    # pressed 0-10 ms with chatter, released at 12 ms (up to 4 ms of chatter), next at 30 ms
    out = run(presses, 0.030, 0.012)
    pressed = [t for level, t in out if level]
    assert len(pressed) == len(presses)
    assert pressed == [i * 0.030 for i in range(len(presses))]  # eager: each at its first edge
