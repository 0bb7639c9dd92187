"""The pause before the next attempt at something that failed (a broker away, a card that
cannot be written): doubling, with jitter."""

from __future__ import annotations

import random


class Backoff:
    """The pause before the next attempt: doubling from `low` to `high`, with jitter so
    twenty cockpits do not all knock on a restarted broker in the same millisecond."""

    def __init__(self, low: float, high: float):
        self.low, self.high = low, high
        self.next = low

    def reset(self) -> None:
        self.next = self.low

    def pause(self) -> float:
        p = self.next * random.uniform(0.8, 1.2)  # the ±20 % docs/mqtt.md promises
        self.next = min(self.high, self.next * 2)
        return p
