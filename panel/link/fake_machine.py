"""A small stand-in for MicroPython's `machine` module and `time` ticks, so the real
firmware (firmware/) runs on a PC: under CPython in the tests and the emulator, and under
a real MicroPython (tests/test_firmware_micropython.py) with the very same stub.

Nothing real can run the Pico's `machine` module on a PC, so this is the one hand-made
fake of the link; it is kept to what the firmware uses: Pin (IN, OPEN_DRAIN, PULL_UP,
value), ADC.read_u16, WDT, unique_id, reset and the SIO input register via mem32. A key
matrix is simulated electrically, so ghosting without diodes comes out of the wiring
model rather than being scripted.

Written in the subset MicroPython and CPython share, and reading a pin allocates nothing
(pin states in bytearrays, closed keys as bit masks): the MicroPython test measures what
the firmware's idle scan allocates, and the stub must not add to it.
"""

try:  # CPython: tests press keys from another thread than the board loop's
    from threading import Lock as _Lock
except Exception:  # MicroPython without threads (a missing module may raise OSError there)
    _Lock = None

NPINS = 30                 # RP2040: GP0..GP29
SIO_GPIO_IN = 0xD0000004   # the register that reads all 30 inputs at once
IN, OUT, OPEN_DRAIN = 0, 1, 2
PULL_UP, PULL_DOWN = 1, 2
_FREE = 2                  # an input nobody drives from outside (see set_level)
TICKS_PERIOD = 1 << 30     # MicroPython's ticks_us/ticks_ms wrap here on the RP2040
_TICKS_MASK = TICKS_PERIOD - 1
_TICKS_HALF = TICKS_PERIOD // 2


class BoardReset(Exception):
    """machine.reset() was called (or the watchdog fired): the board reboots."""


