"""The real pyserial link against the emulated board (real firmware loop) over a real pty:
events, unplug/replug under a new name, silence, garbage, lost frames, board resets,
version mismatch, config push. Waits are generous upper bounds for a loaded CI machine;
nothing asserts how fast anything happened."""

import os
import threading
import time

import pytest

from panel.core.events import InputEvent
from panel.firmware import protocol
from panel.firmware.app import FIRMWARE_VERSION
from panel.link import AnalogReading, SerialLink, find_ports
from panel.link.emulator import FirmwareEmulator
from waiting import describe, wait_until

V = protocol.PROTOCOL_VERSION

CFG = {"rows": [2, 3, 4], "cols": [10, 11, 12, 13], "adc": [26], "encoders": [[20, 21]]}
KEYS = {(0, 0): "cross.up", (1, 2): "cross.ok", (2, 3): "cross.down"}
ADC = {0: "slider.blue"}
ENC = {0: "knob.main"}


class Inbox:
    """Everything the link hands out, in order, from its thread."""

    def __init__(self):
        self.items = []
        self.cond = threading.Condition()

    def put(self, item):
        with self.cond:
            self.items.append(item)
            self.cond.notify_all()

    def wait(self, pred, timeout=10.0, start=0):
        """The index of the first item from `start` that satisfies pred."""
        found = wait_until(lambda: [i for i in range(start, len(self.items)) if pred(self.items[i])][:1],
                           cond=self.cond, guard=timeout, what=lambda: f"{describe(pred)}; got {self.items[start:]}")
        return found[0]

    def status(self, state, reason=None, start=0, timeout=10.0):
        return self.wait(lambda x: isinstance(x, dict) and x["state"] == state
                         and (reason is None or x["reason"] == reason), timeout, start)

    def inputs(self, start=0, stop=None):
        return [x for x in self.items[start:stop] if isinstance(x, (InputEvent, AnalogReading))]

    def keys(self, start=0, stop=None):
        return [(x.control, x.value) for x in self.items[start:stop] if isinstance(x, InputEvent)]


def make_link(emu, inbox, **kw):
    kw.setdefault("finder", lambda: [emu.port] if emu.port else [])
    return SerialLink(KEYS, adc_map=ADC, encoder_map=ENC, on_event=inbox.put, on_analog=inbox.put,
                      on_status=inbox.put, **kw)


@pytest.fixture
def emu():
    e = FirmwareEmulator(CFG)
    e.set_adc(0, 32000)                        # the slider's place before power-up
    with e:
        yield e


def press(emu, inbox, rc, control, down=True):
    n = len(inbox.items)
    emu.press(*rc, down)
    return inbox.wait(lambda x: isinstance(x, InputEvent) and x.control == control and x.value is down, start=n)


def test_presses_on_the_board_become_input_events_with_pi_times(emu):
    inbox = Inbox()
    with make_link(emu, inbox) as link:
        i = inbox.status("connected")
        assert inbox.inputs(0, i) == [AnalogReading("slider.blue", 2000, inbox.items[0].t, "adc"),
                                      AnalogReading("knob.main", 0, inbox.items[1].t, "encoder")]
        t_before = time.monotonic()
        press(emu, inbox, (1, 2), "cross.ok")
        press(emu, inbox, (1, 2), "cross.ok", False)
        press(emu, inbox, (2, 3), "cross.down")
        assert inbox.keys(i) == [("cross.ok", True), ("cross.ok", False), ("cross.down", True)]
        ev = [x for x in inbox.items[i:] if isinstance(x, InputEvent)]
        assert all(t_before - 1 < e.t <= time.monotonic() for e in ev)   # on the Pi's clock
        assert ev[0].t < ev[1].t < ev[2].t
        n = len(inbox.items)
        emu.press(0, 3)                                        # not in the map
        emu.set_adc(0, 64000)
        # the filter approaches 4000 and reports every move of 8 counts or more
        inbox.wait(lambda x: isinstance(x, AnalogReading) and x.raw > 4000 - 8, start=n)
        emu.turn(0, 2)
        inbox.wait(lambda x: isinstance(x, AnalogReading) and x.kind == "encoder" and x.raw == 2, start=n)
        st = link.status()
        assert st["unmapped"] == 1 and st["frames_rejected"] == 0 and st["frames_received"] > 5
        assert st["board"]["uid"] == "E6614103E7452D2F" and st["board"]["fw"] == FIRMWARE_VERSION


