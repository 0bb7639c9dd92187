"""The Pi's end of the USB serial link to the Pico co-processor.

`SerialLink` finds the board (USB VID:PID 2E8A:0005 or /dev/serial/by-id/*MicroPython*),
reads it on its own thread, and hands out:

- `on_event(InputEvent(control, True/False, t))` for matrix keys (buttons),
- `on_analog(AnalogReading(control, raw, t, kind))` for ADC channels (raw 0..4095) and
  encoders (raw = detent count). Analog values stay raw on purpose: calibration and
  quantisation into token positions belong to the hardware map, not to the wire,
- `on_status(dict)` when the link changes state: "connected", "disconnected" (with a
  reason: not found, unplugged, silent, handshake) or "version_mismatch", with counters.

All callbacks run on the reader thread; the service passes functions that hand over to
its asyncio loop (loop.call_soon_threadsafe). Times `t` are on the Pi's clock: the
board's millisecond timestamps mapped onto `clock` (see `_BoardClock`).

What the board sends cannot take the link down: every frame is decoded by the shared
codec (panel.firmware.protocol: each field checked against its type and bounds), and a
frame that fails anywhere in its handling is counted as rejected and dropped. Only valid
frames count as the board being heard: a board that sends nothing but garbage goes
"silent". The reader thread supervises itself: if anything escapes, the link says
"disconnected" (reason "link error", so the service pauses the turn) and starts over.

`sync()` is an exact barrier: it sends PING n and returns once PONG n is handled, so
every frame the board sent before it has been handled and its events handed out.

Nothing is invented across a reconnect: after every HELLO the board sends a full
snapshot, and the link emits only the differences between what it last reported and that
snapshot (a key held when the cable came out and released since gives one release),
before it reports "connected" again. A press made and released while the link was down
is not seen by anyone, and no event pretends it was.
"""

from __future__ import annotations

import glob
import logging
import os
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

import serial
import serial.tools.list_ports

from panel.core.backoff import Backoff
from panel.core.events import InputEvent
from panel.firmware import config as fwconfig
from panel.firmware import protocol

PICO_VID_PID = (0x2E8A, 0x0005)  # Raspberry Pi RP2040 running MicroPython
BY_ID_GLOB = "/dev/serial/by-id/*MicroPython*"
# Seconds between looks for a board that is away: from the link's retry_interval, doubling
# to this (a board plugged back is found within it; an absent one costs no busy polling).
RETRY_MOST = 2.0
FROM_BOARD = protocol.BOARD_TO_PI
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AnalogReading:
    """A raw analog value from the board: kind "adc" (0..4095) or "encoder" (detents)."""

    control: str
    raw: int
    t: float
    kind: str = "adc"

    def as_dict(self) -> dict[str, Any]:
        return {"control": self.control, "raw": self.raw, "t": self.t, "kind": self.kind}


def find_ports(vid_pid: tuple[int, int] = PICO_VID_PID, by_id: str = BY_ID_GLOB) -> list[str]:
    """Serial ports that look like a Pico running MicroPython, stable names first."""
    found: list[str] = []
    seen: set[str] = set()
    for path in sorted(glob.glob(by_id)):
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            found.append(path)
    for info in serial.tools.list_ports.comports():
        if (info.vid, info.pid) == vid_pid:
            real = os.path.realpath(info.device)
            if real not in seen:
                seen.add(real)
                found.append(info.device)
    return found


class _BoardClock:
    """Maps the board's uptime (ms) onto the Pi's clock.

    The offset is the smallest (arrival - board time) seen: the frame that travelled
    fastest. It may creep up by 200 ppm of elapsed time (crystals drift ~50 ppm), so a
    drifting board is followed without letting one slow frame shift every timestamp.
    A mapped time is never later than the frame's arrival, nor earlier than the last."""

    CREEP = 2e-4

    def __init__(self):
        self.offset: float | None = None
        self.at = 0.0
        self.last = float("-inf")
        self._raw: int | None = None
        self._wraps = 0

    def map(self, board_ms: int, arrival: float) -> float:
        # The board's clock wraps at protocol.T_MOD ms (12.4 days): frames come in board
        # order, so a step back by more than half the period is a wrap.
        if self._raw is not None and self._raw - board_ms > protocol.T_MOD // 2:
            self._wraps += 1
        self._raw = board_ms
        tb = (self._wraps * protocol.T_MOD + board_ms) / 1000.0
        cand = arrival - tb
        if self.offset is None or cand < self.offset:
            self.offset = cand
        else:
            self.offset = min(cand, self.offset + (arrival - self.at) * self.CREEP)
        self.at = arrival
        t = min(max(tb + self.offset, self.last), arrival)
        self.last = t
        return t


