# The board's main loop: scan, debounce, sample, report, obey commands, feed the
# watchdog. MicroPython-compatible subset; the Pi's tests and emulator run this same
# code under CPython with a fake `machine`, a clock and a pty in place of USB.
#
# Everything the board touches is passed in (machine module, clock, port, store), so
# nothing here reaches for a global; main.py wires in the real ones on the board.
#
# A scan step in which nothing happens allocates nothing (no garbage, so no collection
# pauses on the RP2040's small heap): the event lists are reused, the clock and counters
# wrap within MicroPython's small integers, and frames are only built when there is
# something to say. tests/test_firmware_micropython.py measures it under MicroPython.

try:  # on the Pi: panel.firmware.*
    from . import protocol
    from . import config as configmod
    from .matrix import Matrix
    from .analog import Analog
    from .encoder import Encoder
except ImportError:  # on the board every file sits at the top of the filesystem
    import protocol
    import config as configmod
    from matrix import Matrix
    from analog import Analog
    from encoder import Encoder

FIRMWARE_VERSION = "0.2.0"
CONFIG_FILE = "config.json"
MAINT_FILE = "maint"
# Output to the Pi never holds up the scan loop: frames wait in an outbox of this many
# bytes (two of the longest frames); each scan step makes one write of what the port
# takes without waiting (on the board at most StdioPort.WRITE_STEP bytes); when the Pi
# stops reading and the outbox is full, the oldest frames are dropped and counted (BEAT
# drop=). The Pi sees the gap in sequence numbers and asks for a SNAP.
OUTBOX_BYTES = 2 * protocol.MAX_LINE
_MASK = protocol.MAX_N  # counters and the board clock wrap here (small integers)


class Outbox:
    """Frames waiting for the port, oldest first; see OUTBOX_BYTES."""

    def __init__(self, port, limit=OUTBOX_BYTES):
        self.port = port
        self.limit = limit
        self.frames = []
        self.size = 0      # bytes waiting
        self.sent = 0      # bytes of frames[0] already written
        self.dropped = 0   # frames dropped since boot (wraps like every counter)

    def put(self, frame):
        self.frames.append(frame)
        self.size += len(frame)
        # Drop whole frames, oldest first, but never one half written: the Pi would get
        # a torn line (it would drop it, but a clean gap is clearer).
        first = 1 if self.sent else 0
        while self.size > self.limit and len(self.frames) > first + 1:
            self.size -= len(self.frames.pop(first))
            self.dropped = (self.dropped + 1) & _MASK

    def flush(self, writes=1):
        """Hand the port what it takes now, in at most `writes` calls (one a scan step:
        the bound on the time a step spends on output); never waits."""
        frames = self.frames
        while frames and writes > 0:
            writes -= 1
            head = frames[0]
            n = self.port.write(head if not self.sent else head[self.sent:])
            if not n:
                return
            self.sent += n
            if self.sent >= len(head):
                frames.pop(0)
                self.size -= len(head)
                self.sent = 0


def _hex(data):
    return "".join(["%02X" % b for b in data])


class FileStore:
    """config.json and the maintenance flag, on the board's flash."""

    def __init__(self, path=""):
        self.path = path

    def load(self):
        try:
            import json
        except ImportError:
            return None
        try:
            with open(self.path + CONFIG_FILE) as f:
                return json.loads(f.read())
        except (OSError, ValueError):
            return None

    def save(self, text):
        with open(self.path + CONFIG_FILE, "w") as f:
            f.write(text)

    def set_maint(self):
        with open(self.path + MAINT_FILE, "w") as f:
            f.write("1")

    def take_maint(self):
        """True once after set_maint(): the next boot skips the app (see main.py)."""
        import os
        try:
            os.remove(self.path + MAINT_FILE)
            return True
        except OSError:
            return False


