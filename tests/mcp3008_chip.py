"""The slave side of an MCP3008 on gpiozero's mock SPI pins, for the slider tests.

gpiozero's MCP3008 class talks to it bit by bit over MockPins (software SPI), exactly as
it would talk to the chip: only the chip is imitated, the way gpiozero's own test suite
does it.
"""

from __future__ import annotations

from gpiozero.pins.mock import MockSPIDevice

from panel.hardware.pins import software_spi


class MockMCP3008(MockSPIDevice):
    def __init__(self, *, pin_factory, clock_pin=11, mosi_pin=10, miso_pin=9, select_pin=8):
        with software_spi(pin_factory):
            super().__init__(clock_pin, mosi_pin, miso_pin, select_pin, pin_factory=pin_factory)
        self.values = [0.0] * 8  # volts as fractions of Vref, per channel

    def on_bit(self):
        # Tx 00000001 MCCCxxxx xxxxxxxx: once the start bit, mode and channel are in
        # (bit 12), answer a null bit then the 10-bit reading (Rx xxxxx0RR RRRRRRRR).
        if self.rx_bit == 12:
            bits = self.rx_buf[-4:]
            channel = bits[1] << 2 | bits[2] << 1 | bits[3]
            value = max(0, min(1023, round(self.values[channel] * 1023)))
            self.tx_word(value, 12)
