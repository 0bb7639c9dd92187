# The serial protocol between the Pico and the Pi: ONE module, imported by the firmware
# on the board and by the Pi's link (panel.link), so the two ends cannot drift apart.
# It holds both layers: the frame (sequence number, kind, checksum) and the message
# codec (what each kind carries, field by field, with its bounds), declared once in
# BOARD_TO_PI and PI_TO_BOARD below. Nothing else encodes or decodes a frame's arguments.
#
# Written in the subset MicroPython and CPython share: no f-strings with format specs,
# no typing, no dataclasses, no bytes.hex(), no str.isprintable()/bytes.isascii(); CI
# compiles it with mpy-cross and runs it under a real MicroPython.
# The format is documented in firmware/PROTOCOL.md, which a test checks against this module.
#
#   @<seq> <KIND> <arg> <arg> ... #<CRC>\n
#
# seq is 0..65535 and wraps; KIND is 1-8 upper-case letters; args are printable ASCII
# without spaces; CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of every byte
# before the '#', as 4 upper-case hex digits. A line may end in \r\n or \n.

PROTOCOL_VERSION = 2
MAX_LINE = 1024  # longest frame accepted, '\n' excluded; a longer line is garbage
SEQ_MOD = 65536
# Every number on the wire is at most 10 digits: 0..2**30 - 1 (signed: the same either
# side of 0). The board's clock and counters wrap there, which also keeps them in
# MicroPython's small integers (no allocation in the scan loop).
T_MOD = 1 << 30
MAX_N = T_MOD - 1

# -- messages ---------------------------------------------------------------------------
#
# Each kind lists its fields in the order they are sent: "name:type" is positional,
# "name=type" is sent as name=value; a trailing "?" makes the field optional (absent,
# or None when packing). Field types:
#   n      whole number 0..MAX_N          i      whole number -MAX_N..MAX_N
#   ms     board time in ms, 0..MAX_N, wraps to 0 after MAX_N
#   hex4   4 upper-case hex digits (a CRC-16), carried as an int
#   id     1-16 upper-case hex digits (the board's unique id, a boot id), a str
#   token  printable ASCII without spaces (a version, a command's name, compact JSON)
#   keys   row.col pairs joined by "," or "-" for none: a list of (row, col)
#   ns, is lists of n or i joined by ",", or "-" for none
#   words  the rest of the frame: words for people, one space apart (last field only)

BOARD_TO_PI = {
    "HELLO": ("fw=token", "proto=n", "uid=id", "boot=id", "rows=n", "cols=n", "adc=n", "enc=n",
              "cfg=hex4", "t=ms"),
    "SNAP": ("t=ms", "keys=keys", "adc=ns", "enc=is"),
    "DOWN": ("row:n", "col:n", "t=ms"),
    "UP": ("row:n", "col:n", "t=ms"),
    "ADC": ("ch:n", "value:n", "t=ms"),
    "ENC": ("enc:n", "position:i", "t=ms"),
    "BEAT": ("t=ms", "rate=n", "rej=n", "drop=n"),
    "PONG": ("n:n", "t=ms"),
    "ACK": ("command:token", "cfg=hex4?"),
    "ERR": ("text:words",),
}

PI_TO_BOARD = {
    "HELLO": ("proto=n?", "host=token?"),  # optional: a person may type "hello"
    "SNAP": (),
    "PING": ("n:n?",),
    "CFG": ("config:token",),
    "MAINT": (),
    "RESET": (),
}

# The first word of an ERR that says the board could not save a CFG to its flash (full,
# or failing): it runs on that config in memory until it restarts. The Pi logs it and
# does not send the CFG again (the board's HELLO already carries its checksum).
ERR_SAVE = "save"

# The fields of a HELLO that keep their place in every protocol version, so that both
# ends can always tell which version the other speaks.
VERSION_FIELDS = ("fw", "proto", "uid")

_fields_cache = {}


