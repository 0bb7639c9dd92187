"""What an MCP3008 reading costs on a Pi, for the benchmarks that run the builds on gpiozero's
MockFactory.

On a Pi, gpiozero reads an MCP3008 wired to the SPI pins through the kernel's hardware SPI
(spidev): one system call per transfer. gpiozero's MockFactory has no hardware SPI: it
bit-bangs every bit over MockPins in Python, about 1.6 ms of CPU per reading on a desktop
core, with 50 readings a second per slider while a match is played: a cost no Pi pays,
which would stand for most of the cockpit's CPU in a benchmark. `use_hardware_spi()` gives
the MockFactory's SPI devices this stand-in instead: gpiozero's own MCP3008 code above it
unchanged, one real system call (a read of /dev/zero) per transfer, the slider at its
lowest reading.
"""

from __future__ import annotations

import os


class HardwareSPI:
    bits_per_word = 8  # what spidev's transfers are made of

    def __init__(self, **spi_args):
        self._fd = os.open("/dev/zero", os.O_RDONLY)

    def transfer(self, data: list[int]) -> list[int]:
        return [0] * len(os.pread(self._fd, len(data), 0))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def use_hardware_spi() -> None:
    """Every SPI device made on a MockFactory from now on (in this process) on the stand-in."""
    from gpiozero.pins.mock import MockFactory

    MockFactory.spi = lambda self, **spi_args: HardwareSPI(**spi_args)
