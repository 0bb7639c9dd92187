"""Choosing gpiozero's pin factory, and knowing whether we run on a Pi at all.

On a Pi, gpiozero picks its backend as usual (lgpio, then RPi.GPIO ...) when a device is
made with ``pin_factory=None``. The simulator and the tests pass a MockFactory whose pins
can be PWM pins (the buzzer needs one). Nothing here imports a hardware library: the
real backends load inside gpiozero only when a device is made without a factory.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from panel.core.i18n import N_, Text

MODEL_FILE = Path("/proc/device-tree/model")


def board_model(model_file: Path = MODEL_FILE) -> str | None:
    """'Raspberry Pi 4 Model B Rev 1.4' on a Pi, None anywhere else."""
    try:
        text = model_file.read_bytes().rstrip(b"\0").decode("ascii", "replace")
    except OSError:
        return None
    return text if text.startswith("Raspberry Pi") else None


def mock_factory():
    """A MockFactory whose pins all support PWM, so the buzzer's PWM output works on any of them."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin)


def pin_factory(*, sim: bool = False, model_file: Path = MODEL_FILE):
    """The pin factory to inject: a MockFactory for --sim, None (gpiozero's default) on a Pi.

    Off a Pi without --sim this raises RuntimeError, rather than letting gpiozero fall
    back to its own MockFactory with a warning and silently read nothing."""
    if sim:
        return mock_factory()
    if board_model(model_file) is None:
        raise RuntimeError(Text(N_("this machine is not a Raspberry Pi: run with --sim to use simulated pins")))
    return None


@contextmanager
def software_spi(factory):
    """Lend gpiozero what its software SPI needs on a MockFactory, for construction only.

    Two quirks of gpiozero 2.0.1, both harmless on a Pi (factory None, hardware SPI):
    SPISoftwareBus builds its pins with the factory it is given but calls Device.__init__()
    without it, which asks for the global default factory (and fails off a Pi); and a
    MockFactory whose pin class is MockPWMPin refuses the plain MockPins the SPI bus and
    its mock chip share. So: the global default is ours for the moment, and the pin class
    plain MockPin; both are put back afterwards.
    """
    from gpiozero import Device

    old = Device.pin_factory
    old_class = getattr(factory, "pin_class", None)
    if factory is not None and old is None:
        Device.pin_factory = factory
    if old_class is not None:
        from gpiozero.pins.mock import MockPin

        factory.pin_class = MockPin
    try:
        yield
    finally:
        Device.pin_factory = old
        if old_class is not None:
            factory.pin_class = old_class
