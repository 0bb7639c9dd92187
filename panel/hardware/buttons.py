"""Contacts on Pi GPIOs: buttons, and the two-position tokens (switches, clicks, lever).

Each contact is a gpiozero DigitalInputDevice (a Button without the hold machinery:
Button starts a hold-timer thread per device that wakes ten times a second, twenty of
them on a Pi Zero for nothing) with ``bounce_time=None``: we debounce ourselves (see
debounce.py), eager on the press edge, from the time the callback read on gpiozero's
thread; the pin's level is handed over as it changes (contact_device_class), without
gpiozero's own events. A button reports True/False (pressed/released); a two-position token reports the
name of the position it now stands at.
"""

from __future__ import annotations


from panel.core.events import InputEvent
from panel.hardware.resource import Closeable
from panel.hardware.debounce import DEFAULT_WINDOW, Debouncer
from panel.hardware.inputs import InputHub


_contact_device = None


def contact_device_class():
    """gpiozero's DigitalInputDevice, with each edge's pin level handed straight to
    `on_level(closed_level == level)`: the cockpit debounces and times edges itself, so
    gpiozero's own event machinery (the active/inactive bookkeeping, the when_activated
    lookups: four Python calls a press on the callback's thread, on a Pi lgpio's) is not
    asked. Made once, on first use (gpiozero is imported only where pins are used)."""
    global _contact_device
    if _contact_device is None:
        from gpiozero import DigitalInputDevice

        class ContactDevice(DigitalInputDevice):
            on_level = None  # called with True when the pin stands at the contact's closed level
            closed_level = False

            def _pin_changed(self, ticks, state):  # (the hook every gpiozero input device's pin calls)
                on_level = self.on_level
                if on_level is not None:
                    on_level(state == self.closed_level)

        _contact_device = ContactDevice
    return _contact_device


class ContactInput(Closeable):
    """One contact on one GPIO. `positions` = (when open, when closed) for a token,
    None for a button."""

    def __init__(self, control: str, pin: int, *, hub: InputHub, pull_up: bool | None = True,
                 active_high: bool | None = None, positions: tuple[str, str] | None = None,
                 window: float = DEFAULT_WINDOW, pin_factory=None):
        self.control = control
        self.positions = positions
        # What it reports, open and closed (read by index: every press's path asks it).
        self._values: tuple = positions if positions is not None else (False, True)
        self._hub = hub
        # gpiozero wants active_state only for a floating input.
        kw = {"active_state": bool(active_high)} if pull_up is None else {}
        self._device = contact_device_class()(pin, pull_up=pull_up, bounce_time=None, pin_factory=pin_factory, **kw)
        if pull_up is not None and active_high is not None and active_high == pull_up:
            # A pulled-up contact that reads "closed" when high (a normally-closed switch).
            self._invert = True
        else:
            self._invert = False
        self._debouncer = Debouncer(self._raw(self._device.is_active), window=window)
        # The pin level that means "closed": the device's active level, or the other one when inverted.
        self._device.closed_level = self._device._active_state != self._invert
        self._device.on_level = self._on_level
        hub.add(self)

    def _raw(self, pressed: bool) -> bool:
        return pressed != self._invert

    # gpiozero's thread: read the clock now, decide on the loop.
    def _on_level(self, closed: bool) -> None:
        self._hub.call(self._edge, closed, self._hub.clock())

    def _edge(self, closed: bool, t: float) -> None:
        for state, te in self._debouncer.edge(closed, t):
            self._emit(state, te)

    def _emit(self, closed: bool, t: float) -> None:
        self._hub.emit(InputEvent(self.control, self._values[closed], t))

    def value_of(self, closed: bool) -> bool | str:
        return self._values[closed]

    @property
    def value(self) -> bool | str:
        """The debounced value now: pressed, or the token's position."""
        return self.value_of(self._debouncer.state)

    @property
    def closed(self) -> bool:
        return self._debouncer.state

    @property
    def deadline(self) -> float | None:
        return self._debouncer.deadline

    def poll(self, now: float) -> None:
        for state, te in self._debouncer.poll(now):
            self._emit(state, te)

    def close(self) -> None:
        if self._device is not None:
            self._hub.remove(self)
            self._device.close()
            self._device = None

