# The board's main loop: scan, debounce, sample, report, obey commands, feed the
# watchdog. MicroPython-compatible subset; the Pi's tests and emulator run this same
# code under CPython with a fake `machine`, a clock and a pty in place of USB.
#
# Everything the board touches is passed in (machine module, clock, port, store), so
# nothing here reaches for a global; main.py wires in the real ones on the board.
#
# Play allocates nothing (no garbage, so no collection pauses on the RP2040's small heap):
# a step's state lives in arrays made once, the clock and counters wrap within
# MicroPython's small integers, and the frames of play (all numbers) are written straight
# into the outbox. Commands from the Pi do allocate; the board collects after them, at a
# moment it chooses (Coprocessor.tidy). tests/test_firmware_micropython.py measures it under
# MicroPython; on the RP2040 the hot loop is rp2fast's machine code (see rp2fast.py).

from array import array

try:  # on the Pi: panel.firmware.*
    from . import protocol
    from . import config as configmod
    from .matrix import Matrix
    from .analog import Analog, A_CH
    from .encoder import Encoder
except ImportError:  # on the board every file sits at the top of the filesystem
    import protocol
    import config as configmod
    from matrix import Matrix
    from analog import Analog, A_CH
    from encoder import Encoder

FIRMWARE_VERSION = "0.2.0"
CONFIG_FILE = "config.json"
MAINT_FILE = "maint"
# Output to the Pi never holds up the scan loop: frames wait in an outbox of this many
# bytes (two of the longest frames); each scan step makes one write of what the port
# takes without waiting (at most WRITE_STEP bytes: one USB packet on the board); when
# the Pi stops reading and the outbox is full, the oldest frames are dropped and counted
# (BEAT drop=). The Pi sees the gap in sequence numbers and asks for a SNAP.
OUTBOX_BYTES = 2 * protocol.MAX_LINE
WRITE_STEP = 64
_MASK = protocol.MAX_N  # counters and the board clock wrap here (small integers)
_SEQ = protocol.SEQ_MOD - 1  # and sequence numbers here

# The board's clock and what a step's inputs found (Coprocessor.clk): the timer's last
# microseconds (rp2fast's: the tick() twin keeps the clock's own ticks), microseconds not
# yet a millisecond, the board's ms, scans made, the ms of the last heartbeat, the
# heartbeat's period, the slider value found, the encoders that moved (bit i: encoder i).
C_TIMER, C_REM, C_MS, C_SCANS, C_BEAT, C_HEART, C_ADC, C_ENC = 0, 1, 2, 3, 4, 5, 6, 7
# What Coprocessor.inputs returns: the number of key events (in matrix.ev), and bits for an
# encoder moved, a slider value to report, a heartbeat due.
W_KEYS, W_ENC, W_ADC, W_BEAT = 0x7F, 0x80, 0x100, 0x200
W_REPORT = W_KEYS | W_ENC | W_ADC

# The all-number frames, written without allocation (protocol.number_template).
DOWN, UP, ADC, ENC, BEAT, PONG = [protocol.number_template(protocol.BOARD_TO_PI, k)
                                  for k in ("DOWN", "UP", "ADC", "ENC", "BEAT", "PONG")]
NUMBERS_MAX = max([protocol.number_frame_max(t) for t in (DOWN, UP, ADC, ENC, BEAT, PONG)])


# The outbox's numbers (Outbox.vals): the next frame's sequence number, the fields of
# the next all-number frame, where the buffer's newlines begin (see Outbox), the last
# position an all-number frame may start at.
V_SEQ, V_CLEAN, V_LAST = 0, 5, 6


# The twins of rp2fast.queue and rp2fast.cut, as loops: like them they allocate nothing
# under MicroPython (a slice assignment would allocate a slice object).