def fields(table, kind):
    """A kind's fields as (name, type, keyword, optional) tuples, in wire order."""
    key = (id(table), kind)
    got = _fields_cache.get(key)
    if got is None:
        spec = table.get(kind)
        if spec is None:
            raise ProtocolError("unknown message " + kind)
        got = []
        for f in spec:
            opt = f[-1:] == "?"
            if opt:
                f = f[:-1]
            i = f.find("=")
            kw = i > 0
            if not kw:
                i = f.find(":")
            if got and got[-1][2] and not kw:
                raise ProtocolError(kind + ": positional field after a name=value one")
            got.append((f[:i], f[i + 1:], kw, opt))
        got = tuple(got)
        _fields_cache[key] = got
    return got


def _check_n(name, v, lo):
    if not isinstance(v, int) or isinstance(v, bool) or v < lo or v > MAX_N:
        raise ProtocolError(name + ": " + repr(v) + " out of range")
    return str(v)


def _join(name, items, one):
    if not items:
        return "-"
    return ",".join([one(name, x) for x in items])


def _write_key(name, k):
    return _check_n(name, k[0], 0) + "." + _check_n(name, k[1], 0)


def _write_n(name, v):
    return _check_n(name, v, 0)


def _write_i(name, v):
    return _check_n(name, v, -MAX_N)


def _pack_value(name, typ, v):
    if typ == "n" or typ == "ms":
        return _check_n(name, v, 0)
    if typ == "i":
        return _check_n(name, v, -MAX_N)
    if typ == "hex4":
        if not isinstance(v, int) or v < 0 or v > 0xFFFF:
            raise ProtocolError(name + ": " + repr(v) + " is not a CRC-16")
        return "%04X" % v
    if typ == "keys":
        return _join(name, v, _write_key)
    if typ == "ns":
        return _join(name, v, _write_n)
    if typ == "is":
        return _join(name, v, _write_i)
    s = str(v)
    if typ == "id":
        _unpack_value(name, typ, s)
    return s


def pack(table, kind, values=()):
    """The arguments of a `kind` message, from `values` in the order of its fields
    (None for an optional field left out). Raises ProtocolError naming the field."""
    fs = fields(table, kind)
    if len(values) > len(fs):
        raise ProtocolError(kind + ": " + str(len(values)) + " values for " + str(len(fs)) + " fields")
    args = []
    for k in range(len(fs)):
        name, typ, kw, opt = fs[k]
        v = values[k] if k < len(values) else None
        if v is None:
            if opt:
                continue
            raise ProtocolError(kind + " " + name + ": missing")
        if typ == "words":
            args.extend(str(v).split())
            continue
        s = _pack_value(name, typ, v)
        args.append(name + "=" + s if kw else s)
    return args


def _num(name, s, lo):
    neg = lo < 0 and s[:1] == "-"
    d = s[1:] if neg else s
    if not d or len(d) > 10 or not d.isdigit():
        raise ProtocolError(name + ": " + repr(s[:12]) + " is not a whole number")
    v = int(d)
    if v > MAX_N:
        raise ProtocolError(name + ": " + s + " is out of range")
    return -v if neg else v


def _list(name, s, one):
    if s == "-":
        return []
    return [one(name, x) for x in s.split(",")]


def _read_key(name, s):
    i = s.find(".")
    if i < 0:
        raise ProtocolError(name + ": " + repr(s[:12]) + " is not row.col")
    return (_num(name, s[:i], 0), _num(name, s[i + 1:], 0))


def _read_n(name, s):
    return _num(name, s, 0)


def _read_i(name, s):
    return _num(name, s, -MAX_N)


