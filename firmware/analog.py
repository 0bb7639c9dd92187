# Analog inputs (sliders, knobs on potentiometers): oversampled, filtered, reported on
# change beyond a deadband. MicroPython-compatible subset.
#
# Each sample averages `oversample` readings of read_u16() (which cancels much of the
# RP2040 ADC's noise and its DNL steps), feeds an exponential moving average (1/4 new,
# integer maths in 1/16 steps, so no float work on the board), and reports the 12-bit
# value (0..4095) only when it moved at least `deadband` counts from the last report:
# that hysteresis stops a slider resting between two counts from chattering. Raw values
# go to the Pi, which calibrates and quantises them into token positions.
#
# One channel a scan step, in turn. On the RP2040 rp2fast.adc does a step in machine
# code, the conversions read from the ADC's registers (16 read_u16() calls alone cost
# ~250 us of Python calls there), on the same arrays as step() below.

from array import array

# Samples the filter takes to follow a full-scale jump to within one count: its error
# shrinks by a quarter per sample (the emulator waits this long for a slider to settle).
FOLLOW_SAMPLES = 37

# The parameter block rp2fast.adc reads: channels, readings per sample, deadband, the
# next channel, the channel last sampled, then each channel's ADC input (AINSEL).
A_N, A_OVER, A_BAND, A_NEXT, A_CH, A_SEL = 0, 1, 2, 3, 4, 5


class Analog:
    def __init__(self, machine, pins, oversample=16, deadband=8, fast=None):
        self.adcs = [machine.ADC(machine.Pin(p)) for p in pins]
        self.p = array("i", [len(pins), oversample, deadband, 0, 0] + [p - 26 for p in pins])
        self.oversample = oversample
        self.deadband = deadband
        self.filt = array("i", [-1] * len(pins))      # filter state, 12-bit value x 16
        self.reported = array("i", [-1] * len(pins))  # last value sent
        self.ch = 0                                   # the channel step() sampled
        self._fast = fast

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

    def step(self):
        """Sample the next channel in turn; its new value to report (the channel is
        self.ch), or -1. Returns a small int, so an idle step allocates nothing."""
        p = self.p
        if self._fast is not None:
            v = self._fast.adc(p, self.filt, self.reported)
        elif p[A_N]:
            ch = p[A_NEXT]
            p[A_CH] = ch
            p[A_NEXT] = ch + 1 if ch + 1 < p[A_N] else 0
            v = self.sample(ch)
        else:
            return -1
        if v >= 0:
            self.ch = p[A_CH]
        return v

    def settle(self):
        """Fill every filter (at boot, before the first snapshot)."""
        for ch in range(len(self.adcs)):
            for _ in range(8):
                self.sample(ch)

    def values(self):
        return list(self.reported)
