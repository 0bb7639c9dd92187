"""The firmware's board loop driven by a script: pin levels a hand would make and frames
a host would send, on the fake machine and clock. The same code runs under CPython and
under MicroPython (tests/test_firmware_micropython.py copies this file next to the
firmware), so it is written in the subset both share, and it is handed the modules to
drive instead of importing them (they live in different places on the two sides).
"""

CONFIG = {"rows": [2, 3, 4], "cols": [10, 11, 12, 13], "adc": [26, 27], "encoders": [[20, 21]],
          "heartbeat_ms": 100}
# The CFG the host sends halfway: another pace, everything else the same.
SLOWER = {"rows": [2, 3, 4], "cols": [10, 11, 12, 13], "adc": [26, 27], "encoders": [[20, 21]],
          "heartbeat_ms": 100, "scan_hz": 200}
# One detent clockwise: the A/B levels (GP20, GP21) a turning knob makes.
DETENT = ((0, 1), (0, 0), (1, 0), (1, 1))


class Port:
    """The USB port: host frames in, board bytes out."""

    def __init__(self):
        self.inp = b""
        self.out = []

    def read(self):
        data = self.inp
        self.inp = b""
        return data

    def write(self, data):
        self.out.append(bytes(data))
        return len(data)

    def frames(self):
        """Frames written so far (each ends in its one newline)."""
        return sum([chunk.count(b"\n") for chunk in self.out])


def host_frame(protocol, kind, values=()):
    return protocol.encode(0, kind, protocol.pack(protocol.PI_TO_BOARD, kind, values))


def script(protocol, config):
    """(scan steps to run first, action, arguments), in order."""
    return (
        (20, "press", (3, 12)),                    # row 1, col 2 down ...
        (30, "release", (3, 12)),                  # ... and up after 30 scans
        (10, "press", (2, 10)),
        (5, "press", (4, 13)),                     # two keys held at once
        (5, "adc", (26, 45000)),                   # a slider moves
        (60, "turn", 2),                           # two detents
        (10, "host", host_frame(protocol, "PING", (7,))),
        (5, "host", b"snap\r\n"),                  # typed by a person
        (5, "host", b"\x00garbage\n"),             # noise on the line: counted (BEAT rej=)
        (5, "host", protocol.encode(0, "FOO")),    # a command the board does not know
        (5, "host", host_frame(protocol, "CFG", (config.canonical({"rows": [2, 2]}),))),  # refused
        (150, "release", (2, 10)),
        (10, "host", host_frame(protocol, "CFG", (config.canonical(SLOWER),))),
        (300, "release", (4, 13)),                 # at the new pace
        (300, "host", host_frame(protocol, "SNAP")),
        (10, None, None),
    )


def board(app, fake_machine, cfg, port):
    clock = fake_machine.FakeClock()
    m = fake_machine.FakeMachine(clock=clock)
    m.adc_values[26] = 20000
    m.adc_values[27] = 60000
    return m, app.Coprocessor(m, clock, port, cfg, boot_id="B007")


def run_script(app, protocol, config, fake_machine):
    """Everything the board sent while the script ran, as bytes."""
    port = Port()
    m, b = board(app, fake_machine, CONFIG, port)
    for steps, what, arg in script(protocol, config):
        b.run(steps)
        if what == "press":
            m.press(arg[0], arg[1])
        elif what == "release":
            m.press(arg[0], arg[1], False)
        elif what == "adc":
            m.adc_values[arg[0]] = arg[1]
        elif what == "turn":
            for _ in range(arg):
                for a, bb in DETENT:
                    m.set_level(20, a)
                    m.set_level(21, bb)
                    b.run(2)
        elif what == "host":
            port.inp += arg
    return b"".join(port.out)


def idle_allocation(app, fake_machine, mem_alloc, steps=1000):
    """Bytes the heap grew by over `steps` scan cycles of the real loop (Coprocessor.run) in
    which nothing changes: first with no key down, then with two keys held. Each span
    has no heartbeat in it (heartbeat_ms at its longest), so nothing is sent."""
    cfg = dict(CONFIG)
    cfg["heartbeat_ms"] = 5000
    cfg["wdt_ms"] = 8000
    port = Port()
    m, b = board(app, fake_machine, cfg, port)
    b.run(10)                       # past the boot frames
    sent = port.frames()
    a0 = mem_alloc()
    b.run(steps)
    a1 = mem_alloc()
    m.press(2, 10)
    m.press(4, 13)
    b.run(10)                       # the two DOWN frames
    held = port.frames()
    a2 = mem_alloc()
    b.run(steps)
    a3 = mem_alloc()
    assert port.frames() == held and held == sent + 2
    return a1 - a0, a3 - a2


class CountingPort:
    """A USB port that takes everything and keeps only the count (no allocation)."""

    def __init__(self):
        self.bytes = 0
        self.lines = 0

    def read(self):
        return b""

    def write(self, data):
        self.bytes += len(data)
        for b in data:
            if b == 10:
                self.lines += 1
        return len(data)


def frames_allocation(app, fake_machine, mem_alloc, deque, steps=1000):
    """(bytes the heap grew by, frames sent) over `steps` scan cycles that send frames:
    heartbeats every 50 ms and a slider swinging end to end (an ADC frame at most steps)."""
    cfg = dict(CONFIG)
    cfg["heartbeat_ms"] = 50
    port = CountingPort()
    m, b = board(app, fake_machine, cfg, port)
    swings = deque((), steps * 80)
    for k in range(steps * 40):   # read_u16 per sample: oversample 16, two channels in turn
        swings.append(65535 if (k // 64) % 2 else 0)
    m.adc_values[26] = swings
    b.run(10)                     # past the boot frames
    lines = port.lines
    a0 = mem_alloc()
    b.run(steps)
    a1 = mem_alloc()
    return a1 - a0, port.lines - lines


class FullFlash:
    """A file store whose writes fail as a full or failing flash does (littlefs' OSError
    28, no space); loading finds no config.json."""

    def __init__(self):
        self.saves = 0

    def load(self):
        return None

    def save(self, text):
        self.saves += 1
        raise OSError(28)

    def set_maint(self):
        raise OSError(28)

    def take_maint(self):
        return False


def failed_save(app, protocol, config, fake_machine):
    """A board with a full flash gets a CFG: (everything it sent as bytes, the scans it
    made afterwards, the saves tried). It must keep scanning on the new wiring."""
    port = Port()
    clock = fake_machine.FakeClock()
    m = fake_machine.FakeMachine(clock=clock)
    store = FullFlash()
    b = app.Coprocessor(m, clock, port, None, store=store, boot_id="B007")
    b.run(5)
    port.inp += host_frame(protocol, "CFG", (config.canonical(CONFIG),))
    b.run(20)
    s0 = b.scans
    m.press(3, 12)
    b.run(20)
    return b"".join(port.out), b.scans - s0, store.saves
