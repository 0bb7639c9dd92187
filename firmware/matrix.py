# Key matrix scan with per-key integrator debounce. MicroPython-compatible subset.
#
# Wiring: one diode per key, anode on the column, cathode on the row (the band towards
# the row). Rows are open-drain outputs: the scanned row is pulled low, the others float;
# columns are inputs with pull-ups, so a pressed key on the scanned row reads 0.
# With the diodes every combination of keys reads true (N-key rollover). Without them
# three keys at the corners of a rectangle make the fourth corner read pressed (a
# "ghost"); with "diodes": false the scanner holds back any key that could be a ghost.
#
# Debounce (eager press, integrator release): a key reports DOWN on the first closed
# reading, since a stray closure on a diode matrix is rare and latency matters for a
# game; each later reading moves its integrator up (closed) or down (open) between 0
# and N, N = release_ms worth of scans, and the key reports UP when it reaches 0. Contact
# chatter on release therefore never makes a second press.

SIO_GPIO_IN = 0xD0000004  # RP2040 SIO register: all 30 GPIO input levels in one read


class Matrix:
    def __init__(self, machine, rows, cols, release_ms=5, scan_hz=1000, settle_us=10,
                 diodes=True, sleep_us=None):
        Pin = machine.Pin
        self.nrows = len(rows)
        self.ncols = len(cols)
        self.rows = [Pin(p, Pin.OPEN_DRAIN, value=1) for p in rows]
        self.cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in cols]
        self.diodes = diodes
        self.settle_us = settle_us
        self._sleep_us = sleep_us
        n = (release_ms * scan_hz + 999) // 1000
        self.top = n if n > 0 else 1
        self.state = [0] * self.nrows     # debounced: bit c set = key (r, c) is down
        self.pending = [0] * self.nrows   # keys down whose integrator is below top
        self.integ = bytearray(self.nrows * self.ncols)
        self.raw = [0] * self.nrows
        self._clean = [0] * self.nrows    # _unghost's output, reused (no allocation per scan)
        self.mask = (1 << self.ncols) - 1
        # Fast path: columns on consecutive GPIOs are read with one register read per
        # row instead of one Pin.value() call per key; this keeps 8 x 12 under 1 ms.
        self._mem32 = getattr(machine, "mem32", None)
        self._shift = -1
        if self._mem32 is not None and cols and list(cols) == list(range(cols[0], cols[0] + len(cols))):
            self._shift = cols[0]

    def _read_cols(self):
        if self._shift >= 0:
            return (~self._mem32[SIO_GPIO_IN] >> self._shift) & self.mask
        bits = 0
        bit = 1
        for p in self.cols:
            if not p.value():
                bits |= bit
            bit <<= 1
        return bits

    def read_raw(self):
        """One pass over the rows: the raw (undebounced) bitmask of each row."""
        raw = self.raw
        settle = self.settle_us
        for r in range(self.nrows):
            row = self.rows[r]
            row.value(0)
            if settle and self._sleep_us is not None:
                self._sleep_us(settle)
            raw[r] = self._read_cols()
            row.value(1)
        return raw

    def scan(self, out):
        """Scan once; append (down, row, col) for every debounced change to `out`."""
        raw = self.read_raw()
        if not self.diodes:
            raw = self._unghost(raw)
        top = self.top
        integ = self.integ
        nc = self.ncols
        for r in range(self.nrows):
            st = self.state[r]
            rw = raw[r]
            pend = self.pending[r]
            if rw == st and not pend:
                continue  # the common case: nothing moved on this row
            new = rw & ~st
            c = 0
            while new:
                if new & 1:
                    st |= 1 << c
                    integ[r * nc + c] = top
                    out.append((True, r, c))
                new >>= 1
                c += 1
            # keys that are down: integrate each reading
            work = (st & ~rw) | (pend & rw)
            c = 0
            while work:
                if work & 1:
                    i = r * nc + c
                    bit = 1 << c
                    if rw & bit:
                        v = integ[i] + 1
                        if v >= top:
                            v = top
                            pend &= ~bit
                    else:
                        v = integ[i] - 1
                        pend |= bit
                        if v <= 0:
                            v = 0
                            st &= ~bit
                            pend &= ~bit
                            out.append((False, r, c))
                    integ[i] = v
                work >>= 1
                c += 1
            self.state[r] = st
            self.pending[r] = pend
        return out

    def _unghost(self, raw):
        # Without diodes a key is trustworthy only if no other row shares two or more
        # closed columns with its row: such a rectangle may hold a ghost. Those keys are
        # left as they were (not newly pressed), keys already down stay down.
        out = self._clean
        n = self.nrows
        for r in range(n):
            out[r] = raw[r]
        for r in range(n):
            for r2 in range(n):
                if r2 != r:
                    both = raw[r] & raw[r2]
                    if both & (both - 1):  # two or more bits
                        out[r] = (raw[r] & ~both) | (self.state[r] & both)
        return out

    def down(self):
        """Every debounced key that is down, as (row, col) pairs."""
        keys = []
        for r in range(self.nrows):
            st = self.state[r]
            c = 0
            while st:
                if st & 1:
                    keys.append((r, c))
                st >>= 1
                c += 1
        return keys