def test_unplug_is_noticed_at_once_and_a_replug_under_a_new_name_resynchronises(emu):
    inbox = Inbox()
    # silence_timeout 30 s: the disconnect below can only come from the unplug itself
    with make_link(emu, inbox, silence_timeout=30) as link:
        inbox.status("connected")
        press(emu, inbox, (0, 0), "cross.up")                  # held when the cable comes out
        press(emu, inbox, (1, 2), "cross.ok")                  # held, and still held after
        emu.set_adc(0, 32000)
        old = emu.port
        n = len(inbox.items)
        emu.unplug()
        d = inbox.status("disconnected", "unplugged", start=n)
        # while the cable is out: one key let go, one pressed and held, one tapped, a slider moved
        emu.release(0, 0)
        emu.press(2, 3)
        emu.set_adc(0, 8000)
        new = emu.replug()
        assert new != old
        c = inbox.status("connected", start=d)
        # exactly the differences, before "connected": nothing invented, nothing lost
        got = [(x.control, x.value if isinstance(x, InputEvent) else x.raw) for x in inbox.inputs(d, c)]
        assert sorted(got, key=str) == sorted([("cross.up", False), ("cross.down", True),
                                               ("slider.blue", 500)], key=str)
        assert ("cross.ok", True) not in got and ("cross.ok", False) not in got
        st = link.status()
        assert st["reconnects"] == 1 and st["port"] == new and st["board_resets"] == 1
        press(emu, inbox, (1, 2), "cross.ok", False)           # live again


def test_a_silent_board_is_noticed_after_1_s_of_missing_heartbeats_and_the_watchdog_brings_it_back(emu):
    inbox = Inbox()
    clock = ManualClock()
    with make_link(emu, inbox, clock=clock) as link:           # the real default: 1 s
        inbox.status("connected")
        assert link.silence_timeout == 1.0
        press(emu, inbox, (1, 2), "cross.ok")
        n = len(inbox.items)
        emu.hang()                                             # no scan step runs from here on
        board = emu.board
        assert not board.out.frames                            # everything it said is on the wire
        wait_until(lambda: link._expect == board.seq, guard=10)          # ... and the link has read it all
        clock.advance(0.95)
        clock.wait_calls(2)                                    # the reader has looked at the time since
        assert link.state == "connected"                       # 0.95 s of silence: not yet
        clock.advance(0.1)
        s = inbox.status("disconnected", "silent", start=n)
        assert "no valid frame for 1 s" in inbox.items[s]["message"]
        clock.run()                                            # time flows again
        inbox.status("connected", start=s, timeout=15)          # the emulated watchdog reset it
        assert emu.boots == 2
        # the key is still held on the board: the snapshot agrees, so no event at all
        assert inbox.keys(s) == []


class ManualClock:
    """time.monotonic() frozen until advanced, or flowing after run(). Counts how often
    it is read, so a test knows the link's reader has looked at the time."""

    def __init__(self):
        self.base = time.monotonic()
        self.extra = 0.0
        self.flowing = False
        self.calls = 0
        self.cond = threading.Condition()

    def __call__(self):
        with self.cond:
            self.calls += 1
            self.cond.notify_all()
        return (time.monotonic() if self.flowing else self.base) + self.extra

    def wait_calls(self, n, timeout=10.0):
        with self.cond:
            target = self.calls + n
            wait_until(lambda: self.calls >= target, cond=self.cond, guard=timeout)

    def advance(self, s):
        self.extra += s

    def run(self):
        self.extra += self.base - time.monotonic()
        self.flowing = True


def test_garbage_and_torn_frames_are_counted_and_dropped_and_the_link_stays_up(emu):
    inbox = Inbox()
    with make_link(emu, inbox) as link:
        inbox.status("connected")
        before = link.status()["frames_rejected"]
        emu.send_raw(b"\x00\xff\xfe garbage\r\n@12 DOWN 1 2 t=5 #0000\n@1 DO")   # noise, bad CRC, torn
        emu.send_raw(b"\nTraceback (most recent call last):\n" + os.urandom(300).replace(b"\n", b"") + b"\n")
        # well framed, checksummed, but meaningless: counted as rejected, nothing emitted
        from panel.firmware.protocol import encode
        emu.send_raw(encode(900, "DOWN", ["a", "b"]) + encode(901, "SNAP", ["t=1"]) + encode(902, "ADC", []))
        press(emu, inbox, (1, 2), "cross.ok")
        st = link.status()
        assert st["frames_rejected"] - before >= 7
        assert st["state"] == "connected" and st["disconnects"] == 0
        assert inbox.keys() == [("cross.ok", True)]           # the forged DOWN was not believed


def test_a_lost_frame_is_noticed_by_its_sequence_number_and_the_snapshot_repairs_it(emu):
    inbox = Inbox()
    with make_link(emu, inbox) as link:
        inbox.status("connected")
        emu.mangle(lambda f: f.replace(b" DOWN ", b" D0WN ") if b" DOWN " in f else f, count=1)
        press(emu, inbox, (2, 3), "cross.down")                # arrives through the snapshot
        st = link.status()
        assert st["gaps"] == 1 and st["frames_rejected"] == 1
        assert inbox.keys() == [("cross.down", True)]