def _queue(buf, size, tmpl, vals):
    # the frame at buf[size:], the newlines after it mended; -1 if it might not fit
    if size > vals[V_LAST]:
        return -1
    end = protocol.put_numbers(buf, size, tmpl, vals)
    for i in range(end, vals[V_CLEAN]):
        buf[i] = 10
    vals[V_CLEAN] = end
    vals[V_SEQ] = (vals[V_SEQ] + 1) & _SEQ
    return end


def _cut(buf, start, end, size):
    # buf[start:end] taken out of buf[:size], newlines behind
    n = end - start
    for i in range(start, size - n):
        buf[i] = buf[i + n]
    for i in range(size - n, size):
        buf[i] = 10


def _line_end(buf, i, n):
    """The index after the first '\n' in buf[i:n], or -1."""
    i = buf.find(b"\n", i, n)
    return i + 1 if i >= 0 else -1


class _Waiting:
    """Outbox.frames: the frames waiting, each as bytes (the first maybe partly written
    already), for tests and diagnostics. An object of its own rather than a property: a
    class with a property pays a lookup in the class at every attribute store (MicroPython),
    and the outbox stores at every frame."""

    def __init__(self, out):
        self.out = out

    def _frames(self):
        return [f + b"\n" for f in bytes(self.out.buf[:self.out.size]).split(b"\n")[:-1]]

    def __len__(self):
        return len(self._frames())

    def __iter__(self):
        return iter(self._frames())

    def __getitem__(self, i):
        return self._frames()[i]


class Outbox:
    """Frames waiting for the port, oldest first (see OUTBOX_BYTES), in one buffer made
    once: the bytes waiting are always buf[:size], whole frames but the first, which may
    have been partly written already; past them the buffer holds newlines. An
    all-number frame goes straight into it (put_numbers), and the port is handed views
    of it made once: sending allocates nothing. A port that takes whole packets only
    (port.PACKET: the board's USB) is handed a full packet even when fewer bytes wait:
    the frames, then newlines (which receivers skip), with no copy. The frames a packet
    carried are not wiped when it has gone: the next frame put in wipes what it does not
    overwrite (vals[V_CLEAN]: the newlines start there, or at size), so a send is one
    write and nothing else."""

    def __init__(self, port, limit=OUTBOX_BYTES, fast=None):
        self.port = port
        self.limit = limit
        self.buf = bytearray(b"\n" * limit)
        self.size = 0          # bytes waiting
        self.partial = False   # buf[0] is inside a frame whose start was written
        self.dropped = 0       # frames dropped since boot (wraps like every counter)
        self.vals = array("i", [0] * 7)  # see V_*: [1:5] the next all-number frame's fields
        self.vals[V_LAST] = limit - NUMBERS_MAX
        self.packet = getattr(port, "PACKET", 0)
        view = memoryview(self.buf)
        self._views = [view[:k] for k in range(WRITE_STEP + 1)]  # buf[:k] for every write
        self._packet = self._views[WRITE_STEP]
        self._queue = _queue if fast is None else fast.queue
        self._cut = _cut if fast is None else fast.cut
        self.frames = _Waiting(self)

    def seq(self):
        """The sequence number of the next frame, taken."""
        s = self.vals[V_SEQ]
        self.vals[V_SEQ] = (s + 1) & _SEQ
        return s

    def put_numbers(self, tmpl):
        """Queue the frame of template `tmpl` with the numbers in self.vals[1:5]."""
        end = self._queue(self.buf, self.size, tmpl, self.vals)
        if end < 0:
            if self._room(NUMBERS_MAX):
                end = self._queue(self.buf, self.size, tmpl, self.vals)
            else:
                self.seq()  # dropped: its number is missing, which the Pi notices
                return
        self.size = end

    def put(self, frame):
        """Queue a frame made by protocol.encode."""
        n = len(frame)
        if self.size + n > self.limit and not self._room(n):
            return
        end = self.size + n
        self.buf[self.size:end] = frame
        clean = self.vals[V_CLEAN]
        if clean > end:
            self.buf[end:clean] = b"\n" * (clean - end)
        self.vals[V_CLEAN] = self.size = end

    def _room(self, n):
        # Drop whole frames, oldest first, but never one partly written: the Pi would
        # get a torn line (it would drop it, but a clean gap is clearer). False when
        # even that leaves no room: the new frame is the one dropped.
        buf = self.buf
        start = _line_end(buf, 0, self.size) if self.partial else 0
        while self.size + n > self.limit:
            end = _line_end(buf, start, self.size)
            self.dropped = (self.dropped + 1) & _MASK
            if end < 0:
                return False
            self._cut(buf, start, end, self.size)
            self.size -= end - start
            self.vals[V_CLEAN] = self.size
        return True

    def flush(self, writes=1):
        """Hand the port what it takes now, in at most `writes` calls (one a scan step:
        the bound on the time a step spends on output); never waits."""
        while writes > 0 and self.size:
            writes -= 1
            size = self.size
            if self.packet:  # the board's USB: a whole packet (the frames, then newlines) or nothing
                if not self.port.send(self._packet):
                    return
                n = WRITE_STEP
            else:
                n = self.port.write(self._views[size if size < WRITE_STEP else WRITE_STEP])
                if not n:
                    return
            if n >= size:  # all of it (the rest of a packet: newlines)
                self.size = 0
                self.partial = False
                return
            self.partial = self.buf[n - 1] != 10
            self._cut(self.buf, 0, n, size)
            self.vals[V_CLEAN] = self.size = size - n


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


