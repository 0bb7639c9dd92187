"""A small stand-in for MicroPython's `machine` module and `time` ticks, so the real
firmware (firmware/) runs under CPython in the tests and in the emulator.

Nothing real can run the Pico's `machine` module on a PC, so this is the one hand-made
fake of the link; it is kept to what the firmware uses: Pin (IN, OPEN_DRAIN, PULL_UP,
value), ADC.read_u16, WDT, unique_id, reset and the SIO input register via mem32. A key
matrix is simulated electrically, so ghosting without diodes comes out of the wiring
model rather than being scripted.
"""

from __future__ import annotations

import threading
import time
from collections import deque


class BoardReset(Exception):
    """machine.reset() was called (or the watchdog fired): the board reboots."""


SIO_GPIO_IN = 0xD0000004


class FakeMachine:
    """One simulated board. Use its attributes as the `machine` module."""

    def __init__(self, *, uid: bytes = b"\xe6\x61\x41\x03\xe7\x45\x2d\x2f", clock=None,
                 diodes: bool = True, fast_io: bool = True):
        self._uid = uid
        self._clock = clock
        self.diodes = diodes
        self.lock = threading.Lock()   # tests press keys from another thread than the loop's
        self.pins: dict[int, _PinState] = {}
        self.pressed: set[tuple[int, int]] = set()   # (row gpio, col gpio) closed contacts
        self.levels: dict[int, int] = {}             # inputs driven from outside (encoders)
        self.adc_values: dict[int, int | deque] = {}  # gpio -> u16 or a queue of readings
        self.wdt = None
        self.resets = 0
        machine = self

        class Pin:
            IN, OUT, OPEN_DRAIN = 0, 1, 2
            PULL_UP, PULL_DOWN = 1, 2

            def __init__(self, id, mode=-1, pull=-1, *, value=None):
                self.id = id
                st = machine.pins.setdefault(id, _PinState())
                if mode != -1:
                    st.mode = mode
                if pull != -1:
                    st.pull = pull
                if value is not None:
                    st.out = value

            def value(self, v=None):
                st = machine.pins[self.id]
                if v is not None:
                    st.out = 1 if v else 0
                    return None
                return machine.level(self.id)

        class ADC:
            def __init__(self, pin):
                self.id = pin.id if isinstance(pin, Pin) else pin

            def read_u16(self):
                v = machine.adc_values.get(self.id, 0)
                if isinstance(v, deque):
                    return v.popleft() if len(v) > 1 else v[0]
                return v

        class WDT:
            def __init__(self, id=0, timeout=5000):
                self.timeout_ms = timeout
                self.fed = machine._now()
                machine.wdt = self

            def feed(self):
                self.fed = machine._now()

        self.Pin, self.ADC, self.WDT = Pin, ADC, WDT
        self.mem32 = _Mem32(self)

    # -- the `machine` module's functions --------------------------------------

    def unique_id(self) -> bytes:
        return self._uid

    def reset(self):
        self.resets += 1
        raise BoardReset()

    def _now(self) -> float:
        return self._clock.ticks_us() / 1e6 if self._clock is not None else time.monotonic()

    def watchdog_expired(self) -> bool:
        return self.wdt is not None and (self._now() - self.wdt.fed) * 1000 > self.wdt.timeout_ms

    # -- the electrical model ----------------------------------------------------

    def level(self, gpio: int) -> int:
        st = self.pins.get(gpio)
        if st is not None and st.mode == 1:
            return st.out
        if st is not None and st.mode == 2 and st.out == 0:
            return 0
        with self.lock:
            if gpio in self.levels:
                return self.levels[gpio]
            if self._pulled_low(gpio):
                return 0
        return 1 if st is not None and st.pull == 1 else 0

    def _driven_low(self, gpio: int) -> bool:
        st = self.pins.get(gpio)
        return st is not None and st.mode in (1, 2) and st.out == 0

    def _pulled_low(self, gpio: int) -> bool:
        if self.diodes:
            # A diode per key lets a low row pull only its own column low.
            return any(c == gpio and self._driven_low(r) for r, c in self.pressed)
        # No diodes: closed keys join rows and columns into nets; a column reads low if
        # its net holds a row driven low, however many keys the path crosses.
        seen = {("c", gpio)}
        todo = [("c", gpio)]
        while todo:
            kind, g = todo.pop()
            if kind == "r" and self._driven_low(g):
                return True
            for r, c in self.pressed:
                nxt = ("r", r) if (kind == "c" and c == g) else ("c", c) if (kind == "r" and r == g) else None
                if nxt is not None and nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    # -- what a test or the emulator does to the panel ------------------------------

    def press(self, row_gpio: int, col_gpio: int, down: bool = True) -> None:
        with self.lock:
            (self.pressed.add if down else self.pressed.discard)((row_gpio, col_gpio))

    def set_level(self, gpio: int, value: int) -> None:
        with self.lock:
            self.levels[gpio] = value


class _PinState:
    __slots__ = ("mode", "pull", "out")

    def __init__(self):
        self.mode, self.pull, self.out = 0, 0, 1


class _Mem32:
    """machine.mem32: only the SIO GPIO input register is readable."""

    def __init__(self, machine: FakeMachine):
        self.machine = machine

    def __getitem__(self, addr: int) -> int:
        if addr != SIO_GPIO_IN:
            raise ValueError(f"fake mem32: address {addr:#x} not simulated")
        word = 0
        for g in range(30):
            if self.machine.level(g):
                word |= 1 << g
        return word


class FakeClock:
    """MicroPython's time ticks, advanced by hand: sleep_us moves time forward."""

    def __init__(self, start_us: int = 0):
        self.us = start_us

    def ticks_us(self) -> int:
        return self.us

    def ticks_ms(self) -> int:
        return self.us // 1000

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    @staticmethod
    def ticks_add(a: int, d: int) -> int:
        return a + d

    def sleep_us(self, n: int) -> None:
        self.us += max(0, int(n))

    def sleep_ms(self, n: int) -> None:
        self.sleep_us(n * 1000)

    def advance(self, seconds: float) -> None:
        self.us += int(seconds * 1e6)


class RealClock:
    """MicroPython's time ticks on the PC's monotonic clock (for the emulator)."""

    @staticmethod
    def ticks_us() -> int:
        return time.monotonic_ns() // 1000

    @staticmethod
    def ticks_ms() -> int:
        return time.monotonic_ns() // 1_000_000

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    @staticmethod
    def ticks_add(a: int, d: int) -> int:
        return a + d

    @staticmethod
    def sleep_us(n: int) -> None:
        if n > 0:
            time.sleep(n / 1e6)

    def sleep_ms(self, n: int) -> None:
        self.sleep_us(n * 1000)
