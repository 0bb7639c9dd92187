"""An emulated co-processor: the real firmware loop (firmware/app.py) on a fake
`machine`, speaking over a real pseudo-terminal, so the real pyserial link can be tested
end to end and a maker can try the Pi side without a board.

The pty stands in for the Pico's USB CDC port: `port` is the path pyserial opens.
unplug() closes it (the link's next read fails, as when the cable comes out), replug()
makes a new one under a new name (as a board that comes back as another /dev/ttyACM),
hang() stops the loop without closing the port (a hung board: silent, until the
emulated watchdog resets it, if `watchdog` is on).
"""

from __future__ import annotations

import errno
import os
import threading
import time
import tty

from panel.firmware import analog as fwanalog
from panel.firmware import app as fwapp
from panel.firmware import config as fwconfig
from panel.firmware import protocol
from panel.link.fake_machine import BoardReset, FakeMachine


class RealClock:
    """MicroPython's time ticks on the PC's monotonic clock."""

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
        # Row settle waits (tens of us) would cost a Python sleep each (~60 us): there are
        # no wires to settle here, so they are skipped. The loop's own pacing still sleeps.
        if n >= 200:
            time.sleep(n / 1e6)

    def sleep_ms(self, n: int) -> None:
        self.sleep_us(n * 1000)


class PtyPort:
    """The board's end of the pty: never blocks, like the firmware's USB port. write()
    says how much the pty took (0 when its buffer is full: nobody reading)."""

    def __init__(self, fd: int, wire=None):
        self.fd = fd
        self.wire = wire
        self.dropped = 0

    def read(self) -> bytes:
        try:
            return os.read(self.fd, 4096)
        except BlockingIOError:
            return b""
        except OSError as e:  # EIO: no one has the other end open
            if e.errno == errno.EIO:
                return b""
            raise

    def write(self, data: bytes) -> int:
        size = len(data)
        if self.wire is not None:
            data = self.wire.on_the_wire(bytes(data))  # (the board's outbox hands over memoryviews)
        try:
            n = os.write(self.fd, data)
        except BlockingIOError:
            return 0  # the pty is full: the board's outbox keeps the frame
        except OSError:
            self.dropped += 1  # the cable is out: the bytes are lost, as on a real board
            return size
        return size if n == len(data) else min(n, size - 1)