class Coprocessor:
    """The port: read() -> bytes (b"" when nothing came, never waits) and write(bytes) ->
    how many bytes it took without waiting (0 when it would have to wait).

    fast: rp2fast on the RP2040 (its machine code does the hot loop), else None.
    collect: the garbage collector's gc.collect on the board, run at a quiet step after
    one that made garbage (see tidy()); None where the host's collector is left alone."""

    def __init__(self, machine, clock, port, cfg=None, store=None,
                 version=FIRMWARE_VERSION, proto=protocol.PROTOCOL_VERSION, boot_id=None, fast=None,
                 collect=None):
        self.machine = machine
        self.clock = clock
        self.port = port
        self.fast = fast
        self.collect = collect
        self.litter = True      # garbage left since the last collection (booting leaves some)
        self.out = Outbox(port, fast=fast)
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
        self.clk = array("i", [0] * 8)  # see C_*
        self._last = clock.ticks_us()
        if fast is None:
            self._inputs = self.inputs
        else:
            self._inputs = fast.inputs
            fast.tick(self.clk)  # the timer's microseconds now: the board's ms start at 0
            self.clk[C_REM] = self.clk[C_MS] = 0
        self.rate = 0
        self._beat_scans = 0
        self.wdt = None
        self.configure(cfg)
        self.hello()
        self.snapshot()
        self.out.flush(OUTBOX_BYTES)  # at boot there is no scan to hold up

    @property
    def seq(self):
        """The sequence number the next frame will carry."""
        return self.out.vals[V_SEQ]

    @property
    def ms(self):
        """The board's uptime in ms: the t= of every frame."""
        return self.clk[C_MS]

    @property
    def scans(self):
        """Scans made since boot (wraps like every counter)."""
        return self.clk[C_SCANS]

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
        fast = self.fast
        self.matrix = Matrix(m, c["rows"], c["cols"], release_ms=c["release_ms"], settle_us=c["settle_us"],
                             diodes=c["diodes"], sleep_us=self.clock.sleep_us, fast=fast)
        self.analog = Analog(m, c["adc"], oversample=c["adc_oversample"], deadband=c["adc_deadband"], fast=fast)
        self.analog.settle()
        # Read the keys once before any snapshot: a key held through a reset must be in
        # the first SNAP, or the Pi would see a release and a press that never happened.
        self.matrix.scan(self.ms)
        self.encoders = [Encoder(m, e[0], e[1], c["encoder_div"], fast=fast) for e in c["encoders"]]
        self.period_us = 1000000 // c["scan_hz"]
        self.clk[C_HEART] = c["heartbeat_ms"]
        if self.wdt is None:  # the RP2040 watchdog cannot be stopped or retimed once started
            self.wdt = m.WDT(timeout=c["wdt_ms"])

    # -- output --------------------------------------------------------------

    def send(self, kind, values=()):
        """Queue a message for the Pi: `values` in the order of its fields in
        protocol.BOARD_TO_PI. Written out at the end of the step (see Outbox). This
        allocates (pack, encode): the all-number kinds go through out.put_numbers() instead."""
        seq = self.out.seq()
        try:
            frame = protocol.encode(seq, kind, protocol.pack(protocol.BOARD_TO_PI, kind, values))
        except ValueError:
            frame = protocol.encode(seq, "ERR", ["internal", "unencodable", kind])
        self.out.put(frame)
        self.litter = True

    def hello(self):
        c = self.cfg
        self.send("HELLO", (self.version, self.proto, self.uid, self.boot_id, len(c["rows"]), len(c["cols"]),
                            len(c["adc"]), len(c["encoders"]), self.cfg_crc, self.ms))

    def snapshot(self):
        self.send("SNAP", (self.ms, self.matrix.down(), self.analog.values(), [e.position for e in self.encoders]))

    def beat(self):
        v = self.out.vals
        v[1] = self.clk[C_MS]
        v[2] = self.rate
        v[3] = self.parser.rejected & _MASK
        v[4] = self.out.dropped
        self.out.put_numbers(BEAT)

    # -- the loop ------------------------------------------------------------

    def tick(self, clk):
        """The board's ms from its clock (see C_*); rp2fast.tick does the same."""
        now = self.clock.ticks_us()
        rem = clk[C_REM] + self.clock.ticks_diff(now, self._last)
        self._last = now
        if rem >= 1000:
            k = rem // 1000
            clk[C_MS] = (clk[C_MS] + k) & _MASK  # wraps as PROTOCOL.md says; the Pi unwraps
            rem -= k * 1000
        clk[C_REM] = rem
        return clk[C_MS]

    def inputs(self, clk, matrix, analog, encoders):
        """A step's reading of every input: the clock, the keys (their events in
        matrix.ev), the encoders, the next slider; what there is to report, as W_* bits
        (the details in clk). rp2fast.inputs does the same in one call of machine code:
        on the RP2040 each Python call here costs ~10 us, more than the work."""
        ms = self.tick(clk)
        w = matrix.scan(ms)
        moved = 0
        for i in range(len(encoders)):
            if encoders[i].poll() is not None:
                moved |= 1 << i
        if moved:
            clk[C_ENC] = moved
            w |= W_ENC
        v = analog.step()
        if v >= 0:
            clk[C_ADC] = v
            w |= W_ADC
        clk[C_SCANS] = (clk[C_SCANS] + 1) & _MASK
        if ((ms - clk[C_BEAT]) & _MASK) >= clk[C_HEART]:
            w |= W_BEAT
        return w

    def step(self):
        """One scan cycle. Allocates nothing unless there is something to send (and
        keeps few locals: a larger call frame would go on the heap at every step)."""
        w = self._inputs(self.clk, self.matrix, self.analog, self.encoders)
        if w & W_REPORT:
            self.report(w)
        n = self.port.read()
        if n:
            self.received(n)
        if w & W_BEAT:
            self.heartbeat()
        if self.out.size:
            self.out.flush()
        elif self.litter:
            self.tidy()
        self.wdt.feed()

    def report(self, w):
        """The frames for what inputs() found."""
        if w & W_KEYS:
            self.keys(w & W_KEYS)
        if w & W_ENC:
            self.moved(self.clk[C_ENC])
        if w & W_ADC:
            self.adc(self.clk[C_ADC])

    def tidy(self):
        """Collect the garbage a command or a text frame left, at the end of a step with
        nothing left to send: a pause of ~9 ms on the RP2040 (the collector marks the
        firmware's ~45 KB of live objects) between two scans, at a moment the board
        chose, rather than wherever an allocation finds the heap full (inside a scan,
        with a key's frame waiting). Play makes no garbage, so during play it never runs."""
        self.litter = False
        if self.collect is not None:
            self.collect()

    def received(self, data):
        self.litter = True  # reading and parsing allocate
        for f in self.parser.feed(data):
            self.command(f[1], f[2])

    # (kept out of step(): a function with more locals puts its frame on the heap)
    def keys(self, n):
        # (few locals: a larger call frame would go on the heap)
        v = self.out.vals
        for i in range(n):
            e = self.matrix.ev[i]
            v[1] = (e >> 4) & 7
            v[2] = e & 15
            v[3] = self.clk[C_MS]
            self.out.put_numbers(DOWN if e & 128 else UP)

    def moved(self, bits):
        v = self.out.vals
        for i in range(len(self.encoders)):
            if bits & (1 << i):
                v[1] = i
                v[2] = self.encoders[i].position
                v[3] = self.clk[C_MS]
                self.out.put_numbers(ENC)

    def adc(self, value):
        v = self.out.vals
        v[1] = self.analog.p[A_CH]
        v[2] = value
        v[3] = self.clk[C_MS]
        self.out.put_numbers(ADC)

    def heartbeat(self):
        clk = self.clk
        span = (clk[C_MS] - clk[C_BEAT]) & _MASK
        self.rate = ((clk[C_SCANS] - self._beat_scans) & _MASK) * 1000 // span
        self._beat_scans = clk[C_SCANS]
        clk[C_BEAT] = clk[C_MS]
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
            v = self.out.vals
            v[1] = m["n"] or 0
            v[2] = self.clk[C_MS]
            self.out.put_numbers(PONG)
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
    write, and it never waits. The outbox hands over whole packets (PACKET: a frame's
    end shorter than a packet followed by newlines, which every receiver skips as blank
    lines, PROTOCOL.md) to send(), so each goes out as it is: one write() of a view made
    once, no copy, no garbage. Anything shorter given to write() is padded here."""

    WRITE_STEP = WRITE_STEP  # bytes per scan step: 64 kB/s at 1 kHz, far more than the panel says
    PACKET = WRITE_STEP
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
        self.room = 0  # this step's poll saw room for a packet (used by one write)
        self._out = self.stdout.write

    def _poll(self, poll):
        for _, ev in poll.ipoll(0):  # ipoll reuses its result: no allocation
            return ev
        return 0

    def read(self):
        """Called first in each step: the step's one poll happens here."""
        f = 0
        for _, f in self.poll.ipoll(0):  # (the poll inline: a call costs ~10 us on the board)
            break
        self.room = f & self.POLLOUT
        if not f & self.POLLIN:
            return b""
        data = self.stdin.read(1)
        n = 1
        while n < self.READ_STEP and self._poll(self.rpoll):
            data += self.stdin.read(1)
            n += 1
        return data

    def send(self, packet):
        """Write one whole packet (WRITE_STEP bytes) if USB has room for it now; whether
        it went. Room seen by the step's poll is used once; a second write polls."""
        if not self.room and not self._poll(self.poll) & self.POLLOUT:
            return False
        self.room = 0
        self._out(packet)
        return True

    def write(self, data):
        """send() for any bytes: at most a packet's worth taken, a short end padded."""
        k = len(data)
        if not self.send(data if k == self.WRITE_STEP else self._packet(data, k)):
            return 0
        return k if k < self.WRITE_STEP else self.WRITE_STEP

    def _packet(self, data, k):
        if k > self.WRITE_STEP:
            return memoryview(data)[:self.WRITE_STEP]
        return bytes(data) + b"\n" * (self.WRITE_STEP - k)
