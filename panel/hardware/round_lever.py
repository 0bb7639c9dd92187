"""A three-position round lever read from a pin pair.

The lever closes its first contact in position 0, its second in position 2, and neither
in the middle. Each contact is debounced like a button; the position is worked out from
both debounced contacts and reported when it changes. Both closed at once cannot happen
with a sound lever: it is ignored (the lever keeps its last position) rather than
guessed, so a shorted wire shows up in the self-test, not as a phantom move.
"""

from __future__ import annotations

from panel.core.events import InputEvent
from panel.hardware.resource import Closeable
from panel.hardware.debounce import DEFAULT_WINDOW
from panel.hardware.buttons import ContactInput
from panel.hardware.inputs import InputHub


class _Contact(ContactInput):
    def __init__(self, lever: "RoundLeverInput", *args, **kw):
        self._lever = lever
        super().__init__(*args, **kw)

    def _emit(self, closed: bool, t: float) -> None:
        self._lever._changed(t)


class RoundLeverInput(Closeable):
    def __init__(self, control: str, pins: tuple[int, int], *, hub: InputHub, positions: tuple[str, str, str],
                 pull_up: bool | None = True, active_high: bool | None = None,
                 window: float = DEFAULT_WINDOW, pin_factory=None):
        if len(positions) != 3:
            raise ValueError(f"a round lever has 3 positions, {control} has {len(positions)}")
        self.control = control
        self.positions = tuple(positions)
        self._hub = hub
        self._contacts: list[_Contact] = []
        try:
            for i, pin in enumerate(pins):
                self._contacts.append(_Contact(self, f"{control}#{i}", pin, hub=hub, pull_up=pull_up,
                                               active_high=active_high, window=window, pin_factory=pin_factory))
        except Exception:
            self.close()
            raise
        self._position = self._read() or self.positions[1]

    def _read(self) -> str | None:
        a, b = (c.closed for c in self._contacts)
        if a and b:
            return None
        return self.positions[0] if a else self.positions[2] if b else self.positions[1]

    def _changed(self, t: float) -> None:
        if len(self._contacts) < 2:
            return
        pos = self._read()
        if pos is not None and pos != self._position:
            self._position = pos
            self._hub.emit(InputEvent(self.control, pos, t))

    @property
    def value(self) -> str:
        return self._position

    def close(self) -> None:
        for c in self._contacts:
            c.close()
        self._contacts = []