class MemoryStore:
    """The same interface in RAM, for the emulator."""

    def __init__(self, cfg=None):
        self.text = None if cfg is None else configmod.canonical(cfg)
        self.maint = False

    def load(self):
        if self.text is None:
            return None
        import json
        return json.loads(self.text)

    def save(self, text):
        self.text = text

    def set_maint(self):
        self.maint = True

    def take_maint(self):
        m = self.maint
        self.maint = False
        return m


class Board:
    """The port: read() -> bytes (b"" when nothing came, never waits) and write(bytes) ->
    how many bytes it took without waiting (0 when it would have to wait)."""

    def __init__(self, machine, clock, port, cfg=None, store=None,
                 version=FIRMWARE_VERSION, proto=protocol.PROTOCOL_VERSION, boot_id=None):
        self.machine = machine
        self.clock = clock
        self.port = port
        self.out = Outbox(port)
        self.store = store
        self.version = version
        self.proto = proto
        self.parser = protocol.Parser(typed=True)
        self.uid = _hex(machine.unique_id())
        # A fresh number every boot: the Pi tells a restarted board from a reconnected
        # one by it (random is seeded from the ring oscillator on the RP2040).
        if boot_id is None:
            try:
                import random
                boot_id = "%04X%04X" % (random.getrandbits(16), random.getrandbits(16))
            except ImportError:
                boot_id = "%08X" % (clock.ticks_us() & 0x3FFFFFFF)
        self.boot_id = boot_id
        self.seq = 0
        self.ms = 0             # board uptime in ms: the t= of every frame
        self._rem = 0
        self._last = clock.ticks_us()
        self.scans = 0
        self.rate = 0
        self._beat_scans = 0
        self._beat_ms = 0
        self.wdt = None
        self.configure(cfg)
        self.hello()
        self.snapshot()
        self.out.flush(len(self.out.frames))  # at boot there is no scan to hold up

    # -- setup ---------------------------------------------------------------

    def configure(self, cfg):
        problems = ["config.json missing: no inputs until the Pi sends a config"] if cfg is None \
            else configmod.validate(cfg)
        if problems:
            for p in problems:
                self.send("ERR", ("config " + p,))
            cfg = {}
        c = configmod.complete(cfg)
        self.cfg = c
        self.cfg_crc = protocol.crc16(configmod.canonical(c).encode())
        m = self.machine
        self.matrix = Matrix(m, c["rows"], c["cols"], release_ms=c["release_ms"], settle_us=c["settle_us"],
                             diodes=c["diodes"], sleep_us=self.clock.sleep_us)
        self.analog = Analog(m, c["adc"], oversample=c["adc_oversample"], deadband=c["adc_deadband"])
        self.analog.settle()
        # Read the keys once before any snapshot: a key held through a reset must be in
        # the first SNAP, or the Pi would see a release and a press that never happened.
        self.matrix.scan(self.ms)
        self.encoders = [Encoder(m, e[0], e[1], c["encoder_div"]) for e in c["encoders"]]
        self.period_us = 1000000 // c["scan_hz"]
        if self.wdt is None:  # the RP2040 watchdog cannot be stopped or retimed once started
            self.wdt = m.WDT(timeout=c["wdt_ms"])

    # -- output --------------------------------------------------------------

    def send(self, kind, values=()):
        """Queue a message for the Pi: `values` in the order of its fields in
        protocol.BOARD_TO_PI. Written out at the end of the step (see Outbox)."""
        try:
            frame = protocol.encode(self.seq, kind, protocol.pack(protocol.BOARD_TO_PI, kind, values))
        except ValueError:
            frame = protocol.encode(self.seq, "ERR", ["internal", "unencodable", kind])
        self.seq = (self.seq + 1) % protocol.SEQ_MOD
        self.out.put(frame)

    def hello(self):
        c = self.cfg
        self.send("HELLO", (self.version, self.proto, self.uid, self.boot_id, len(c["rows"]), len(c["cols"]),
                            len(c["adc"]), len(c["encoders"]), self.cfg_crc, self.ms))

    def snapshot(self):
        self.send("SNAP", (self.ms, self.matrix.down(), self.analog.values(), [e.position for e in self.encoders]))

    def beat(self):
        self.send("BEAT", (self.ms, self.rate, self.parser.rejected & _MASK, self.out.dropped))

    # -- the loop ------------------------------------------------------------

    def tick(self):
        now = self.clock.ticks_us()
        self._rem += self.clock.ticks_diff(now, self._last)
        self._last = now
        if self._rem >= 1000:
            k = self._rem // 1000
            self.ms = (self.ms + k) & _MASK  # wraps as PROTOCOL.md says; the Pi unwraps
            self._rem -= k * 1000

    def step(self):
        """One scan cycle. Allocates nothing unless there is something to send (and
        keeps few locals: a larger call frame would go on the heap at every step)."""
        self.tick()
        n = self.matrix.scan(self.ms)
        if n:
            self.keys(n, self.ms)
        if self.encoders:
            self.poll_encoders(self.ms)
        v = self.analog.step()
        if v >= 0:
            self.send("ADC", (self.analog.ch, v, self.ms))
        n = self.port.read()
        if n:
            self.received(n)
        self.scans = (self.scans + 1) & _MASK
        if ((self.ms - self._beat_ms) & _MASK) >= self.cfg["heartbeat_ms"]:
            self.heartbeat()
        self.out.flush()
        self.wdt.feed()

    def received(self, data):
        for f in self.parser.feed(data):
            self.command(f[1], f[2])

    # (kept out of step(): a function with more locals puts its frame on the heap)
    def keys(self, n, t):
        ev = self.matrix.ev
        for i in range(n):
            e = ev[i]
            self.send("DOWN" if e & 128 else "UP", ((e >> 4) & 7, e & 15, t))

    def poll_encoders(self, t):
        for i in range(len(self.encoders)):
            p = self.encoders[i].poll()
            if p is not None:
                self.send("ENC", (i, p, t))

    def heartbeat(self):
        span = (self.ms - self._beat_ms) & _MASK
        self.rate = ((self.scans - self._beat_scans) & _MASK) * 1000 // span
        self._beat_scans = self.scans
        self._beat_ms = self.ms
        self.beat()

    def run(self, steps=-1):
        """Scan at scan_hz for ever (or `steps` cycles, for tests). The period is read
        at every cycle: a CFG that changes scan_hz changes the pace at once."""
        clock = self.clock
        forever = steps < 0
        due = clock.ticks_us()
        while forever or steps > 0:
            if not forever:
                steps -= 1
            self.step()
            period = self.period_us
            due = clock.ticks_add(due, period)
            wait = clock.ticks_diff(due, clock.ticks_us())
            if wait > 0:
                clock.sleep_us(wait)
            elif wait < -period:  # fell behind (a long write): do not try to catch up
                due = clock.ticks_us()

    # -- commands from the Pi --------------------------------------------------

    def command(self, kind, args):
        if kind not in protocol.PI_TO_BOARD:
            self.send("ERR", ("unknown command " + kind,))
            return
        try:
            # A HELLO from a host of another version: its proto= is all that is sure.
            m = protocol.unpack(protocol.PI_TO_BOARD, kind, args, only=("proto",) if kind == "HELLO" else None)
        except protocol.ProtocolError as e:
            self.send("ERR", ("bad " + kind + ": " + str(e),))
            return
        if kind == "HELLO":
            if m["proto"] is not None and m["proto"] != self.proto:
                self.send("ERR", ("version board speaks protocol " + str(self.proto) + ", host speaks protocol "
                                  + str(m["proto"]),))
            self.hello()
            self.snapshot()
        elif kind == "SNAP":
            self.snapshot()
        elif kind == "PING":
            self.send("PONG", (m["n"] or 0, self.ms))
        elif kind == "CFG":
            self.set_config(m["config"])
        elif kind == "MAINT":
            self.send("ACK", ("MAINT",))
            self.out.flush(64)  # the reset below ends the loop: say it now
            if self.store is not None:
                self.store.set_maint()
            self.machine.reset()
        elif kind == "RESET":
            self.send("ACK", ("RESET",))
            self.out.flush(64)
            self.machine.reset()

    def set_config(self, text):
        try:
            import json
            cfg = json.loads(text)
        except (ValueError, ImportError):
            self.send("ERR", ("config not valid JSON",))
            return
        problems = configmod.validate(cfg)
        if problems:
            for p in problems:
                self.send("ERR", ("config " + p,))
            return
        canon = configmod.canonical(configmod.complete(cfg))
        if self.store is not None:
            try:
                self.store.save(canon)
            except Exception as e:  # a full or failing flash: never a reason to stop scanning
                # Said once, for this CFG: the board runs on the config in memory (its
                # HELLO carries that config's checksum, so the Pi does not send it again).
                self.send("ERR", (protocol.ERR_SAVE + " config.json not saved (" + type(e).__name__ + " "
                                  + " ".join([str(a) for a in e.args]) + "): running on the new config in memory"
                                  " until the board restarts",))
        self.configure(cfg)
        self.send("ACK", ("CFG", self.cfg_crc))
        self.hello()
        self.snapshot()


