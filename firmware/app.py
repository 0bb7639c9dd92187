# The board's main loop: scan, debounce, sample, report, obey commands, feed the
# watchdog. MicroPython-compatible subset; the Pi's tests and emulator run this same
# code under CPython with a fake `machine`, a clock and a pty in place of USB.
#
# Everything the board touches is passed in (machine module, clock, port, store), so
# nothing here reaches for a global; main.py wires in the real ones on the board.

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

FIRMWARE_VERSION = "0.1.0"
CONFIG_FILE = "config.json"
MAINT_FILE = "maint"


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
    def __init__(self, machine, clock, port, cfg=None, store=None,
                 version=FIRMWARE_VERSION, proto=protocol.PROTOCOL_VERSION):
        self.machine = machine
        self.clock = clock
        self.port = port
        self.store = store
        self.version = version
        self.proto = proto
        self.parser = protocol.Parser(typed=True)
        self.uid = _hex(machine.unique_id())
        # A fresh number every boot: the Pi tells a restarted board from a reconnected
        # one by it (random is seeded from the ring oscillator on the RP2040).
        try:
            import random
            self.boot_id = "%04X%04X" % (random.getrandbits(16), random.getrandbits(16))
        except ImportError:
            self.boot_id = "%08X" % (clock.ticks_us() & 0x7FFFFFFF)
        self.seq = 0
        self.ms = 0             # board uptime in ms: the t= of every frame
        self._rem = 0
        self._last = clock.ticks_us()
        self.scans = 0
        self.rate = 0
        self._beat_scans = 0
        self._beat_ms = 0
        self.wdt = None
        self._ev = []
        self._aev = []
        self.configure(cfg)
        self.hello()
        self.snapshot()

    # -- setup ---------------------------------------------------------------

    def configure(self, cfg):
        problems = ["config.json missing: no inputs until the Pi sends a config"] if cfg is None \
            else configmod.validate(cfg)
        if problems:
            for p in problems:
                self.send("ERR", ["config"] + p.split())
            cfg = {}
        c = configmod.complete(cfg)
        self.cfg = c
        self.cfg_crc = protocol.crc16(configmod.canonical(c).encode())
        m = self.machine
        self.matrix = Matrix(m, c["rows"], c["cols"], release_ms=c["release_ms"], scan_hz=c["scan_hz"],
                             settle_us=c["settle_us"], diodes=c["diodes"], sleep_us=self.clock.sleep_us)
        self.analog = Analog(m, c["adc"], oversample=c["adc_oversample"], deadband=c["adc_deadband"])
        self.analog.settle()
        # Read the keys once before any snapshot: a key held through a reset must be in
        # the first SNAP, or the Pi would see a release and a press that never happened.
        self.matrix.scan([])
        self.encoders = [Encoder(m, e[0], e[1], c["encoder_div"]) for e in c["encoders"]]
        self.period_us = 1000000 // c["scan_hz"]
        if self.wdt is None:  # the RP2040 watchdog cannot be stopped or retimed once started
            self.wdt = m.WDT(timeout=c["wdt_ms"])

    # -- output --------------------------------------------------------------

    def send(self, kind, args=()):
        try:
            frame = protocol.encode(self.seq, kind, args)
        except ValueError:
            frame = protocol.encode(self.seq, "ERR", ["internal", "unencodable", kind])
        self.seq = (self.seq + 1) % protocol.SEQ_MOD
        self.port.write(frame)

    def hello(self):
        c = self.cfg
        self.send("HELLO", ["fw=" + self.version, "proto=" + str(self.proto), "uid=" + self.uid,
                            "rows=" + str(len(c["rows"])), "cols=" + str(len(c["cols"])),
                            "adc=" + str(len(c["adc"])), "enc=" + str(len(c["encoders"])),
                            "cfg=%04X" % self.cfg_crc, "boot=" + self.boot_id, "t=" + str(self.ms)])

    def snapshot(self):
        keys = ",".join(["%d.%d" % k for k in self.matrix.down()]) or "-"
        adc = ",".join([str(v) for v in self.analog.values()]) or "-"
        enc = ",".join([str(e.position) for e in self.encoders]) or "-"
        self.send("SNAP", ["t=" + str(self.ms), "keys=" + keys, "adc=" + adc, "enc=" + enc])

    def beat(self):
        self.send("BEAT", ["t=" + str(self.ms), "rate=" + str(self.rate), "rej=" + str(self.parser.rejected)])

    # -- the loop ------------------------------------------------------------

    def tick(self):
        now = self.clock.ticks_us()
        self._rem += self.clock.ticks_diff(now, self._last)
        self._last = now
        if self._rem >= 1000:
            k = self._rem // 1000
            self.ms += k
            self._rem -= k * 1000
        return self.ms

    def step(self):
        """One scan cycle."""
        t = str(self.tick())
        ev = self._ev
        self.matrix.scan(ev)
        for down, r, c in ev:
            self.send("DOWN" if down else "UP", [r, c, "t=" + t])
        del ev[:]
        for i in range(len(self.encoders)):
            p = self.encoders[i].poll()
            if p is not None:
                self.send("ENC", [i, p, "t=" + t])
        aev = self._aev
        self.analog.step(aev)
        for ch, v in aev:
            self.send("ADC", [ch, v, "t=" + t])
        del aev[:]
        data = self.port.read()
        if data:
            for f in self.parser.feed(data):
                self.command(f[1], f[2])
        self.scans += 1
        if self.ms - self._beat_ms >= self.cfg["heartbeat_ms"]:
            span = self.ms - self._beat_ms
            self.rate = (self.scans - self._beat_scans) * 1000 // span
            self._beat_scans = self.scans
            self._beat_ms = self.ms
            self.beat()
        self.wdt.feed()

    def run(self, steps=-1):
        """Scan at scan_hz for ever (or `steps` cycles, for tests)."""
        clock = self.clock
        period = self.period_us
        due = clock.ticks_us()
        while steps != 0:
            steps -= 1
            self.step()
            due = clock.ticks_add(due, period)
            wait = clock.ticks_diff(due, clock.ticks_us())
            if wait > 0:
                clock.sleep_us(wait)
            elif wait < -period:  # fell behind (a long write): do not try to catch up
                due = clock.ticks_us()

    # -- commands from the Pi --------------------------------------------------

    def command(self, kind, args):
        pos, kw = protocol.options(args)
        if kind == "HELLO":
            host = kw.get("proto")
            if host is not None and host != str(self.proto):
                self.send("ERR", ["version", "board", "speaks", "protocol", str(self.proto) + ",",
                                  "host", "speaks", "protocol", host])
            self.hello()
            self.snapshot()
        elif kind == "SNAP":
            self.snapshot()
        elif kind == "PING":
            self.send("PONG", pos[:1] + ["t=" + str(self.ms)])
        elif kind == "CFG":
            self.set_config(pos[0] if pos else "")
        elif kind == "MAINT":
            self.send("ACK", ["MAINT"])
            if self.store is not None:
                self.store.set_maint()
            self.machine.reset()
        elif kind == "RESET":
            self.send("ACK", ["RESET"])
            self.machine.reset()
        else:
            self.send("ERR", ["unknown", "command", kind])

    def set_config(self, text):
        try:
            import json
            cfg = json.loads(text)
        except (ValueError, ImportError):
            self.send("ERR", ["config", "not", "valid", "JSON"])
            return
        problems = configmod.validate(cfg)
        if problems:
            for p in problems:
                self.send("ERR", ["config"] + p.split())
            return
        canon = configmod.canonical(configmod.complete(cfg))
        if self.store is not None:
            self.store.save(canon)
        self.configure(cfg)
        self.send("ACK", ["CFG", "cfg=%04X" % self.cfg_crc])
        self.hello()
        self.snapshot()


class StdioPort:
    """USB serial on the board: sys.stdin/stdout, read without blocking."""

    def __init__(self, sys, select):
        self.stdin = sys.stdin.buffer if hasattr(sys.stdin, "buffer") else sys.stdin
        self.stdout = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else sys.stdout
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)

    def read(self):
        data = b""
        n = 0
        while n < 256 and self.poll.poll(0):  # bounded: a flood cannot starve the scan
            b = self.stdin.read(1)
            if not b:
                break
            data += b
            n += 1
        return data

    def write(self, frame):
        self.stdout.write(frame)
