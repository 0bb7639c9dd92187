"""The board's main loop under CPython: fake machine, fake time, a byte-buffer port."""

import json

import pytest

from panel.firmware import config as fwconfig
from panel.firmware.app import Coprocessor, FileStore, MemoryStore
from panel.firmware.protocol import BOARD_TO_PI, PI_TO_BOARD, Parser, encode, pack, unpack
from panel.link.fake_machine import BoardReset, FakeClock, FakeMachine

CFG = {"rows": [2, 3, 4], "cols": [10, 11, 12, 13], "adc": [26], "encoders": [[20, 21]]}


class Port:
    def __init__(self):
        self.inp, self.out = b"", b""

    def read(self):
        data, self.inp = self.inp, b""
        return data

    def write(self, data):
        self.out += data
        return len(data)


class Rig:
    def __init__(self, cfg=CFG, **kw):
        self.clock = FakeClock()
        self.m = FakeMachine(clock=self.clock)
        self.m.adc_values[26] = 32000
        self.port = Port()
        self.store = MemoryStore(cfg)
        self.board = Coprocessor(self.m, self.clock, self.port, self.store.load(), store=self.store, boot_id="B007", **kw)
        self.parser = Parser()

    def run_ms(self, ms):
        self.board.run(ms)  # the real pacing: 1 kHz on the fake clock

    def frames(self):
        """What the board sent since last asked, each message read by the shared codec."""
        data, self.port.out = self.port.out, b""
        got = self.parser.feed(data)
        assert self.parser.rejected == 0
        return [(k, unpack(BOARD_TO_PI, k, a)) for _, k, a in got]

    def send(self, kind, values=()):
        self.port.inp += encode(0, kind, pack(PI_TO_BOARD, kind, values))


def test_boot_says_hello_with_versions_and_unique_id_then_a_snapshot():
    rig = Rig()
    (k1, hello), (k2, snap) = rig.frames()
    assert k1 == "HELLO" and k2 == "SNAP"
    assert hello["fw"] == "0.2.0" and hello["proto"] == 2 and hello["uid"] == "E6614103E7452D2F"
    assert (hello["rows"], hello["cols"], hello["adc"], hello["enc"], hello["boot"]) == (3, 4, 1, 1, "B007")
    assert snap == {"t": 0, "keys": [], "adc": [2000], "enc": [0]}


def test_keys_become_down_and_up_frames_with_the_board_time():
    rig = Rig()
    rig.frames()
    rig.run_ms(10)
    rig.m.press(3, 12)
    rig.run_ms(20)
    rig.m.press(3, 12, False)
    rig.run_ms(20)
    got = [(k, m["row"], m["col"], m["t"]) for k, m in rig.frames() if k in ("DOWN", "UP")]
    assert got == [("DOWN", 1, 2, 10), ("UP", 1, 2, 34)]


def test_heartbeats_carry_the_measured_scan_rate_and_the_watchdog_is_fed():
    rig = Rig()
    rig.frames()
    rig.run_ms(1001)                           # t = 0 .. 1000
    beats = [m for k, m in rig.frames() if k == "BEAT"]
    assert len(beats) == 4 and beats[-1]["t"] == 1000 and beats[-1]["rate"] == 1000
    assert beats[-1]["rej"] == 0 and beats[-1]["drop"] == 0
    assert rig.m.wdt.timeout_ms == 2000 and not rig.m.watchdog_expired()
    rig.clock.advance(2.5)                     # the loop hangs
    assert rig.m.watchdog_expired()


def test_commands_snapshot_ping_and_typed_lines():
    rig = Rig()
    rig.frames()
    rig.m.press(2, 10)
    rig.run_ms(3)
    rig.frames()
    rig.send("SNAP")
    rig.send("PING", [42])
    rig.port.inp += b"snap\r\n"                # typed by a person in a terminal
    rig.run_ms(3)                              # one frame out per scan step
    got = rig.frames()
    assert [k for k, _ in got] == ["SNAP", "PONG", "SNAP"]
    assert got[0][1]["keys"] == [(0, 0)] and got[1][1]["n"] == 42