class StdioPort:
    """USB serial on the board: sys.stdin/stdout, never waiting for the host.

    One poll a scan step (on the rp2 port every poll runs the USB stack), for both
    directions: sys.stdin registered for POLLIN and POLLOUT, since the rp2 port answers
    both from the same USB state. Reading takes what has arrived (at most READ_STEP
    bytes a step, so a flood cannot starve the scan; only then is the stack polled
    again, once per byte, as a read of more than has arrived would wait).

    Writing is where a board can hang: MicroPython's USB CDC write waits up to 500 ms
    for room when the host holds the port open without reading. Poll says only that
    there is room for one byte; so every write is exactly one USB packet (64 bytes, the
    CDC endpoint's size) and the TX FIFO (256 bytes, a multiple of it) then only ever
    holds whole packets: when poll says there is room, there is room for the whole
    write, and it never waits. A frame's end shorter than a packet goes out followed by newlines,
    which every receiver skips as blank lines (PROTOCOL.md). One write() of a
    preallocated buffer: no garbage."""

    WRITE_STEP = 64  # bytes per scan step: 64 kB/s at 1 kHz, far more than the panel says
    READ_STEP = 64

    def __init__(self, sys, select):
        self.stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
        self.stdout = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else sys.stdout
        self.POLLIN = select.POLLIN
        self.POLLOUT = select.POLLOUT
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN | select.POLLOUT)
        self.rpoll = select.poll()
        self.rpoll.register(sys.stdin, select.POLLIN)
        self.flags = 0
        self.pkt = bytearray(b"\n" * self.WRITE_STEP)
        # b"\n" * k for every k: puts a packet's padding back without an allocation
        self._nl = [b"\n" * k for k in range(self.WRITE_STEP + 1)]

    def _poll(self, poll):
        for _, ev in poll.ipoll(0):  # ipoll reuses its result: no allocation
            return ev
        return 0

    def read(self):
        """Called first in each step: the step's one poll happens here."""
        self.flags = f = self._poll(self.poll)
        if not f & self.POLLIN:
            return b""
        data = self.stdin.read(1)
        n = 1
        while n < self.READ_STEP and self._poll(self.rpoll):
            data += self.stdin.read(1)
            n += 1
        return data

    def write(self, data):
        f = self.flags
        self.flags = 0  # room seen by the step's poll is used once; a second write polls
        if not f & self.POLLOUT and not self._poll(self.poll) & self.POLLOUT:
            return 0
        k = len(data)
        if k >= self.WRITE_STEP:
            if k > self.WRITE_STEP:
                data = memoryview(data)[:self.WRITE_STEP]
            self.stdout.write(data)
            return self.WRITE_STEP
        # The end of a frame (the outbox hands over less than a packet only there): the
        # rest of the packet newlines.
        pkt = self.pkt
        pkt[:k] = data
        self.stdout.write(pkt)
        pkt[:k] = self._nl[k]
        return k
