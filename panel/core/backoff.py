"""The pause before trying again what failed (a broker away, a board unplugged): one rule
for every reconnecting part, so they all behave alike and none hammers what it waits for."""

from __future__ import annotations

import random


class Backoff:
    """From `low`, doubling to `high` after each failure, back to `low` on a success
    (`reset`). With `jitter` (a fraction) each pause is spread by that much either way, so
    twenty cockpits do not all knock on a restarted broker in the same millisecond."""

    def __init__(self, low: float, high: float, *, jitter: float = 0.2):
        self.low, self.high, self.jitter = low, high, jitter
        self.next = low

    def reset(self) -> None:
        self.next = self.low

    def pause(self) -> float:
        p = self.next * random.uniform(1 - self.jitter, 1 + self.jitter) if self.jitter else self.next
        self.next = min(self.high, self.next * 2)
        return p