def _unpack_value(name, typ, s):
    if typ == "n" or typ == "ms":
        return _num(name, s, 0)
    if typ == "i":
        return _num(name, s, -MAX_N)
    if typ == "hex4":
        if len(s) != 4:
            raise ProtocolError(name + ": " + repr(s[:12]) + " is not 4 hex digits")
        v = 0
        for b in s.encode():
            d = _unhex(b)
            if d < 0:
                raise ProtocolError(name + ": " + repr(s) + " is not 4 hex digits")
            v = (v << 4) | d
        return v
    if typ == "id":
        if not s or len(s) > 16:
            raise ProtocolError(name + ": " + repr(s[:20]) + " is not an id")
        for b in s.encode():
            if _unhex(b) < 0:
                raise ProtocolError(name + ": " + repr(s[:20]) + " is not an id")
        return s
    if typ == "keys":
        return _list(name, s, _read_key)
    if typ == "ns":
        return _list(name, s, _read_n)
    if typ == "is":
        return _list(name, s, _read_i)
    return s  # token


def unpack(table, kind, args, only=None):
    """{field: value} from a frame's arguments, every field checked against its type and
    bounds. The positional fields come first, in order (their text may hold '='); the
    rest are name=value, in any order, and names the kind does not have are ignored, so
    a newer sender can add some. An optional field left out is None. `only`: read just
    these fields (a HELLO's VERSION_FIELDS, from a board of any version).
    Raises ProtocolError naming the field."""
    fs = fields(table, kind)
    out = {}
    p = 0
    n = len(args)
    for name, typ, kw, opt in fs:
        if kw:
            break
        if typ == "words":
            s = " ".join(args[p:]) if p < n else None
            p = n
        else:
            s = args[p] if p < n else None
            p += 1
        if only is None or name in only:
            out[name] = None if s is None else _unpack_value(name, typ, s)
            if s is None and not opt:
                raise ProtocolError(kind + " " + name + ": missing")
    kws = {}
    for a in args[p:]:
        i = a.find("=")
        if i <= 0:
            if only is None:
                raise ProtocolError(kind + ": unexpected argument " + repr(a[:20]))
            continue
        kws[a[:i]] = a[i + 1:]
    for name, typ, kw, opt in fs:
        if not kw or (only is not None and name not in only):
            continue
        s = kws.get(name)
        if s is None:
            if not opt:
                raise ProtocolError(kind + " " + name + ": missing")
            out[name] = None
        else:
            out[name] = _unpack_value(name, typ, s)
    return out


# -- frames -----------------------------------------------------------------------------

# Why a table: a bit-by-bit CRC costs 8 loop turns per byte; on the RP2040 and on a
# Pi Zero the table (256 small ints, ~1 KB) is several times faster (rp2fast reads it too).
CRC_TABLE = []
for _i in range(256):
    _c = _i << 8
    for _j in range(8):
        _c = ((_c << 1) ^ 0x1021) if _c & 0x8000 else (_c << 1)
    CRC_TABLE.append(_c & 0xFFFF)
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
    if _fast_crc is not None:
        return _fast_crc(data, crc)
    t = CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ t[(crc >> 8) ^ b]
    return crc


class ProtocolError(ValueError):
    """A line that is not a valid frame, or a frame whose arguments do not fit its kind;
    the message says why (one short phrase)."""


def _hex4(n):
    return bytes((_HEX[(n >> 12) & 15], _HEX[(n >> 8) & 15], _HEX[(n >> 4) & 15], _HEX[n & 15]))


def encode(seq, kind, args=()):
    """One frame as bytes, '\n' included. args: str or int each, no spaces (use pack()
    to make them from a message's values)."""
    parts = ["@" + str(seq % SEQ_MOD), kind]
    for a in args:
        a = str(a)
        if not a or " " in a or "\n" in a or "\r" in a:
            raise ProtocolError("bad argument " + repr(a))
        parts.append(a)
    body = (" ".join(parts) + " ").encode()
    if min(body) < 32 or max(body) > 126:
        raise ProtocolError("argument not printable ASCII")
    if len(body) + 5 > MAX_LINE:
        raise ProtocolError("frame too long")
    return body + b"#" + _hex4(crc16(body)) + b"\n"


