# Analog inputs (sliders, knobs on potentiometers): oversampled, filtered, reported on
# change beyond a deadband. MicroPython-compatible subset.
#
# Each sample averages `oversample` readings of read_u16() (which cancels much of the
# RP2040 ADC's noise and its DNL steps), feeds an exponential moving average (1/4 new,
# integer maths in 1/16 steps, so no float work on the board), and reports the 12-bit
# value (0..4095) only when it moved at least `deadband` counts from the last report:
# that hysteresis stops a slider resting between two counts from chattering. Raw values
# go to the Pi, which calibrates and quantises them into token positions.

# Samples the filter takes to follow a full-scale jump to within one count: its error
# shrinks by a quarter per sample (the emulator waits this long for a slider to settle).
FOLLOW_SAMPLES = 37


class Analog:
    def __init__(self, machine, pins, oversample=16, deadband=8):
        self.adcs = [machine.ADC(machine.Pin(p)) for p in pins]
        self.oversample = oversample
        self.deadband = deadband
        self.filt = [-1] * len(pins)      # filter state, 12-bit value x 16
        self.reported = [-1] * len(pins)  # last value sent
        self.next = 0                     # round robin: one channel per call

    def _read(self, ch):
        adc = self.adcs[ch]
        total = 0
        for _ in range(self.oversample):
            total += adc.read_u16()
        return (total // self.oversample) >> 4  # 0..4095

    def sample(self, ch):
        """Sample one channel; the new value to report, or -1 if within the deadband."""
        x = self._read(ch) << 4
        f = self.filt[ch]
        f = x if f < 0 else f + ((x - f) >> 2)
        self.filt[ch] = f
        v = (f + 8) >> 4
        last = self.reported[ch]
        if last < 0 or v - last >= self.deadband or last - v >= self.deadband \
                or (v != last and (v == 0 or v == 4095)):  # the ends always arrive exactly
            self.reported[ch] = v
            return v
        return -1

    def step(self, out):
        """Sample the next channel in turn; append (channel, value) if it changed."""
        n = len(self.adcs)
        if not n:
            return out
        ch = self.next
        self.next = (ch + 1) % n
        v = self.sample(ch)
        if v >= 0:
            out.append((ch, v))
        return out

    def settle(self):
        """Fill every filter (at boot, before the first snapshot)."""
        for ch in range(len(self.adcs)):
            for _ in range(8):
                self.sample(ch)

    def values(self):
        return list(self.reported)
