# Quadrature rotary encoder, polled from the scan loop. MicroPython-compatible subset.
#
# Polling at the scan rate (1 kHz) follows a hand-turned detent knob (a fast spin of a
# 24-detent knob is ~200 transitions a second); the state table ignores the invalid
# double transitions that contact bounce produces, so bounce cannot run the count away.

# index: (previous AB << 2) | new AB -> step
_STEP = (0, -1, 1, 0, 1, 0, 0, -1, -1, 0, 0, 1, 0, 1, -1, 0)


class Encoder:
    def __init__(self, machine, pin_a, pin_b, div=4):
        Pin = machine.Pin
        self.a = Pin(pin_a, Pin.IN, Pin.PULL_UP)
        self.b = Pin(pin_b, Pin.IN, Pin.PULL_UP)
        self.div = div
        self.ab = self._ab()
        self.count = 0
        self.position = 0

    def _ab(self):
        return (self.a.value() << 1) | self.b.value()

    def poll(self):
        """Read once; the new detent position if it changed, else None."""
        ab = self._ab()
        if ab == self.ab:
            return None
        self.count += _STEP[(self.ab << 2) | ab]
        self.ab = ab
        # The position changes only when the count lands on a detent (a multiple of
        # div), so a knob resting near a detent never flips between two positions.
        if self.count % self.div:
            return None
        pos = self.count // self.div
        if pos != self.position:
            self.position = pos
            return pos
        return None