def link_action(status: dict, t: float):
    """The game Action a link status calls for: a turn pauses while the panel is not
    heard (disconnected, or a board speaking another protocol) and resumes when it is
    back and resynchronised. The service hands this to the engine with the events."""
    from panel.core.events import Action

    if status["state"] == "connected":
        return Action("resume", t, {"reason": "link"})
    return Action("pause", t, {"reason": "link"})


class SerialLink:
    """The board's inputs as events. A context manager; close() is idempotent."""

    def __init__(self, matrix_map: dict[tuple[int, int], str], *,
                 adc_map: dict[int, str] | None = None,
                 encoder_map: dict[int, str] | None = None,
                 port: str | None = None,
                 finder: Callable[[], list[str]] | None = None,
                 on_event: Callable[[InputEvent], None] | None = None,
                 on_analog: Callable[[AnalogReading], None] | None = None,
                 on_status: Callable[[dict], None] | None = None,
                 firmware_config: dict | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 silence_timeout: float = 1.0,
                 retry_interval: float = 0.25,
                 handshake_timeout: float = 0.5,
                 host_version: str = "panel",
                 protocol_version: int = protocol.PROTOCOL_VERSION):
        self.matrix_map = {(int(r), int(c)): ctl for (r, c), ctl in matrix_map.items()}
        self.adc_map = dict(adc_map or {})
        self.encoder_map = dict(encoder_map or {})
        self.port = port
        self.finder = finder or find_ports
        self.on_event = on_event or (lambda e: None)
        self.on_analog = on_analog or (lambda r: None)
        self.on_status = on_status or (lambda s: None)
        self._take_firmware_config(firmware_config)
        self.clock = clock
        self.silence_timeout = silence_timeout
        self._retry = Backoff(retry_interval, max(retry_interval, RETRY_MOST), jitter=0)
        self.handshake_timeout = handshake_timeout
        self.host_version = host_version
        self.protocol_version = protocol_version

        self._init_reports()
        self._init_session()

    def _take_firmware_config(self, firmware_config: dict | None) -> None:
        """The firmware config the link sends the board (checked, completed) and its CRC."""
        self.firmware_config = None
        self._config_crc = None
        if firmware_config is not None:
            problems = fwconfig.validate(firmware_config)
            if problems:
                raise ValueError("firmware config: " + "; ".join(problems))
            self.firmware_config = fwconfig.complete(firmware_config)
            self._config_canon = fwconfig.canonical(self.firmware_config)
            self._config_crc = protocol.crc16(self._config_canon.encode())

    def _init_reports(self) -> None:
        """What the link reports: its counters, its state, the board, the inputs last seen."""
        self.counters = {"frames_received": 0, "frames_rejected": 0, "reconnects": 0, "connects": 0,
                         "gaps": 0, "heartbeats": 0, "board_resets": 0, "snapshots": 0,
                         "unmapped": 0, "disconnects": 0, "board_dropped": 0, "link_errors": 0}
        self.state = "disconnected"
        self.reason = "not started"
        self.message = ""
        self.board: dict[str, str] = {}
        self.board_rate = 0
        self.current_port: str | None = None
        self.last_board_error: str | None = None
        # What the link last reported for every input: the base the snapshot diffs against.
        self.keys: set[tuple[int, int]] = set()
        self.adc: dict[int, int] = {}
        self.enc: dict[int, int] = {}

    def _init_session(self) -> None:
        """The port, the frames' parser and sequence, the handshake and the supervising thread."""
        self.parser = protocol.Parser()
        self._ser: serial.Serial | None = None
        self._wlock = threading.Lock()
        self._seq = 0
        self._expect: int | None = None
        self._synced = False
        self._last_rx = 0.0
        self._hello_at = 0.0
        self._hello_tries = 0
        self._cfg_sent = False
        self._awaiting_cfg = False
        self._bclock = _BoardClock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._pong = threading.Condition()
        self._ping_n = 0
        self._pong_n: int | None = None
        self._logged = ""

    # -- lifetime ---------------------------------------------------------------------

    def start(self) -> "SerialLink":
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._supervise, name="serial-link", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        ser = self._ser
        if ser is not None:
            try:
                ser.cancel_read()  # a read waiting for the board's next frame returns now
            except Exception:
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._drop_port()

    def __enter__(self) -> "SerialLink":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self.state == "connected"

    def status(self) -> dict:
        """Everything the status page shows about the link (JSON-ready)."""
        c = dict(self.counters)
        c["frames_received"] = self.parser.frames
        c["frames_rejected"] = self.parser.rejected
        return {"state": self.state, "connected": self.connected, "reason": self.reason,
                "message": self.message, "port": self.current_port, "board": dict(self.board),
                "scan_rate": self.board_rate, "last_board_error": self.last_board_error,
                "last_rejected": self.parser.last_error, **c}

    # -- commands to the board ---------------------------------------------------------

    def request_snapshot(self) -> bool:
        return self._send("SNAP")

    def ping(self, n: int = 0) -> bool:
        return self._send("PING", (n,))

    def sync(self, timeout: float = 10.0) -> bool:
        """Send PING n and wait for PONG n: when this returns True, every frame the
        board sent before it has been handled and its events handed out (the board
        answers in order, and the link reads in order). False if no answer in time
        (no board, or it reset meanwhile)."""
        with self._pong:
            self._ping_n = self._ping_n % protocol.MAX_N + 1
            n = self._ping_n
        if not self.ping(n):
            return False
        with self._pong:
            return self._pong.wait_for(lambda: self._pong_n == n, timeout)

    def send_config(self) -> bool:
        if self.firmware_config is None:
            return False
        return self._send("CFG", (self._config_canon,))

    def _send(self, kind: str, values=()) -> bool:
        with self._wlock:
            ser = self._ser
            if ser is None:
                return False
            frame = protocol.encode(self._seq, kind, protocol.pack(protocol.PI_TO_BOARD, kind, values))
            self._seq = (self._seq + 1) % protocol.SEQ_MOD
            try:
                ser.write(frame)
                return True
            except (serial.SerialException, OSError):
                return False  # the reader notices the unplug on its next read

    # -- the reader thread -------------------------------------------------------------

    def _supervise(self) -> None:
        """The reader thread: reads until closed, whatever goes wrong. A failure of the
        link's own code drops the port and says "disconnected" (the service pauses the
        turn), then the link connects afresh, as after an unplug."""
        self._set_state("disconnected", "not found", notify=False)
        try:
            while not self._stop.is_set():
                try:
                    self._read_once()
                except Exception as e:
                    self.counters["link_errors"] += 1
                    what = f"{type(e).__name__}: {e}"
                    if what != self._logged:  # once per kind of failure, not once per retry
                        self._logged = what
                        log.warning("serial link failed (%s); reconnecting", what)
                    self._lost("link error", f"{self.current_port}: the link failed ({type(e).__name__}: {e}); "
                                             "reconnecting")
                    self._stop.wait(self._retry.pause())
        finally:
            if not self._stop.is_set():  # something no handler can catch: say so once
                self._lost("link error", "the serial link's reader stopped")

    def _read_once(self) -> None:
        if self._ser is None:
            if self._connect():
                self._retry.reset()
            else:  # no board yet, or not answering: the longer it is away, the less often it is looked for
                self._stop.wait(self._retry.pause())
            return
        try:
            data = self._ser.read(self._ser.in_waiting or 1)
        except (serial.SerialException, OSError, TypeError, AttributeError) as e:
            # TypeError/AttributeError: pyserial's fd went away under a concurrent close
            if not self._stop.is_set():
                self._lost("unplugged", f"{self.current_port}: {e}")
            return
        now = self.clock()
        if data:
            for f in self.parser.feed(data):
                self._frame(f, now)
        self._timers(now)

    def _connect(self) -> bool:
        try:
            candidates = [self.port] if self.port else list(self.finder())
        except Exception as e:  # a finder is outside code; never let it kill the thread
            candidates = []
            self.message = f"port finder failed: {e}"
        for path in candidates:
            try:
                # A read returns with a frame or at the latest after half the shortest
                # deadline it watches (the handshake's, the silence's): an idle board's
                # heartbeats wake this thread, a poll every few milliseconds would too.
                ser = serial.Serial(path, 115200, timeout=min(self.handshake_timeout, self.silence_timeout) / 2,
                                    write_timeout=0.5, exclusive=True)
            except (serial.SerialException, OSError, ValueError) as e:
                self.message = f"{path}: {e}"
                continue
            with self._wlock:
                self._ser = ser
            self.current_port = path
            self.parser.reset()
            self._synced = False
            self._expect = None
            self._cfg_sent = False
            self._awaiting_cfg = False
            self._bclock = _BoardClock()
            self._hello_tries = 0
            self._last_rx = self.clock()
            self._hello()
            return True
        return False

    def _hello(self) -> None:
        self._hello_at = self.clock()
        self._hello_tries += 1
        self._send("HELLO", (self.protocol_version, self.host_version))

    def _drop_port(self) -> None:
        with self._wlock:
            ser, self._ser = self._ser, None
        if ser is not None:
            try:
                ser.close()
            except Exception:
                pass

    def _lost(self, reason: str, message: str) -> None:
        self._drop_port()
        if self.state != "disconnected" or self.reason != reason:
            if self.state in ("connected", "version_mismatch"):
                self.counters["disconnects"] += 1
            self._set_state("disconnected", reason, message)

    def _timers(self, now: float) -> None:
        if not self._synced and self.state != "version_mismatch":
            if now - self._hello_at > self.handshake_timeout:
                if self._hello_tries >= 2:
                    self._lost("handshake", f"{self.current_port}: no HELLO from the board "
                                            f"(is the penguin-panel firmware installed?)")
                else:
                    self._hello()
        elif now - self._last_rx > self.silence_timeout:
            self._lost("silent", f"{self.current_port}: no valid frame for {self.silence_timeout:g} s")

    def _set_state(self, state: str, reason: str = "", message: str = "", notify: bool = True) -> None:
        self.state, self.reason = state, reason
        if message:
            self.message = message
        if notify:
            try:
                self.on_status(self.status())
            except Exception:
                pass  # a subscriber's bug must not stop the reader

    # -- frames --------------------------------------------------------------------------

    def _frame(self, f: tuple, now: float) -> None:
        """Handle one well-framed line. Whatever it carries, a frame that cannot be
        handled is counted as rejected and dropped, never fatal; only a frame handled in
        full counts as the board being heard."""
        seq, kind, args = f
        try:
            if kind == "HELLO":
                self._on_hello(args, now)
            elif self.state == "version_mismatch":
                # A board speaking another version: heard, but not read (its ERR says
                # why, and the PING/PONG barrier still works).
                if kind == "ERR":
                    self.last_board_error = " ".join(args)
                elif kind == "PONG":
                    self._on_pong(protocol.unpack(FROM_BOARD, kind, args), now)
            else:
                msg = protocol.unpack(FROM_BOARD, kind, args)
                if self._expect is not None and seq != self._expect:
                    # Frames were lost (garbled on the wire, or dropped by a board whose
                    # outbox overflowed): the snapshot repairs the state.
                    self.counters["gaps"] += 1
                    self.request_snapshot()
                getattr(self, "_on_" + kind.lower())(msg, now)
            self._expect = (seq + 1) % protocol.SEQ_MOD
        except Exception as e:
            # Well framed but not meaningful (a newer board? a broken one?): count it.
            self.parser.reject(f"bad {kind} frame: {type(e).__name__}: {e}"[:200])
            self.parser.frames -= 1
            return
        self._last_rx = now

    def _t(self, msg: dict, now: float) -> float:
        return self._bclock.map(msg["t"], now)

    def _on_hello(self, args: list[str], now: float) -> None:
        # The version fields first: they read the same in every protocol version.
        v = protocol.unpack(FROM_BOARD, "HELLO", args, only=protocol.VERSION_FIELDS)
        same = v["proto"] == self.protocol_version
        m = protocol.unpack(FROM_BOARD, "HELLO", args) if same else v
        if self.board and (m.get("boot"), m["uid"]) != (self.board.get("boot"), self.board.get("uid")):
            self.counters["board_resets"] += 1  # a new boot (or another board altogether)
        self._synced = False
        self._bclock = _BoardClock()
        if not same:
            self.board = dict(v)
            msg = (f"board {v['uid']} on {self.current_port} speaks protocol {v['proto']} "
                   f"(firmware {v['fw']}), this panel software speaks protocol "
                   f"{self.protocol_version}: run `penguin-panel firmware install` to update the board")
            self._set_state("version_mismatch", "version", msg)
            return
        self.board = {k: m[k] for k in ("fw", "proto", "uid", "boot", "rows", "cols", "adc", "enc")}
        self.board["cfg"] = "%04X" % m["cfg"]
        if self._config_crc is not None and m["cfg"] != self._config_crc:
            if not self._cfg_sent:
                self._cfg_sent = True
                self._awaiting_cfg = True
                self.send_config()  # the board answers ACK, HELLO, SNAP with the new wiring
                return
            self.message = (f"board kept config {self.board['cfg']}, expected {self._config_crc:04X}: "
                            f"{self.last_board_error or 'no reason given'}")
        self._hello_tries = 0
        self._hello_at = now

    def _on_snap(self, m: dict, now: float) -> None:
        if not self.board or self._awaiting_cfg:
            return  # before any HELLO, or of the old wiring: wait for the next one
        t = self._t(m, now)
        keys = set(m["keys"])
        adc = dict(enumerate(m["adc"]))
        enc = dict(enumerate(m["enc"]))
        self.counters["snapshots"] += 1
        # Releases first, then presses: a stale key lets go before a new one is taken.
        for rc in sorted(self.keys - keys):
            self._key(rc, False, t)
        for rc in sorted(keys - self.keys):
            self._key(rc, True, t)
        for ch, v in adc.items():
            if self.adc.get(ch) != v:
                self._analog(ch, v, t)
        for i, v in enc.items():
            if self.enc.get(i) != v:
                self._encoder(i, v, t)
        if not self._synced:
            self._synced = True
            if self.state != "connected":
                if self.counters["connects"]:
                    self.counters["reconnects"] += 1
                self.counters["connects"] += 1
                self._set_state("connected", "", f"board {self.board.get('uid')} on {self.current_port}")

    def _on_down(self, m: dict, now: float) -> None:
        self._on_key(m, now, True)

    def _on_up(self, m: dict, now: float) -> None:
        self._on_key(m, now, False)

    def _on_key(self, m: dict, now: float, down: bool) -> None:
        rc = (m["row"], m["col"])
        t = self._t(m, now)
        if not self._synced:
            return  # the snapshot that follows the HELLO carries it
        if (rc in self.keys) != down:
            self._key(rc, down, t)

    def _on_adc(self, m: dict, now: float) -> None:
        t = self._t(m, now)
        if self._synced:
            self._analog(m["ch"], m["value"], t)

    def _on_enc(self, m: dict, now: float) -> None:
        t = self._t(m, now)
        if self._synced:
            self._encoder(m["enc"], m["position"], t)

    def _on_beat(self, m: dict, now: float) -> None:
        self.counters["heartbeats"] += 1
        self.counters["board_dropped"] = m["drop"]
        self.board_rate = m["rate"]
        self._t(m, now)  # every timestamp tightens the clock mapping

    def _on_err(self, m: dict, now: float) -> None:
        self.last_board_error = m["text"]
        if m["text"].split(" ", 1)[0] == protocol.ERR_SAVE:
            # The board took the CFG but its flash would not keep it: it runs the new
            # wiring (its HELLO carries that checksum, so nothing is sent again) and
            # boots with the old one until a save works. Said once, in plain words.
            log.warning("board %s could not save the config it was sent to its flash; it uses it until it "
                        "restarts: %s", (self.board or {}).get("uid", "?"), m["text"])
        if self._awaiting_cfg and m["text"].startswith("config "):
            # The board refused the wiring (both ends validate alike, so this means a
            # different firmware): run with what it has, and say so on the status page.
            self._awaiting_cfg = False
            self.message = f"board refused the config: {self.last_board_error}"
            self.request_snapshot()

    def _on_ack(self, m: dict, now: float) -> None:
        if m["command"] == "CFG":
            self._awaiting_cfg = False  # the HELLO that follows is the answer, not a reset

    def _on_pong(self, m: dict, now: float) -> None:
        with self._pong:
            self._pong_n = m["n"]
            self._pong.notify_all()

    # -- emitting ------------------------------------------------------------------------

    def _key(self, rc: tuple[int, int], down: bool, t: float) -> None:
        (self.keys.add if down else self.keys.discard)(rc)
        control = self.matrix_map.get(rc)
        if control is None:
            self.counters["unmapped"] += 1
            return
        self._emit(self.on_event, InputEvent(control, down, t))

    def _analog(self, ch: int, v: int, t: float) -> None:
        self.adc[ch] = v
        control = self.adc_map.get(ch)
        if control is None:
            self.counters["unmapped"] += 1
            return
        self._emit(self.on_analog, AnalogReading(control, v, t, "adc"))

    def _encoder(self, i: int, v: int, t: float) -> None:
        self.enc[i] = v
        control = self.encoder_map.get(i)
        if control is None:
            self.counters["unmapped"] += 1
            return
        self._emit(self.on_analog, AnalogReading(control, v, t, "encoder"))

    def _emit(self, fn, item) -> None:
        try:
            fn(item)
        except Exception:
            pass  # the consumer's problem; the link keeps reading
