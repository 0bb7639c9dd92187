# The serial protocol between the Pico and the Pi: ONE module, imported by the firmware
# on the board and by the Pi's link (panel.link), so the two ends cannot drift apart.
#
# Written in the subset MicroPython and CPython share: no f-strings with format specs,
# no typing, no dataclasses, no bytes.hex(); CI compiles it with mpy-cross.
# The frame format is documented in firmware/PROTOCOL.md.
#
#   @<seq> <KIND> <arg> <arg> ... #<CRC>\n
#
# seq is 0..65535 and wraps; KIND is 1-8 upper-case letters; args are printable ASCII
# without spaces; CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of every byte
# before the '#', as 4 upper-case hex digits. A line may end in \r\n or \n.

PROTOCOL_VERSION = 1
MAX_LINE = 1024  # longest frame accepted, '\n' excluded; a longer line is garbage
SEQ_MOD = 65536

# Why a table: a bit-by-bit CRC costs 8 loop turns per byte; on the RP2040 and on a
# Pi Zero the table (256 small ints, ~1 KB) is several times faster.
_TABLE = []
for _i in range(256):
    _c = _i << 8
    for _j in range(8):
        _c = ((_c << 1) ^ 0x1021) if _c & 0x8000 else (_c << 1)
    _TABLE.append(_c & 0xFFFF)
del _i, _j, _c

_HEX = b"0123456789ABCDEF"

# On the Pi, CPython's binascii computes the very same CRC in C (crc_hqx with init
# 0xFFFF is CRC-16/CCITT-FALSE): several times faster on a Pi Zero. MicroPython's
# binascii has no crc_hqx, so the board uses the table loop below. Tests run both.
try:
    from binascii import crc_hqx as _fast_crc
except ImportError:
    _fast_crc = None


def crc16(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of a bytes-like object (check value of b"123456789": 0x29B1)."""
    t = _TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[(crc >> 8) ^ b]
    return crc


class ProtocolError(ValueError):
    """A line that is not a valid frame; the message says why (one short phrase)."""


def _hex4(n):
    return bytes((_HEX[(n >> 12) & 15], _HEX[(n >> 8) & 15], _HEX[(n >> 4) & 15], _HEX[n & 15]))


def encode(seq, kind, args=()):
    """One frame as bytes, '\n' included. args: str or int each, no spaces."""
    parts = ["@" + str(seq % SEQ_MOD), kind]
    for a in args:
        a = str(a)
        if not a or " " in a or "\n" in a or "\r" in a:
            raise ProtocolError("bad argument " + repr(a))
        parts.append(a)
    body = (" ".join(parts) + " ").encode()
    for b in body:
        if b < 32 or b > 126:
            raise ProtocolError("argument not printable ASCII")
    if len(body) + 5 > MAX_LINE:
        raise ProtocolError("frame too long")
    return body + b"#" + _hex4(crc16(body)) + b"\n"


def _unhex(b):
    if 48 <= b <= 57:
        return b - 48
    if 65 <= b <= 70:
        return b - 55
    return -1


def decode(line):
    """(seq, kind, args) from one line (bytes, without '\n'; a trailing '\r' is allowed).
    Raises ProtocolError naming what is wrong."""
    if line[-1:] == b"\r":
        line = line[:-1]
    n = len(line)
    if n > MAX_LINE:
        raise ProtocolError("line too long")
    if n < 10 or line[0] != 64:  # '@'; shortest frame: "@0 K #XXXX"
        raise ProtocolError("not a frame")
    if line[n - 5] != 35 or line[n - 6] != 32:  # ' #'
        raise ProtocolError("no checksum")
    want = 0
    for i in range(n - 4, n):
        v = _unhex(line[i])
        if v < 0:
            raise ProtocolError("bad checksum digits")
        want = (want << 4) | v
    body = line[:n - 5]
    if _fast_crc is not None:
        crc = _fast_crc(body, 0xFFFF)
        if crc == want and not (body.isascii() and body.decode().isprintable()):
            raise ProtocolError("not printable ASCII")
    else:
        # One pass checks the characters and computes the CRC: the board's hot loop.
        t = _TABLE
        crc = 0xFFFF
        for b in body:
            if b < 32 or b > 126:
                raise ProtocolError("not printable ASCII")
            crc = ((crc << 8) & 0xFFFF) ^ t[(crc >> 8) ^ b]
    if crc != want:
        raise ProtocolError("checksum mismatch")
    parts = body[1:n - 6].decode().split(" ")
    if len(parts) < 2:
        raise ProtocolError("no kind")
    s = parts[0]
    if not s or len(s) > 5 or not s.isdigit():
        raise ProtocolError("bad sequence number")
    seq = int(s)
    if seq >= SEQ_MOD:
        raise ProtocolError("bad sequence number")
    kind = parts[1]
    if not kind or len(kind) > 8 or not kind.isalpha() or not kind.isupper():
        raise ProtocolError("bad kind")
    args = parts[2:]
    for a in args:
        if not a:
            raise ProtocolError("empty argument")
    return seq, kind, args


def options(args):
    """Split args into (positional list, {key: value}) at the first '=' of each."""
    pos = []
    kw = {}
    for a in args:
        i = a.find("=")
        if i > 0:
            kw[a[:i]] = a[i + 1:]
        else:
            pos.append(a)
    return pos, kw


class Parser:
    """Turns a byte stream into frames. Survives garbage, partial and over-long lines:
    every line that is not a valid frame is counted in `rejected` and dropped.

    typed=True (the board's side) also accepts a line a person typed in a serial
    terminal without '@' and checksum, e.g. "snap" or "ping": it comes back with
    seq None and the kind upper-cased."""

    def __init__(self, typed=False):
        self.typed = typed
        self.buf = b""
        self.frames = 0
        self.rejected = 0
        self.last_error = None
        self._skipping = False  # inside an over-long line: drop up to its '\n'

    def feed(self, data):
        """Frames found in `data` (plus what was buffered), as (seq, kind, args) tuples."""
        out = []
        buf = self.buf + data if self.buf else bytes(data)
        start = 0
        while True:
            i = buf.find(b"\n", start)
            if i < 0:
                break
            line = buf[start:i]
            start = i + 1
            if self._skipping:
                self._skipping = False
                continue
            self._line(line, out)
        rest = buf[start:]
        if len(rest) > MAX_LINE + 1:
            if not self._skipping:
                self.rejected += 1
                self.last_error = "line too long"
                self._skipping = True
            rest = b""
        self.buf = rest
        return out

    def _line(self, line, out):
        if line[-1:] == b"\r":
            line = line[:-1]
        if not line:
            return  # a bare newline (a person pressing enter) is not a frame
        if self.typed and line[0] != 64:
            try:
                words = line.decode().split()
            except Exception:
                words = []
            if words and words[0].isalpha():
                self.frames += 1
                out.append((None, words[0].upper(), words[1:]))
                return
        try:
            f = decode(line)
        except ProtocolError as e:
            self.rejected += 1
            self.last_error = str(e)
            return
        except Exception:  # e.g. a decode() of odd bytes on a port; still just garbage
            self.rejected += 1
            self.last_error = "garbage"
            return
        self.frames += 1
        out.append(f)

    def reset(self):
        """Forget a partial line (a new connection starts clean); counters stay."""
        self.buf = b""
        self._skipping = False