class _NoLock:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class FakeMachine:
    """One simulated board. Use its attributes as the `machine` module."""

    def __init__(self, *, uid=b"\xe6\x61\x41\x03\xe7\x45\x2d\x2f", clock=None, diodes=True):
        self._uid = uid
        self.clock = clock if clock is not None else FakeClock()
        self.diodes = diodes
        self.lock = _Lock() if _Lock is not None else _NoLock()
        self.mode = bytearray(NPINS)
        self.pull = bytearray(NPINS)
        self.out = bytearray(b"\x01" * NPINS)
        self.ext = bytearray(bytes([_FREE]) * NPINS)  # levels driven from outside (encoders)
        self.low = 0                                   # bit g set: GPIO g is driven low
        self.pressed = set()                           # (row gpio, col gpio) closed contacts
        self.col_rows = [0] * NPINS                    # per column: bit r set = key (r, col) closed
        self.adc_values = {}                           # gpio -> u16, or a deque of readings
        self.wdt = None
        self.resets = 0
        machine = self

        class Pin:
            def __init__(self, id, mode=-1, pull=-1, value=None):
                self.id = id
                if mode != -1:
                    machine.mode[id] = mode
                if pull != -1:
                    machine.pull[id] = pull
                if value is not None:
                    machine.out[id] = 1 if value else 0
                machine._update(id)

            def value(self, v=None):
                if v is None:
                    return machine.level(self.id)
                machine.out[self.id] = 1 if v else 0
                machine._update(self.id)
                return None

        Pin.IN, Pin.OUT, Pin.OPEN_DRAIN = IN, OUT, OPEN_DRAIN
        Pin.PULL_UP, Pin.PULL_DOWN = PULL_UP, PULL_DOWN

        class ADC:
            def __init__(self, pin):
                self.id = pin.id if isinstance(pin, Pin) else pin

            def read_u16(self):
                v = machine.adc_values.get(self.id, 0)
                if isinstance(v, int):
                    return v
                return v.popleft() if len(v) > 1 else v[0]

        class WDT:
            def __init__(self, id=0, timeout=5000):
                self.timeout_ms = timeout
                self.fed = machine.clock.ticks_us()
                machine.wdt = self

            def feed(self):
                self.fed = machine.clock.ticks_us()

        self.Pin, self.ADC, self.WDT = Pin, ADC, WDT
        self.mem32 = _Mem32(self)

    # -- the `machine` module's functions --------------------------------------

    def unique_id(self):
        return self._uid

    def reset(self):
        self.resets += 1
        raise BoardReset()

    def watchdog_expired(self):
        w = self.wdt
        return w is not None and self.clock.ticks_diff(self.clock.ticks_us(), w.fed) > w.timeout_ms * 1000

    def reset_pins(self):
        """Power-up state of every pin (a reboot)."""
        for g in range(NPINS):
            self.mode[g] = IN
            self.pull[g] = 0
            self.out[g] = 1
        self.low = 0
        self.wdt = None

    # -- the electrical model ----------------------------------------------------

    def _update(self, g):
        if self.mode[g] != IN and not self.out[g]:
            self.low |= 1 << g
        else:
            self.low &= ~(1 << g)

    def level(self, g):
        mode = self.mode[g]
        if mode == OUT:
            return self.out[g]
        if mode == OPEN_DRAIN and not self.out[g]:
            return 0
        e = self.ext[g]
        if e != _FREE:
            return e
        if self.diodes:
            # A diode per key lets a low row pull only its own column low.
            if self.col_rows[g] & self.low:
                return 0
        elif self._net_low(g):
            return 0
        return 1 if self.pull[g] == PULL_UP else 0

    def _net_low(self, gpio):
        # No diodes: closed keys join rows and columns into nets; a column reads low if
        # its net holds a row driven low, however many keys the path crosses.
        seen = [("c", gpio)]
        todo = [("c", gpio)]
        while todo:
            kind, g = todo.pop()
            if kind == "r" and (self.low >> g) & 1:
                return True
            for r, c in list(self.pressed):
                nxt = ("r", r) if (kind == "c" and c == g) else ("c", c) if (kind == "r" and r == g) else None
                if nxt is not None and nxt not in seen:
                    seen.append(nxt)
                    todo.append(nxt)
        return False

    # -- what a test or the emulator does to the panel ------------------------------

    def press(self, row_gpio, col_gpio, down=True):
        with self.lock:
            if down:
                self.pressed.add((row_gpio, col_gpio))
                self.col_rows[col_gpio] |= 1 << row_gpio
            else:
                self.pressed.discard((row_gpio, col_gpio))
                self.col_rows[col_gpio] &= ~(1 << row_gpio)

    def set_level(self, gpio, value):
        with self.lock:
            self.ext[gpio] = 1 if value else 0


class _Mem32:
    """machine.mem32: only the SIO GPIO input register is readable."""

    def __init__(self, machine):
        self.machine = machine

    def __getitem__(self, addr):
        if addr != SIO_GPIO_IN:
            raise ValueError("fake mem32: address %x not simulated" % addr)
        m = self.machine  # (a bound method kept in a local would be an allocation)
        word = 0
        for g in range(NPINS):
            if m.level(g):
                word |= 1 << g
        return word


class FakeClock:
    """MicroPython's time ticks, advanced by hand: sleep_us moves time forward. The
    ticks wrap at 2**30 as on the RP2040, so the firmware's tick maths is tested as the
    board runs it (and stays in MicroPython's small integers: no allocation)."""

    def __init__(self, start_us=0):
        self.us = start_us & _TICKS_MASK

    def ticks_us(self):
        return self.us

    def ticks_ms(self):
        return self.us // 1000

    @staticmethod
    def ticks_diff(a, b):
        return ((a - b + _TICKS_HALF) & _TICKS_MASK) - _TICKS_HALF

    @staticmethod
    def ticks_add(a, d):
        return (a + d) & _TICKS_MASK

    def sleep_us(self, n):
        if n > 0:
            self.us = (self.us + n) & _TICKS_MASK

    def sleep_ms(self, n):
        self.sleep_us(n * 1000)

    def advance(self, seconds):
        self.sleep_us(int(seconds * 1000000))
