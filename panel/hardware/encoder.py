"""The rotating knob: a quadrature encoder kept as an absolute position.

An incremental encoder only knows how far it turned since power-up. We keep the knob's
absolute step count: the count at start-up is restored from a small state file, every
change of position is written back (atomically), and `home(position)` sets it by a
calibration: "the knob points at position X now". Which position a count stands for
(the nearest whole multiple of `steps_per_position` detents, wrapping round for a knob
that turns freely) is the map's `EncoderSource`'s to say.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from panel.core.events import InputEvent
from panel.hardware.resource import Closeable
from panel.hardware.inputs import InputHub


class KnobState:
    """The knob's absolute step count at the last position change, in a JSON file."""

    def __init__(self, path: str | Path | None):
        self.path = Path(path) if path is not None else None

    def load(self) -> int | None:
        if self.path is None:
            return None
        try:
            data = json.loads(self.path.read_text())
            v = data["steps"]
            return v if isinstance(v, int) and not isinstance(v, bool) else None
        except (OSError, ValueError, KeyError, TypeError):
            return None  # no file or a damaged one: the knob needs homing

    def save(self, steps: int) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps({"steps": steps}))
        os.replace(tmp, self.path)  # a power cut leaves the old file or the new, never half


class AbsoluteKnob(Closeable):
    """A knob's absolute detent count and its position, from a counter that starts at 0
    with its device: absolute = offset + count. Every detent is saved to `state_file`, so
    the next start (a new count from 0) goes on from where the knob stood."""

    def __init__(self, control: str, source, *, hub: InputHub, positions: tuple[str, ...],
                 state_file: str | Path | None = None):
        self.control = control
        self.source = source
        self.positions = tuple(positions)
        self._hub = hub
        self._state = KnobState(state_file)
        saved = self._state.load()
        self.homed = saved is not None
        self._offset = saved or 0
        self._count = 0
        self._position = self.position_of(self._offset)

    @property
    def steps(self) -> int:
        """The absolute step count."""
        return self._offset + self._count

    def position_of(self, steps: int) -> str:
        return self.source.position_of(steps, self.positions)

    @property
    def value(self) -> str:
        return self._position

    def _counted(self, count: int, t: float) -> None:
        self._count = count
        # Every detent is saved, not just position changes: the knob may stop between two.
        # A few bytes per detent, renamed into place; the knob is not turned all day.
        self._state.save(self.steps)
        pos = self.position_of(self.steps)
        if pos != self._position:
            self._position = pos
            self._hub.emit(InputEvent(self.control, pos, t))

    def home(self, position: str) -> None:
        """Calibrate: the knob stands at `position` now. Saved at once."""
        if position not in self.positions:
            raise ValueError(f"{position!r} is not a position of {self.control} ({', '.join(self.positions)})")
        self._offset = self.source.steps_at(position, self.positions) - self._count
        self._position = position
        self.homed = True
        self._state.save(self.steps)

    def close(self) -> None:
        pass


class KnobInput(AbsoluteKnob):
    """The knob of an `EncoderSource` on Pi GPIOs: gpiozero's RotaryEncoder counts."""

    def __init__(self, control: str, source, *, hub: InputHub, positions: tuple[str, ...],
                 state_file: str | Path | None = None, pin_factory=None):
        from gpiozero import RotaryEncoder

        super().__init__(control, source, hub=hub, positions=positions, state_file=state_file)
        self._device = RotaryEncoder(source.pins[0], source.pins[1], max_steps=0, pin_factory=pin_factory)
        self._device.when_rotated = self._on_rotated

    def _on_rotated(self) -> None:  # gpiozero's thread
        self._hub.call(self._counted, self._device.steps, self._hub.clock())

    def home(self, position: str) -> None:
        if self._device is not None:
            self._count = self._device.steps  # turns not yet handed to the loop count too
        super().home(position)

    def close(self) -> None:
        if self._device is not None:
            self._device.close()
            self._device = None