def test_a_board_that_resets_on_the_same_port_is_resynchronised(emu):
    inbox = Inbox()
    with make_link(emu, inbox) as link:
        inbox.status("connected")
        press(emu, inbox, (0, 0), "cross.up")
        n = len(inbox.items)
        emu.release(0, 0)
        emu.reset()                                            # boots with the key already up
        inbox.wait(lambda x: x == InputEvent("cross.up", False, x.t) if isinstance(x, InputEvent) else False,
                   start=n)
        wait_until(lambda: link.status()["board_resets"] == 1, guard=5)  # the release may beat the reset to the wire
        assert link.status()["board_resets"] == 1
        assert inbox.keys(n) == [("cross.up", False)]


def test_a_version_mismatch_names_both_versions_and_no_input_passes():
    inbox = Inbox()
    with FirmwareEmulator(CFG, protocol_version=V + 1, version="9.0.0") as emu:
        with make_link(emu, inbox) as link:
            i = inbox.status("version_mismatch")
            msg = inbox.items[i]["message"]
            assert f"speaks protocol {V + 1} (firmware 9.0.0)" in msg and f"speaks protocol {V}" in msg
            assert "penguin-panel firmware install" in msg
            emu.press(1, 2)
            emu.wait_scans(3)                                  # the board has sent its DOWN ...
            assert link.sync()                                 # ... and the link has read it
            assert inbox.inputs() == [] and link.state == "version_mismatch"
            assert f"board speaks protocol {V + 1}, host speaks protocol {V}" in link.status()["last_board_error"]
            # the maker updates the firmware; the board comes back speaking our protocol
            emu.protocol_version, emu.version = V, FIRMWARE_VERSION
            emu.unplug()
            emu.replug()
            c = inbox.status("connected", start=i)
            assert inbox.keys(i, c) == [("cross.ok", True)]   # the key held throughout, from the snapshot


def test_the_link_pushes_its_wiring_to_a_board_that_has_another():
    inbox = Inbox()
    other = {"rows": [5], "cols": [6]}
    with FirmwareEmulator(other) as emu:
        with make_link(emu, inbox, firmware_config=CFG) as link:
            inbox.status("connected")
            assert emu.board.cfg["rows"] == [2, 3, 4]
            emu.config = dict(CFG)                             # the emulator's hands follow the new wiring
            press(emu, inbox, (1, 2), "cross.ok")
            assert link.status()["board"]["cfg"] == "%04X" % link._config_crc


def test_a_board_whose_flash_will_not_save_the_wiring_runs_on_it_and_the_pi_says_so_once(caplog):
    # A full (or failing) flash: the board keeps the CFG in memory and says so in one
    # ERR; the link logs it in plain words and, since the board's HELLO then carries the
    # new checksum, does not push the same CFG again.
    inbox = Inbox()
    other = {"rows": [5], "cols": [6]}
    with FirmwareEmulator(other) as emu:
        saves = []

        def full(text):  # every CFG the board gets is one save tried
            saves.append(text)
            raise OSError(28, "No space left on device")
        emu.store.save = full
        with make_link(emu, inbox, firmware_config=CFG) as link:
            with caplog.at_level("WARNING", logger="panel.link.serial_link"):
                inbox.status("connected")
                emu.config = dict(CFG)
                press(emu, inbox, (1, 2), "cross.ok")
                link.sync()
            assert emu.board.cfg["rows"] == [2, 3, 4] and link.status()["board"]["cfg"] == "%04X" % link._config_crc
            said = [r.getMessage() for r in caplog.records if "could not save" in r.getMessage()]
            assert len(said) == 1 and "OSError 28" in said[0] and "until it restarts" in said[0]
            assert len(saves) == 1   # the CFG went once


def test_a_bad_firmware_config_is_refused_before_anything_starts():
    with pytest.raises(ValueError, match="rows: GP2 is already used by rows"):
        SerialLink(KEYS, firmware_config={"rows": [2, 2], "cols": [3]})


def test_the_default_finder_follows_the_by_id_link_to_whichever_tty_the_board_got(emu, tmp_path):
    link_path = tmp_path / "usb-MicroPython_Board_in_FS_mode_e6614103e7452d2f-if00"
    os.symlink(emu.port, link_path)
    pattern = str(tmp_path / "*MicroPython*")
    assert find_ports(by_id=pattern)[0] == str(link_path)
    inbox = Inbox()
    with make_link(emu, inbox, finder=lambda: find_ports(by_id=pattern)) as link:
        inbox.status("connected")
        emu.unplug()
        d = inbox.status("disconnected", "unplugged")
        emu.replug()
        os.unlink(link_path)
        os.symlink(emu.port, link_path)                        # udev re-points the stable name
        inbox.status("connected", start=d)
        assert link.status()["port"] == str(link_path)