def test_a_host_speaking_another_protocol_gets_a_clear_error_and_the_hello():
    rig = Rig()
    rig.frames()
    rig.send("HELLO", [3, "9.9"])
    rig.run_ms(3)
    err, hello = rig.frames()[:2]
    assert err == ("ERR", {"text": "version board speaks protocol 2, host speaks protocol 3"})
    assert hello[0] == "HELLO"


def test_set_config_rewires_the_board_and_stores_it():
    rig = Rig()
    rig.frames()
    new = {"rows": [5, 6], "cols": [7, 8, 9], "adc": [], "heartbeat_ms": 100}
    rig.send("CFG", [fwconfig.canonical(new)])
    rig.run_ms(3)
    kinds = rig.frames()
    assert [k for k, _ in kinds] == ["ACK", "HELLO", "SNAP"]
    assert kinds[1][1]["rows"] == 2 and kinds[1][1]["cfg"] == kinds[0][1]["cfg"]
    assert json.loads(rig.store.text)["heartbeat_ms"] == 100
    rig.m.press(6, 9)
    rig.run_ms(1)
    assert rig.frames()[0] == ("DOWN", {"row": 1, "col": 2, "t": 3})


def test_a_bad_config_is_refused_with_one_line_per_problem_and_the_old_wiring_stays():
    rig = Rig()
    rig.frames()
    rig.send("CFG", ['{"rows":[2,2],"cols":[40],"adc":[5],"speed":3}'])
    rig.port.inp += encode(1, "CFG", ["{nope"])
    rig.run_ms(10)
    errs = [m["text"] for k, m in rig.frames() if k == "ERR"]
    assert "config speed: unknown setting" in errs
    assert "config rows: GP2 is already used by rows" in errs
    assert "config cols: 40 is not a GPIO number 0-29" in errs
    assert "config adc: GP5 has no ADC (use 26, 27 or 28)" in errs
    assert "config not valid JSON" in errs
    assert rig.board.cfg["rows"] == [2, 3, 4]


def test_without_a_config_file_the_board_runs_and_says_why_it_sees_nothing():
    rig = Rig(cfg=None)
    got = rig.frames()
    assert got[0][0] == "ERR" and "config.json missing" in got[0][1]["text"]
    assert got[1][1]["rows"] == 0


def test_maint_and_reset_reboot_the_board():
    rig = Rig()
    rig.send("MAINT")
    with pytest.raises(BoardReset):
        rig.run_ms(1)
    assert rig.store.take_maint() and not rig.store.take_maint()


def test_file_store_round_trip(tmp_path):
    s = FileStore(str(tmp_path) + "/")
    assert s.load() is None
    s.save(fwconfig.canonical(CFG))
    assert s.load() == CFG
    s.set_maint()
    assert s.take_maint() and not s.take_maint()


def test_config_validation_catches_what_a_maker_gets_wrong():
    assert fwconfig.validate(CFG) == []
    assert fwconfig.validate([]) == ["config: must be a JSON object"]
    probs = fwconfig.validate({"rows": list(range(9)), "cols": [], "scan_hz": 10, "wdt_ms": 100,
                               "heartbeat_ms": 200, "encoders": [[1]], "diodes": "yes"})
    assert "rows: at most 8, got 9" in probs
    assert "rows: a matrix needs both rows and cols" in probs
    assert "scan_hz: must be a whole number from 100 to 5000" in probs
    assert "wdt_ms: must be longer than heartbeat_ms" in probs
    assert "encoders: [1] is not a [pin_a, pin_b] pair" in probs
    assert "diodes: must be true or false" in probs


def test_canonical_json_is_sorted_and_parses_back():
    text = fwconfig.canonical({"b": [1, True], "a": {"z": "q\"", "y": None}})
    assert text == '{"a":{"y":null,"z":"q\\""},"b":[1,true]}'
    assert json.loads(text) == {"b": [1, True], "a": {"z": 'q"', "y": None}}


class SlowPort(Port):
    """A host that reads `take` bytes a call, or none at all (take=0: the port is full)."""

    def __init__(self, take):
        super().__init__()
        self.take = take

    def write(self, data):
        n = min(self.take, len(data))
        self.out += data[:n]
        return n