# -- all-number frames, without allocation (the board's hot path) ----------------------
#
# DOWN, UP, ADC, ENC, BEAT and PONG carry only numbers. The board writes them straight
# into its outbox from a template made once from BOARD_TO_PI, so they follow the same
# declaration as every other frame and cost no allocation (on the RP2040 a frame built
# by pack() and encode() takes ~1.2 ms and leaves ~1 KB for the collector). A template
# is the frame's bytes with a hole for each number: a byte k < 16 stands for vals[k]
# (0: the sequence number, then the fields in order). rp2fast.queue does the same
# as put_numbers() below in machine code (and queues the frame in the outbox).

NUMBER_TYPES = ("n", "i", "ms")


def number_template(table, kind):
    """The template of an all-number message (see above); ProtocolError if a field of
    `kind` is not a number or is optional."""
    t = "@\x00 " + kind
    k = 1
    for name, typ, kw, opt in fields(table, kind):
        if typ not in NUMBER_TYPES or opt:
            raise ProtocolError(kind + " " + name + ": not a number field")
        t += " " + (name + "=" if kw else "") + chr(k)
        k += 1
    return (t + " ").encode()


def number_frame_max(tmpl):
    """The longest frame a template makes: every number 11 characters (sign, 10 digits)."""
    holes = 0
    for b in tmpl:
        if b < 32:
            holes += 1
    return len(tmpl) - holes + 11 * holes + 6  # '#', 4 hex digits, '\n'


def put_numbers(buf, pos, tmpl, vals):
    """Write the frame of template `tmpl` with the numbers vals[k] (ints, each within
    -MAX_N..MAX_N: not checked, they are the board's own) into the bytearray `buf` at
    `pos`; the frame's end. The same bytes as encode(seq, kind, pack(...)), and under
    MicroPython no allocation: small ints and the caller's buffer only."""
    start = pos
    for b in tmpl:
        if b >= 32:
            buf[pos] = b
            pos += 1
            continue
        v = vals[b]
        if v < 0:
            buf[pos] = 45  # '-'
            pos += 1
            v = -v
        x = v // 10
        while x:           # pos after the last digit
            pos += 1
            x //= 10
        i = pos
        pos += 1
        while True:        # the digits, last first
            buf[i] = 48 + v % 10
            v //= 10
            if not v:
                break
            i -= 1
    crc = 0xFFFF
    t = CRC_TABLE
    for i in range(start, pos):
        crc = ((crc << 8) & 0xFFFF) ^ t[(crc >> 8) ^ buf[i]]
    buf[pos] = 35  # '#'
    buf[pos + 1] = _HEX[crc >> 12]
    buf[pos + 2] = _HEX[(crc >> 8) & 15]
    buf[pos + 3] = _HEX[(crc >> 4) & 15]
    buf[pos + 4] = _HEX[crc & 15]
    buf[pos + 5] = 10  # '\n'
    return pos + 6


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
    # min/max run in C on both interpreters: the one printable-ASCII test both have.
    if min(body) < 32 or max(body) > 126:
        raise ProtocolError("not printable ASCII")
    if crc16(body) != want:
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
        self._joined = False  # a connection's first line is next (see reset)

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
        joined, self._joined = self._joined, False
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
            if not joined:
                self.reject(str(e))
            return
        except Exception:  # e.g. a decode() of odd bytes on a port; still just garbage
            if not joined:
                self.reject("garbage")
            return
        self.frames += 1
        out.append(f)

    def reject(self, why):
        """Count a frame as bad: a broken line, or (called by a receiver) a well-formed
        frame whose message made no sense."""
        self.rejected += 1
        self.last_error = why

    def reset(self):
        """A new connection starts clean: a partial line forgotten, counters kept. Its first
        line may be the end of a frame sent before the port was opened (opening a port
        drops what it held, and a board writes whenever it likes): if that line is not a
        frame it is dropped without being counted as a bad frame."""
        self.buf = b""
        self._skipping = False
        self._joined = True
