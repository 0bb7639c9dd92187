"""The co-processor's controls as devices: matrix keys, ADC channels and encoders that
the serial link (panel.link) reads on the Pico and hands over raw.

The link knows wires (a cell went down, channel 1 reads 2048, encoder 0 counts 12); what
that means for the control is the map's: a cell carrying a two-position token reports
the token's position, a reading is calibrated, quantised and settled like an MCP3008's,
a count becomes the knob's position. Each device is fed on the loop's thread (the link's
thread hands over through `InputHub.call`) and emits InputEvents into the hub, like the
Pi's own adapters; a slider waiting to settle has a `deadline` the loop polls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from panel.core.events import InputEvent
from panel.hardware.resource import Closeable
from panel.hardware.encoder import AbsoluteKnob
from panel.hardware.inputs import InputHub


class PicoKey(Closeable):
    """A matrix cell: a button (True/False), or a token's contact ((open, closed) positions)."""

    def __init__(self, control: str, *, hub: InputHub, positions: tuple[str, str] | None = None):
        self.control = control
        self.positions = positions
        self._hub = hub
        self.closed = False

    def feed(self, down: bool, t: float) -> None:
        self.closed = bool(down)
        self._hub.emit(InputEvent(self.control, self.value, t))

    @property
    def value(self) -> bool | str:
        if self.positions is None:
            return self.closed
        return self.positions[1] if self.closed else self.positions[0]

    def close(self) -> None:
        pass


class PicoSlider(Closeable):
    """A co-processor ADC channel: its readings through the source's quantiser."""

    def __init__(self, control: str, source, *, hub: InputHub, positions: Sequence[str]):
        self.control = control
        self.source = source
        self.quantiser = source.quantiser(positions)
        self.raw: float | None = None   # the last reading, a fraction of full scale
        self._hub = hub
        hub.add(self)

    def feed(self, reading: int, t: float) -> None:
        self.raw = self.source.fraction(reading)
        self._update(t)

    def _update(self, t: float) -> None:
        pos = self.quantiser.update(self.raw, t)
        if pos is not None:
            self._hub.emit(InputEvent(self.control, pos, t))

    @property
    def value(self) -> str | None:
        return self.quantiser.position

    @property
    def deadline(self) -> float | None:
        # The board reports a channel only when it moves: a position settles without a
        # new reading, so the last one is offered again when the settle time is up.
        return self.quantiser.deadline

    def poll(self, now: float) -> None:
        if self.raw is not None:
            self._update(now)

    def close(self) -> None:
        self._hub.remove(self)


class PicoKnob(AbsoluteKnob):
    """A knob's encoder on the co-processor, which counts detents since it booted. After
    every (re)connection the first count re-bases the absolute count: the knob is taken
    not to have moved while the board was not heard (the board may have restarted its
    count meanwhile)."""

    def __init__(self, control: str, source, *, hub: InputHub, positions: Sequence[str],
                 state_file: str | Path | None = None):
        super().__init__(control, source, hub=hub, positions=tuple(positions), state_file=state_file)
        self._rebase = True

    def resync(self) -> None:
        """The link was lost: the next count re-bases the knob."""
        self._rebase = True

    def feed(self, count: int, t: float) -> None:
        if self._rebase:
            self._offset, self._count, self._rebase = self.steps - count, count, False
            return
        self._counted(count, t)