class FirmwareEmulator:
    """A context manager; close() is idempotent."""

    def __init__(self, config: dict, *, uid: bytes = b"\xe6\x61\x41\x03\xe7\x45\x2d\x2f",
                 version: str = fwapp.FIRMWARE_VERSION,
                 protocol_version: int = protocol.PROTOCOL_VERSION,
                 diodes: bool = True, watchdog: bool = True, store_config: bool = True):
        problems = fwconfig.validate(config)
        if problems:
            raise ValueError("firmware config: " + "; ".join(problems))
        self.config = dict(config)
        self.clock = RealClock()
        self.machine = FakeMachine(uid=uid, diodes=diodes, clock=self.clock)
        self.store = fwapp.MemoryStore(self.config if store_config else None)
        self.version = version
        self.protocol_version = protocol_version
        self.watchdog = watchdog
        self.boots = 0
        self._mangler = None
        self._mangle_left = 0
        self.in_maintenance = False
        self.board: fwapp.Coprocessor | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self.port: str | None = None
        self._hung = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- lifetime -------------------------------------------------------------------

    def start(self) -> "FirmwareEmulator":
        self._plug()
        self._thread = threading.Thread(target=self._run, name="firmware-emulator", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._unplug_fds()

    def __enter__(self) -> "FirmwareEmulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the USB cable ------------------------------------------------------------------

    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)  # no echo, no newline translation: a clean byte pipe like USB CDC
        os.set_blocking(master, False)
        with self._lock:
            old_slave = self._slave
            self._master, self._slave = master, slave
            self.port = os.ttyname(slave)
            self._boot()
        if old_slave is not None:
            # Held open until the new pty exists, so the new one gets a different name.
            os.close(old_slave)

    def _unplug_fds(self) -> None:
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    try:
                        os.close(fd)
                    except OSError:
                        pass
            self._master = self._slave = None
            self.board = None

    def unplug(self) -> None:
        """The cable comes out: the port closes and the board loses power."""
        with self._lock:
            if self._master is not None:
                os.close(self._master)
                self._master = None
            self.board = None

    def replug(self) -> str:
        """The cable goes back in: the board boots, under a new port name."""
        self._hung.clear()
        self._plug()
        return self.port

    def hang(self) -> None:
        """The firmware stops running (port stays open): silence, then the watchdog.
        When this returns, no scan step is under way and none will run until a reset."""
        self._hung.set()
        with self._lock:
            pass

    def reset(self) -> None:
        """The board restarts on the same port (as after a watchdog reset)."""
        with self._lock:
            self._hung.clear()
            self._boot()

    def _boot(self) -> None:
        m = self.machine
        m.reset_pins()
        self.boots += 1
        if self.store.take_maint():
            # main.py's maintenance mode: no app, no watchdog, the REPL left to mpremote
            self.board = None
            self.in_maintenance = True
            return
        self.in_maintenance = False
        self.board = fwapp.Coprocessor(m, self.clock, PtyPort(self._master, self), self.store.load(), store=self.store,
                                 version=self.version, proto=self.protocol_version)

    # -- the panel ------------------------------------------------------------------------

    def press(self, row: int, col: int, down: bool = True) -> None:
        self.machine.press(self.config["rows"][row], self.config["cols"][col], down)

    def release(self, row: int, col: int) -> None:
        self.press(row, col, False)

    def set_adc(self, channel: int, value_u16: int) -> None:
        self.machine.adc_values[self.config["adc"][channel]] = int(value_u16)

    def turn(self, encoder: int, detents: int) -> None:
        """Turn an encoder by whole detents: Gray code A/B levels, each held until the
        board has polled it twice (a real hand is far slower than the 1 kHz poll)."""
        a, b = self.config["encoders"][encoder]
        seq = [(0, 1), (0, 0), (1, 0), (1, 1)] if detents > 0 else [(1, 0), (0, 0), (0, 1), (1, 1)]
        for _ in range(abs(detents)):
            for la, lb in seq:
                self.machine.set_level(a, la)
                self.machine.set_level(b, lb)
                self.wait_scans(2)

    def wait_scans(self, n: int, timeout: float = 30.0) -> None:
        """Block until the board loop has run n more scans (or the board is gone, or
        hung). TimeoutError if it has not within `timeout` (a stalled machine)."""
        board = self.board
        if board is None:
            return
        target = board.scans + n
        end = time.monotonic() + timeout
        while board.scans < target and self.board is board and not self._hung.is_set():
            if time.monotonic() > end:
                raise TimeoutError(f"the emulated board ran {board.scans - target + n} of {n} scans "
                                   f"in {timeout:g} s")
            time.sleep(0.0005)

    def wait_analog(self) -> None:
        """Block until the board's analog filters have followed the values set on their
        pins, however far they moved: every move the board will report is then sent."""
        board = self.board
        if board is not None:
            self.wait_scans(fwanalog.FOLLOW_SAMPLES * max(1, len(board.analog.adcs)) + 1)

    def mangle(self, fn, count: int = 1) -> None:
        """Pass the board's frames through fn until it has changed `count` of them
        (a frame garbled on the wire)."""
        self._mangle_left = count
        self._mangler = fn

    def on_the_wire(self, frame: bytes) -> bytes:
        fn = self._mangler
        if fn is None:
            return frame
        out = fn(frame)
        if out != frame:
            self._mangle_left -= 1
            if self._mangle_left <= 0:
                self._mangler = None
        return out

    def send_raw(self, data: bytes) -> None:
        """Bytes straight onto the wire from the board's side (garbage, torn frames)."""
        with self._lock:
            if self._master is not None:
                PtyPort(self._master).write(data)

    # -- the loop ---------------------------------------------------------------------------

    def _run(self) -> None:
        clock = self.clock
        due = clock.ticks_us()
        while not self._stop.is_set():
            with self._lock:
                board = self.board
                if board is not None and not self._hung.is_set():
                    try:
                        board.step()
                    except BoardReset:
                        self._boot()  # MAINT or RESET: reboot on the same port
                elif board is not None and self.watchdog and self.machine.watchdog_expired():
                    self._hung.clear()
                    self._boot()
            period = board.period_us if board is not None else 1000
            due += period
            wait = due - clock.ticks_us()
            if wait > 0:
                time.sleep(wait / 1e6)
            elif wait < -20 * period:
                due = clock.ticks_us()
