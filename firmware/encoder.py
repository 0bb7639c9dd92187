# Quadrature rotary encoder, polled from the scan loop. MicroPython-compatible subset.
#
# Polling at the scan rate (1 kHz) follows a hand-turned detent knob (a fast spin of a
# 24-detent knob is ~200 transitions a second); the state table ignores the invalid
# double transitions that contact bounce produces, so bounce cannot run the count away.
#
# The state sits in one int array (layout E_*), which rp2fast.quad updates on the RP2040
# in machine code (one register read for both pins, no Pin calls, no allocation);
# elsewhere poll() does the same in Python.

from array import array

# index: (previous AB << 2) | new AB -> step
STEP = (0, -1, 1, 0, 1, 0, 0, -1, -1, 0, 0, 1, 0, 1, -1, 0)

# The state array: the pins' GPIO numbers, quadrature steps per detent, the last A/B
# levels, the step count, the detent position.
E_A, E_B, E_DIV, E_AB, E_COUNT, E_POS = 0, 1, 2, 3, 4, 5


class Encoder:
    def __init__(self, machine, pin_a, pin_b, div=4, fast=None):
        Pin = machine.Pin
        self.a = Pin(pin_a, Pin.IN, Pin.PULL_UP)
        self.b = Pin(pin_b, Pin.IN, Pin.PULL_UP)
        self.st = array("i", [pin_a, pin_b, div, self._ab(), 0, 0])
        self._fast = fast

    @property
    def position(self):
        return self.st[E_POS]

    def _ab(self):
        return (self.a.value() << 1) | self.b.value()

    def poll(self):
        """Read once; the new detent position if it changed, else None."""
        if self._fast is not None:
            return self.st[E_POS] if self._fast.quad(self.st) else None
        st = self.st
        ab = self._ab()
        if ab == st[E_AB]:
            return None
        count = st[E_COUNT] + STEP[(st[E_AB] << 2) | ab]
        st[E_COUNT] = count
        st[E_AB] = ab
        # The position changes only when the count lands on a detent (a multiple of
        # div), so a knob resting near a detent never flips between two positions.
        if count % st[E_DIV]:
            return None
        pos = count // st[E_DIV]
        if pos != st[E_POS]:
            st[E_POS] = pos
            return pos
        return None