def test_a_host_that_does_not_read_never_holds_up_the_scan_and_the_loss_is_counted():
    from panel.firmware.app import OUTBOX_BYTES

    rig = Rig()
    rig.port = rig.board.port = rig.board.out.port = SlowPort(0)
    rig.m.press(2, 10)
    for k in range(200):                       # a key pressed and let go while nobody reads
        rig.run_ms(6)
        rig.m.press(2, 10, k % 2 == 1)
    assert rig.board.scans >= 1200 and not rig.m.watchdog_expired()   # the loop kept its pace
    assert rig.board.out.size <= OUTBOX_BYTES and rig.board.out.dropped > 50
    rig.port.take = 10**6                      # the host reads again
    rig.run_ms(300)
    got = rig.parser.feed(rig.port.out)
    assert rig.parser.rejected == 0            # nothing torn: whole frames were dropped
    seqs = [s for s, _, _ in got]
    beats = [unpack(BOARD_TO_PI, k, a) for _, k, a in got if k == "BEAT"]
    assert beats[-1]["drop"] == rig.board.out.dropped == (seqs[-1] + 1) - len(seqs) - 2   # 2: HELLO, SNAP at boot


def test_a_port_that_takes_a_few_bytes_at_a_time_gets_every_frame_whole_and_in_order():
    rig = Rig()
    rig.frames()
    rig.port = rig.board.port = rig.board.out.port = SlowPort(5)
    for k in range(10):
        rig.m.press(3, 11 + k % 3)
        rig.run_ms(10)
        rig.m.press(3, 11 + k % 3, False)
        rig.run_ms(10)
    rig.run_ms(500)
    got = rig.parser.feed(rig.port.out)
    assert rig.parser.rejected == 0 and [s for s, _, _ in got] == list(range(2, 2 + len(got)))
    assert [k for _, k, _ in got if k in ("DOWN", "UP")] == ["DOWN", "UP"] * 10 and rig.board.out.dropped == 0


def test_the_boards_usb_port_polls_once_a_step_and_writes_whole_packets_only_when_usb_has_room():
    """StdioPort with stand-ins for MicroPython's sys and select: one poll (stdin, for
    both directions) a step; a write goes out only after poll reported room (a USB write
    with no room waits up to 500 ms on the Pico), as one write() of exactly one packet,
    so the USB FIFO only ever holds whole packets and "room" always means room for one."""
    from panel.firmware.app import StdioPort

    class Stream:
        def __init__(self):
            self.writes = []
            self.data = b"ping\n"

        def write(self, b):
            self.writes.append(bytes(b))

        def read(self, n):
            b, self.data = self.data[:n], self.data[n:]
            return b

    class Poll:
        def __init__(self, sel):
            self.sel, self.events = sel, 0

        def register(self, stream, events):
            self.stream, self.events = stream, events

        def ipoll(self, timeout):
            assert timeout == 0
            self.sel.polls += 1
            ev = 0
            if self.events & Select.POLLOUT and self.sel.room:
                ev |= Select.POLLOUT
            if self.events & Select.POLLIN and self.stream.data:
                ev |= Select.POLLIN
            return iter([(self.stream, ev)] if ev else ())

    class Select:
        POLLIN, POLLOUT = 1, 4

        def __init__(self):
            self.room, self.polls = False, 0

        def poll(self):
            return Poll(self)

    class Sys:
        stdin, stdout = Stream(), Stream()

    sel, sys_ = Select(), Sys()
    port = StdioPort(sys_, sel)
    assert port.read() == b"ping\n" and port.read() == b""
    sel.polls = 0
    assert port.read() == b"" and sel.polls == 1                      # an idle step: one poll
    frame = b"@1 DOWN 1 2 t=5 #0000\n"
    assert port.write(frame) == 0 and sys_.stdout.writes == []       # no room: nothing, at once
    sel.room = True
    port.read()
    assert port.write(frame) == len(frame)
    assert sys_.stdout.writes == [frame + b"\n" * (64 - len(frame))]  # one packet: the frame, blank lines
    long = frame * 4
    assert port.write(long) == StdioPort.WRITE_STEP                   # the per-write bound
    assert sys_.stdout.writes[-1] == long[:64]
    short = b"@2 UP 1 2 t=9 #0000\n"
    assert port.write(short) == len(short)
    assert sys_.stdout.writes[-1] == short + b"\n" * (64 - len(short))  # no bytes left of the last packet