def test_the_board_clock_wraps_and_the_pi_keeps_counting():
    from panel.link.serial_link import _BoardClock

    c = _BoardClock()
    near = protocol.T_MOD - 3                                  # 12.4 days after the board's boot
    times = [c.map(ms, 100.0 + i * 0.002) for i, ms in enumerate([near, near + 2, 0, 1, 3])]
    assert times == sorted(times) and times[-1] - times[0] == pytest.approx(0.006, abs=1e-5)


def test_close_is_idempotent_and_works_with_no_board():
    link = SerialLink(KEYS, finder=lambda: [])
    with link:
        assert link.status()["state"] == "disconnected"
    link.close()
    link.close()


# -- what a broken or hostile board sends cannot silence the panel (issue 11) --------------

@pytest.mark.parametrize("kind, args", [
    ("BEAT", ["t=" + "9" * 330, "rate=1000", "rej=0", "drop=0"]),   # OverflowError in the clock mapping, once
    ("DOWN", ["1", "2", "t=" + "7" * 400]),
    ("ADC", ["0", "9" * 50, "t=5"]),
    ("ENC", ["0", "-" + "9" * 20, "t=5"]),
    ("SNAP", ["t=5", "keys=1.2," + "3" * 30 + ".1", "adc=-", "enc=-"]),
])
def test_a_frame_with_huge_numbers_is_counted_and_the_link_keeps_reading(emu, kind, args):
    inbox = Inbox()
    with make_link(emu, inbox) as link:
        inbox.status("connected")
        before = link.status()["frames_rejected"]
        emu.send_raw(protocol.encode(60000, kind, args))
        assert link.sync()                                     # read past the bad frame ...
        st = link.status()
        assert st["frames_rejected"] == before + 1
        assert any(w in link.parser.last_error for w in ("out of range", "not a whole number"))
        assert st["state"] == "connected"
        press(emu, inbox, (1, 2), "cross.ok")                  # ... and still alive


def test_a_handler_that_fails_in_any_way_costs_one_frame_not_the_link(emu, monkeypatch):
    inbox = Inbox()
    with make_link(emu, inbox) as link:
        inbox.status("connected")
        beats = link.status()["heartbeats"]

        def broken(msg, now):
            raise ZeroDivisionError("a bug in a handler")

        monkeypatch.setattr(link, "_on_beat", broken)
        wait_until(lambda: link.status()["frames_rejected"] >= 2, guard=10)   # two heartbeats failed
        assert "ZeroDivisionError: a bug in a handler" in link.parser.last_error
        assert link.status()["state"] == "connected"
        press(emu, inbox, (1, 2), "cross.ok")
        monkeypatch.undo()
        wait_until(lambda: link.status()["heartbeats"] > beats, guard=10)


def test_if_the_reader_fails_the_link_says_disconnected_then_starts_over(emu, monkeypatch):
    inbox = Inbox()
    with make_link(emu, inbox) as link:
        c = inbox.status("connected")
        press(emu, inbox, (1, 2), "cross.ok")                  # held through the failure
        feed = link.parser.feed
        failed = []

        def once(data):
            if not failed:
                failed.append(1)
                raise MemoryError("the reader's own failure")
            return feed(data)

        monkeypatch.setattr(link.parser, "feed", once)
        d = inbox.status("disconnected", "link error", start=c)    # the service pauses the turn
        assert "MemoryError" in inbox.items[d]["message"]
        emu.release(1, 2)
        inbox.status("connected", start=d)                         # and resumes: resynchronised
        assert inbox.keys(d) == [("cross.ok", False)]
        assert link.status()["link_errors"] == 1


def test_a_board_that_sends_only_garbage_goes_silent(emu):
    inbox = Inbox()
    stop = threading.Event()

    def noise():  # a crashed board printing away: bytes, lines, even well-formed nonsense
        k = 0
        while not stop.is_set():
            k += 1
            emu.send_raw(b"Traceback (most recent call last):\r\n" + os.urandom(20).replace(b"\n", b"")
                         + b"\n" + protocol.encode(k, "NOISE", [str(k)]))
            stop.wait(0.01)

    with make_link(emu, inbox) as link:
        c = inbox.status("connected")
        emu.hang()
        t = threading.Thread(target=noise, daemon=True)
        t.start()
        try:
            s = inbox.status("disconnected", "silent", start=c, timeout=30)
        finally:
            stop.set()
            t.join()
        assert "no valid frame for 1 s" in inbox.items[s]["message"]
        assert link.status()["frames_rejected"] > 10
