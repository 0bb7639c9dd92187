"""Clock handling shared by the games' engines: moments rounded to the microsecond, and a
countdown that runs or stands still. Time is always passed in; nothing here reads a clock.
"""

from __future__ import annotations

# A timer woken at its deadline may read the clock a hair before it (float rounding of
# deadline - now, the clock's resolution): within this it is due, or a loop waiting for it
# would spin until the clock passes it.
SLACK = 1e-6


def at(t: float) -> float:
    """A computed moment, rounded to the microsecond (rule 26; Kaboom rule 14): a token moved at 30.1 s that settles
    300 ms later settles at exactly 30.4 s, the moment a timer started at 0.4 s runs out,
    not a float's width after it (30.400000000000002): ties are decided by the rules, not
    by rounding error."""
    return round(t, 6)


class Countdown:
    """Seconds left on one clock. Stopped, it keeps what it had; running, it drains from
    the moment it was started. `deadline` is when a running clock reaches zero."""

    __slots__ = ("_left", "_since")

    def __init__(self, seconds: float):
        self._left = at(float(seconds))
        self._since: float | None = None

    @property
    def running(self) -> bool:
        return self._since is not None

    @property
    def deadline(self) -> float | None:
        return at(self._since + self._left) if self._since is not None else None

    def left(self, now: float) -> float:
        """Seconds left at `now` (never below zero)."""
        if self._since is None:
            return self._left
        return max(0.0, at(self._left - (now - self._since)))

    def start(self, now: float) -> None:
        if self._since is None:
            self._since = now

    def stop(self, now: float) -> None:
        if self._since is not None:
            self._left = self.left(now)
            self._since = None

    def add(self, seconds: float, now: float) -> None:
        """Put `seconds` more on the clock (running or not)."""
        running = self.running
        self.stop(now)
        self._left = at(self._left + float(seconds))
        if running:
            self.start(now)

    def reset(self, seconds: float, now: float) -> None:
        """Full again with `seconds`, still running if it was (from `now`)."""
        running = self.running
        self._since = None
        self._left = at(float(seconds))
        if running:
            self.start(now)
