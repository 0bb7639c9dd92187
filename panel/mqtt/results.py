"""The cockpit's results the venue has not acknowledged: its persistent outbox for the venue.

Every finished match is in the cockpit's store already (results are rebuilt from its log),
so the outbox is a mark kept in the store (the last match the venue acknowledged, every
one before it too) and, after it, a window of at most RESULTS_WINDOW results in flight.
A result goes again when the venue says it is back online, when the bridge reconnects,
or after ACK_WAIT without an answer while the venue is not known to be offline. An
acknowledgement may overtake another: the mark moves over the window's acknowledged start.
"""

from __future__ import annotations

from typing import Any, Iterable

from panel.mqtt.protocol import ACK_WAIT, RESULT_STATUSES, counted_at_venue


class Unacknowledged:
    def __init__(self, acked: int):
        self.acked = acked  # the mark
        self.sent = acked  # the last match whose result the broker has (acknowledged or not)
        self.window: list[int] = []  # the matches after the mark with a result for the venue, oldest first
        self.in_flight: dict[int, float] = {}  # match id: loop time its result was last sent
        self.got: set[int] = set()  # acknowledged matches in the window
        self.venue_online: bool | None = None  # the venue's own status topic (None: not heard yet)

    def due(self, records: Iterable[Any], now: float) -> list[Any]:
        """Of the matches after the mark (oldest first), the ones whose result goes out now;
        the window is made anew from them."""
        self.window, out = [], []
        for record in records:
            if record.status not in RESULT_STATUSES or not counted_at_venue(record.settings):
                if record.status == "active":
                    break  # the match in play (the newest): nothing after it
                self.got.add(record.id)  # no result for the venue: nothing to wait for
            self.window.append(record.id)
            if record.id in self.got:
                continue
            sent = self.in_flight.get(record.id)
            if sent is None or now - sent >= ACK_WAIT and self.venue_online is not False:
                out.append(record)
        return out

    def sent_now(self, match_id: int, now: float) -> None:
        self.in_flight[match_id] = now
        self.sent = max(self.sent, match_id)

    def nothing_to_send(self, match_id: int) -> None:
        """A match with no result to send (its log cannot be replayed): never waited for."""
        self.got.add(match_id)

    def acknowledged(self, match_id: int) -> None:
        if match_id > self.acked:
            self.got.add(match_id)
            self.in_flight.pop(match_id, None)

    def advance(self) -> bool:
        """Move the mark over the window's acknowledged start; whether it moved."""
        before = self.acked
        while self.window and self.window[0] in self.got:
            self.acked = self.window.pop(0)
            self.got.discard(self.acked)
            self.in_flight.pop(self.acked, None)
        return self.acked != before

    def venue_says(self, online: bool) -> bool:
        """The venue's status; True when it is back online (everything in flight goes again)."""
        back = online and self.venue_online is not True
        self.venue_online = online
        if back:
            self.in_flight.clear()
        return back

    def again(self) -> None:
        """A new connection: what the venue had not acknowledged goes again."""
        self.in_flight.clear()

    @property
    def waiting(self) -> bool:
        return bool(self.in_flight)