class PacketPort:
    """The board's USB as the outbox sees it (app.StdioPort): whole packets only, sent
    when this step's poll saw room (`room`, set by the test)."""

    PACKET = 64

    def __init__(self):
        self.packets, self.room = [], True

    def send(self, packet):
        if not self.room:
            return False
        self.packets.append(bytes(packet))
        return True


def test_the_outbox_sends_whole_packets_of_whole_frames_in_order_and_nothing_stale():
    import random

    from panel.firmware import app
    from panel.firmware.protocol import MAX_N

    rng = random.Random(7)
    port = PacketPort()
    out = app.Outbox(port)
    kinds = [("DOWN", app.DOWN, 3), ("UP", app.UP, 3), ("ADC", app.ADC, 3), ("ENC", app.ENC, 3),
             ("BEAT", app.BEAT, 4), ("PONG", app.PONG, 2)]
    want = []
    for step in range(3000):                     # bursts, quiet spells, a USB that is busy now and then
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 4])):
            if rng.random() < 0.05:              # a text frame among the number frames
                frame = encode(out.seq(), "ERR", ["x" * rng.randint(1, 200)])
                out.put(frame)
            else:
                name, tmpl, n = rng.choice(kinds)
                values = [rng.choice([0, 7, 4095, rng.randrange(MAX_N)]) for _ in range(n)]
                frame = encode(out.vals[0], name, pack(BOARD_TO_PI, name, values))
                for i, x in enumerate(values):
                    out.vals[1 + i] = x
                out.put_numbers(tmpl)
            want.append(frame)
        port.room = rng.random() < 0.8
        out.flush()
    port.room = True
    out.flush(10**4)
    assert out.size == 0 and out.dropped == 0
    assert all(len(p) == 64 for p in port.packets)              # whole packets, every one
    p = Parser()
    got = p.feed(b"".join(port.packets))
    assert p.rejected == 0                                       # no torn or stale line among them
    assert [encode(s, k, a) for s, k, a in got] == want          # every frame, in order


def test_an_outbox_the_usb_never_takes_drops_the_oldest_frames_and_counts_them():
    from panel.firmware import app

    port = PacketPort()
    port.room = False
    out = app.Outbox(port)
    for i in range(500):
        out.vals[1], out.vals[2], out.vals[3] = 1, 2, i
        out.put_numbers(app.DOWN)
        out.flush()
    assert out.size <= app.OUTBOX_BYTES and out.dropped > 400 and port.packets == []
    port.room = True
    out.flush(10**4)
    got = Parser().feed(b"".join(port.packets))
    assert [unpack(BOARD_TO_PI, k, a)["t"] for _, k, a in got] == list(range(500 - len(got), 500))  # the newest kept
    assert got[-1][0] == 499 and len(got) + out.dropped == 500


class Collector:
    """A stand-in for gc.collect: when the board collected, and what was waiting then."""

    def __init__(self):
        self.at = []

    def __call__(self):
        self.at.append((self.board.scans, self.board.out.size))


def test_the_board_collects_only_at_a_quiet_step_after_a_command_never_during_play():
    gc_ = Collector()
    rig = Rig(collect=gc_)
    gc_.board = rig.board
    rig.run_ms(5)
    assert len(gc_.at) == 1                    # the garbage of the boot, at the first quiet step
    for k in range(20):                        # play: keys, a slider, heartbeats
        rig.m.press(3, 12, k % 2 == 0)
        rig.m.adc_values[26] = 1000 * k
        rig.run_ms(30)
    assert len(gc_.at) == 1 and [k for k, _ in rig.frames()].count("DOWN") == 10
    rig.send("PING", [5])
    rig.run_ms(5)
    assert len(gc_.at) == 2 and gc_.at[1][1] == 0   # after the PONG went out: nothing waiting
    assert ("PONG", 5) in [(k, m.get("n")) for k, m in rig.frames()]
