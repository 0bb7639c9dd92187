"""A timestamp-based contact debouncer: eager on the press, patient on the release.

Mechanical contacts chatter for a few milliseconds when they close or open. gpiozero's
``bounce_time`` means different things on different pin backends (a lockout in some, a
stability filter in others), so we debounce ourselves, from the timestamps of the edges:

* A **close** (press) is reported at its first edge, at once: the player's press is
  judged with no added delay.
* An **open** (release) is reported only once the contact has stayed open for
  ``window`` seconds; a close arriving before that cancels it. Chatter therefore never
  produces an extra release and press. The release carries the time of its edge.

With chatter of up to 10 ms the default window of 12 ms gives exactly one press, and
presses 30 ms apart (held and released at least 12 ms each) are all counted.

It is pure: no clock, no threads. Call `edge` with each raw level change and its time,
and `poll(now)` when `deadline` passes (or at any later edge, which polls first).
"""

from __future__ import annotations

DEFAULT_WINDOW = 0.012


class Debouncer:
    """Turns raw edges of one contact into debounced (closed, t) changes."""

    __slots__ = ("window", "state", "_pending")

    def __init__(self, initial: bool = False, *, window: float = DEFAULT_WINDOW):
        if window < 0:
            raise ValueError("window must be >= 0")
        self.window = window
        self.state = bool(initial)          # the debounced level: True = closed
        self._pending: float | None = None  # time of an open edge not yet reported

    @property
    def deadline(self) -> float | None:
        """When `poll` next has something to decide, or None."""
        return None if self._pending is None else self._pending + self.window

    def poll(self, now: float) -> list[tuple[bool, float]]:
        """Report a pending release whose contact stayed open for the window."""
        # (compared as `deadline` computes it: a poll exactly at the deadline decides)
        if self._pending is not None and now >= self._pending + self.window:
            t, self._pending = self._pending, None
            self.state = False
            return [(False, t)]
        return []

    def edge(self, closed: bool, t: float) -> list[tuple[bool, float]]:
        """One raw level change at time t; returns the debounced changes it causes, in order."""
        out = self.poll(t) if self._pending is not None else []  # (nearly always nothing pending: no call)
        if closed:
            self._pending = None              # chatter or a quick re-press: the release never was
            if not self.state:
                self.state = True
                out.append((True, t))
        elif self.state and self._pending is None:
            self._pending = t                 # report it once it has held
        return out
