"""The rotating knob: a quadrature encoder kept as an absolute position.

An incremental encoder only knows how far it turned since power-up. We keep the knob's
absolute step count: the count at start-up is restored from a small state file, every
change of position is written back (atomically), and `home(position)` sets it by a
calibration: "the knob points at position X now". The position is the nearest whole
multiple of `steps_per_position` detents, wrapping round for a knob that turns freely.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

from ..events import InputEvent
from ..resource import Closeable
from .inputs import InputHub


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


class KnobInput(Closeable):
    def __init__(self, control: str, pins: tuple[int, int], *, hub: InputHub, positions: tuple[str, ...],
                 steps_per_position: int = 4, wrap: bool = True, state_file: str | Path | None = None,
                 pin_factory=None):
        from gpiozero import RotaryEncoder

        self.control = control
        self.positions = tuple(positions)
        self.steps_per_position = steps_per_position
        self.wrap = wrap
        self._hub = hub
        self._state = KnobState(state_file)
        saved = self._state.load()
        self.homed = saved is not None
        self._offset = saved or 0  # absolute steps = offset + the encoder's own count
        self._device = RotaryEncoder(pins[0], pins[1], max_steps=0, pin_factory=pin_factory)
        self._position = self.position_of(self._offset)
        self._device.when_rotated = self._on_rotated

    @property
    def steps(self) -> int:
        """The absolute step count."""
        return self._offset + self._device.steps

    def position_of(self, steps: int) -> str:
        n = len(self.positions)
        i = math.floor(steps / self.steps_per_position + 0.5)  # halfway between detents rounds up
        i = i % n if self.wrap else min(max(i, 0), n - 1)
        return self.positions[i]

    @property
    def value(self) -> str:
        return self._position

    def _on_rotated(self) -> None:  # gpiozero's thread
        self._hub.call(self._moved, self._device.steps, self._hub.clock())

    def _moved(self, count: int, t: float) -> None:
        steps = self._offset + count
        # Every detent is saved, not just position changes: the knob may stop between two.
        # A few bytes per detent, renamed into place; the knob is not turned all day.
        self._state.save(steps)
        pos = self.position_of(steps)
        if pos != self._position:
            self._position = pos
            self._hub.emit(InputEvent(self.control, pos, t))

    def home(self, position: str) -> None:
        """Calibrate: the knob stands at `position` now. Saved at once."""
        if position not in self.positions:
            raise ValueError(f"{position!r} is not a position of {self.control} ({', '.join(self.positions)})")
        steps = self.positions.index(position) * self.steps_per_position
        self._offset = steps - self._device.steps
        self._position = position
        self.homed = True
        self._state.save(steps)

    def close(self) -> None:
        if self._device is not None:
            self._device.close()
            self._device = None

