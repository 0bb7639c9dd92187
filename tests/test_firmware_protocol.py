"""The shared frame format: encode/decode, the stream parser, and a differential fuzz
against an independent reference (a regex and the standard library's CRC-CCITT)."""

import binascii
import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from panel.firmware import protocol
from panel.firmware.protocol import Parser, ProtocolError, crc16, decode, encode


@pytest.fixture(autouse=True, params=["binascii", "pure"])
def crc_path(request, monkeypatch):
    """Every test runs twice: with CPython's C CRC (the Pi) and the pure table loop (the
    board, which has no binascii.crc_hqx)."""
    if request.param == "pure":
        monkeypatch.setattr(protocol, "_fast_crc", None)
    return request.param


def test_crc_matches_the_standard_crc16_ccitt_false():
    assert crc16(b"123456789") == 0x29B1
    for data in (b"", b"@0 HELLO ", bytes(range(256))):
        assert crc16(data) == binascii.crc_hqx(data, 0xFFFF)


def test_a_frame_reads_like_the_protocol_document():
    assert encode(17, "DOWN", [3, 5, "t=1234"]) == b"@17 DOWN 3 5 t=1234 #2E72\n"
    assert decode(b"@17 DOWN 3 5 t=1234 #2E72") == (17, "DOWN", ["3", "5", "t=1234"])
    assert decode(b"@17 DOWN 3 5 t=1234 #2E72\r") == (17, "DOWN", ["3", "5", "t=1234"])


ARG = st.text(alphabet=st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=20)


@given(seq=st.integers(0, 10**6), kind=st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=1, max_size=8),
       args=st.lists(ARG, max_size=8))
def test_every_encoded_frame_decodes_to_what_was_sent(seq, kind, args):
    assert decode(encode(seq, kind, args)[:-1]) == (seq % 65536, kind, args)


@pytest.mark.parametrize("line, reason", [
    (b"hello", "not a frame"),
    (b"@17 DOWN 3 5 t=1234 2E72", "no checksum"),
    (b"@17 DOWN 3 5 t=1234 #2E7G", "bad checksum digits"),
    (b"@17 DOWN 3 5 t=1235 #2E72", "checksum mismatch"),
    (b"@17 DOWN 3 5 t=1234 #2e72", "bad checksum digits"),
])
def test_bad_lines_are_refused_with_a_reason(line, reason):
    with pytest.raises(ProtocolError, match=reason):
        decode(line)


def _signed(body: bytes) -> bytes:
    return body + b"#" + b"%04X" % binascii.crc_hqx(body, 0xFFFF)


@pytest.mark.parametrize("body, reason", [
    (b"@x DOWN ", "bad sequence number"),
    (b"@65536 DOWN ", "bad sequence number"),
    (b"@1 down ", "bad kind"),
    (b"@1 DOWN  3 ", "empty argument"),
    (b"@1 DOWN \x01 ", "not printable"),
    (b"@1 TOOLONGKIND ", "bad kind"),
])
def test_well_checksummed_nonsense_is_refused_too(body, reason):
    with pytest.raises(ProtocolError, match=reason):
        decode(_signed(body))


def test_arguments_that_would_break_the_framing_cannot_be_sent():
    for bad in ("two words", "", "line\n", "é"):
        with pytest.raises(ProtocolError):
            encode(1, "ERR", [bad])
    with pytest.raises(ProtocolError):
        encode(1, "CFG", ["x" * protocol.MAX_LINE])


def test_the_parser_joins_partial_lines_and_drops_garbage():
    p = Parser()
    f1, f2 = encode(1, "BEAT", ["t=5"]), encode(2, "DOWN", [0, 1, "t=6"])
    got = []
    stream = b"\x00\xffnoise\n" + f1 + b"@3 DOWN 0" + b"\n" + f2
    for i in range(len(stream)):  # one byte at a time: every split point
        got += p.feed(stream[i:i + 1])
    assert got == [(1, "BEAT", ["t=5"]), (2, "DOWN", ["0", "1", "t=6"])]
    assert p.rejected == 2 and p.frames == 2


def test_a_new_connection_s_first_line_may_be_the_end_of_a_frame_and_is_not_a_bad_frame():
    p = Parser()
    p.feed(b"@4 BEAT t=")                    # the old connection's partial frame: forgotten
    p.reset()
    tail = encode(5, "BEAT", ["t=9"])[7:]    # opening the port cut the board's frame
    assert p.feed(tail + encode(6, "BEAT", ["t=10"]) + b"noise\n") == [(6, "BEAT", ["t=10"])]
    assert p.rejected == 1 and p.last_error == "not a frame"   # only the noise after it
    p.reset()
    assert p.feed(encode(7, "BEAT", []) + tail) == [(7, "BEAT", [])]   # a whole first frame is read
    assert p.rejected == 2


def test_an_endless_line_is_counted_once_and_the_next_frame_still_arrives():
    p = Parser()
    assert p.feed(b"x" * 5000) == []
    assert p.feed(b"y" * 5000) == []
    assert len(p.buf) <= protocol.MAX_LINE + 1  # bounded memory on a flood
    got = p.feed(b"zz\n" + encode(7, "BEAT", []))
    assert got == [(7, "BEAT", [])]
    assert p.rejected == 1


def test_typed_commands_are_accepted_only_on_the_board_side():
    board, pi = Parser(typed=True), Parser()
    assert board.feed(b"snap\r\n") == [(None, "SNAP", [])]
    assert board.feed(b"ping 4\n") == [(None, "PING", ["4"])]
    assert pi.feed(b"snap\n") == []
    assert pi.rejected == 1


# -- the fuzz: at least 100,000 frames ----------------------------------------------------

_REF = re.compile(rb"@(\d{1,5}) ([A-Z]{1,8})((?: [\x21-\x7e]+)*) #([0-9A-F]{4})")


def reference(line: bytes):
    """An independent statement of the format: what a valid line decodes to, or None."""
    if line.endswith(b"\r"):
        line = line[:-1]
    m = _REF.fullmatch(line)
    if not m or len(line) > protocol.MAX_LINE or int(m.group(1)) > 65535:
        return None
    body = line[:-5]
    if binascii.crc_hqx(body, 0xFFFF) != int(m.group(4), 16):
        return None
    args = m.group(3).decode().split(" ")[1:]
    return int(m.group(1)), m.group(2).decode(), args


KINDS = ["HELLO", "SNAP", "DOWN", "UP", "ADC", "ENC", "BEAT", "PING", "PONG", "ERR", "ACK", "CFG"]


def _good(rng: random.Random) -> bytes:
    args = [rng.choice(["t=%d" % rng.randrange(10**9), str(rng.randrange(96)), "keys=0.1,3.11",
                        "uid=E6614103E7452D2F", "".join(chr(rng.randrange(33, 127)) for _ in range(rng.randrange(1, 12)))])
            for _ in range(rng.randrange(0, 6))]
    return encode(rng.randrange(65536), rng.choice(KINDS), args)[:-1]


def _mutate(rng: random.Random, line: bytes) -> bytes:
    b = bytearray(line)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(b)) if b else 0
        if op == 0 and b:
            b[i] ^= 1 << rng.randrange(8)                 # a flipped bit
        elif op == 1 and b:
            b[i] = rng.randrange(256)                      # a replaced byte
        elif op == 2:
            b.insert(i, rng.randrange(256))                # an inserted byte
        elif op == 3 and b:
            del b[i]                                       # a lost byte
        elif op == 4:
            b = b[:rng.randrange(len(b) + 1)]              # a torn frame
        else:
            b[i:i] = bytes(rng.randrange(32, 127) for _ in range(rng.randrange(1, 8)))
    return bytes(b).replace(b"\n", b"")  # a '\n' would split it into two lines


@pytest.mark.slow
def test_fuzz_100k_frames_no_exception_every_bad_frame_counted_every_good_one_accepted():
    rng = random.Random(20261129)
    p = Parser()
    total, n_bad, expected = 100_500, 0, []
    chunk = bytearray()
    for i in range(total):
        r = rng.random()
        if r < 0.4:
            line = _good(rng)
        elif r < 0.9:
            line = _mutate(rng, _good(rng))
        else:
            line = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 60))).replace(b"\n", b"")
        if not line or line == b"\r":
            continue  # blank lines are not frames (see Parser)
        ref = reference(line)
        if ref is None:
            n_bad += 1
        else:
            expected.append(ref)
        chunk += line + (b"\r\n" if i % 7 == 0 else b"\n")
    got = []
    data = bytes(chunk)
    pos = 0
    while pos < len(data):  # random chunk sizes: frames are split everywhere
        n = rng.randrange(1, 600)
        got += p.feed(data[pos:pos + n])
        pos += n
    assert got == expected
    assert p.frames == len(expected) and p.rejected == n_bad
    assert p.frames + p.rejected >= 100_000 and n_bad > 50_000


def test_every_example_frame_in_the_protocol_document_is_valid():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "firmware" / "PROTOCOL.md").read_text()
    examples = [line.strip() for line in doc.splitlines() if re.fullmatch(r"@\d+ [A-Z]+.* #[0-9A-F]{4}", line.strip())]
    assert len(examples) >= 5
    for line in examples:
        seq, kind, args = decode(line.encode())
        assert (seq, kind, args) == reference(line.encode())
        table = protocol.PI_TO_BOARD if line.startswith("@0 ") else protocol.BOARD_TO_PI
        protocol.unpack(table, kind, args)                     # and each reads as its kind


# -- the message codec --------------------------------------------------------------------

MAX = protocol.MAX_N
VALUES = {
    "n": st.integers(0, MAX), "ms": st.integers(0, MAX), "i": st.integers(-MAX, MAX),
    "hex4": st.integers(0, 0xFFFF),
    "id": st.text(alphabet="0123456789ABCDEF", min_size=1, max_size=16),
    "token": ARG,
    "keys": st.lists(st.tuples(st.integers(0, MAX), st.integers(0, MAX)), max_size=12),
    "ns": st.lists(st.integers(0, MAX), max_size=12), "is": st.lists(st.integers(-MAX, MAX), max_size=12),
    "words": st.lists(ARG, min_size=1, max_size=6).map(" ".join),
}
EVERY_KIND = [(name, t, k) for name, t in (("board", protocol.BOARD_TO_PI), ("pi", protocol.PI_TO_BOARD)) for k in t]


@pytest.mark.parametrize("side, table, kind", EVERY_KIND, ids=lambda x: x if isinstance(x, str) else "")
@given(data=st.data())
def test_every_message_reads_back_as_it_was_sent(side, table, kind, data):
    fs = protocol.fields(table, kind)
    values = [None if opt and data.draw(st.booleans()) else data.draw(VALUES[typ]) for _, typ, _, opt in fs]
    line = encode(7, kind, protocol.pack(table, kind, values))
    _, k, args = decode(line[:-1])
    got = protocol.unpack(table, k, args)
    assert got == {name: v for (name, _, _, _), v in zip(fs, values)}


@pytest.mark.parametrize("kind, args, why", [
    ("BEAT", ["t=" + "9" * 330, "rate=1", "rej=0", "drop=0"], "t: '999999999999' is not a whole number"),
    ("DOWN", ["1", "2", "t=1073741824"], "t: 1073741824 is out of range"),
    ("DOWN", ["1", "-2", "t=5"], "col: '-2' is not a whole number"),
    ("ENC", ["0", "-1073741824", "t=5"], "position: -1073741824 is out of range"),
    ("DOWN", ["1", "t=5"], "col: 't=5' is not a whole number"),
    ("DOWN", ["1", "2"], "DOWN t: missing"),
    ("DOWN", ["1", "2", "3", "t=5"], "DOWN: unexpected argument '3'"),
    ("HELLO", ["fw=1", "proto=2", "uid=e661"], "uid: 'e661' is not an id"),
    ("ACK", ["CFG", "cfg=12345"], "cfg: '12345' is not 4 hex digits"),
    ("SNAP", ["t=1", "keys=1.2.3", "adc=-", "enc=-"], "keys: '2.3' is not a whole number"),
    ("SNAP", ["t=1", "keys=12", "adc=-", "enc=-"], "keys: '12' is not row.col"),
    ("SNAP", ["t=1", "keys=-", "adc=1,,2", "enc=-"], "adc: '' is not a whole number"),
    ("NOISE", [], "unknown message NOISE"),
])
def test_arguments_that_do_not_fit_their_kind_are_refused_with_the_field_named(kind, args, why):
    with pytest.raises(ProtocolError) as e:
        protocol.unpack(protocol.BOARD_TO_PI, kind, args)
    assert str(e.value) == why


def test_a_sender_cannot_put_out_of_range_values_on_the_wire():
    for kind, values in [("DOWN", (1, 2, MAX + 1)), ("DOWN", (-1, 2, 5)), ("ADC", (0, True, 5)),
                         ("ACK", ("CFG", 0x10000)), ("DOWN", (1, 2)), ("DOWN", (1, 2, 3, 4))]:
        with pytest.raises(ProtocolError):
            protocol.pack(protocol.BOARD_TO_PI, kind, values)


def test_fields_a_newer_sender_adds_are_ignored_and_a_hello_of_any_version_reads_its_version():
    m = protocol.unpack(protocol.BOARD_TO_PI, "BEAT", ["t=1", "rate=2", "rej=3", "drop=4", "temp=27"])
    assert m == {"t": 1, "rate": 2, "rej": 3, "drop": 4}
    future = ["fw=9.0.0", "proto=9", "uid=E661", "colour=blue"]       # none of version 2's other fields
    assert protocol.unpack(protocol.BOARD_TO_PI, "HELLO", future, only=protocol.VERSION_FIELDS) == \
        {"fw": "9.0.0", "proto": 9, "uid": "E661"}
    with pytest.raises(ProtocolError):
        protocol.unpack(protocol.BOARD_TO_PI, "HELLO", future)


# -- PROTOCOL.md against the codec ----------------------------------------------------------

def syntax(table, kind):
    """How PROTOCOL.md writes a kind: <name:type> positional, name=<type>, [optional]."""
    parts = [kind]
    for name, typ, kw, opt in protocol.fields(table, kind):
        s = f"{name}=<{typ}>" if kw else f"<{name}:{typ}>"
        parts.append(f"[{s}]" if opt else s)
    return " ".join(parts)


def _doc_section(title):
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "firmware" / "PROTOCOL.md").read_text()
    part = doc.split("\n## " + title + "\n", 1)[1].split("\n## ", 1)[0]
    return [re.match(r"\| `([^`]*)` \|", line).group(1) for line in part.splitlines()
            if re.match(r"\| `[^`]*` \|", line)]


def test_the_protocol_document_lists_every_message_as_the_codec_declares_it():
    assert _doc_section("Coprocessor -> Pi") == [syntax(protocol.BOARD_TO_PI, k) for k in protocol.BOARD_TO_PI]
    assert _doc_section("Pi -> board") == [syntax(protocol.PI_TO_BOARD, k) for k in protocol.PI_TO_BOARD]
    used = {typ for t in (protocol.BOARD_TO_PI, protocol.PI_TO_BOARD) for k in t
            for _, typ, _, _ in protocol.fields(t, k)}
    assert set(_doc_section("Field types")) == used


def test_the_documented_bounds_are_the_codecs():
    from pathlib import Path

    doc = (Path(__file__).resolve().parent.parent / "firmware" / "PROTOCOL.md").read_text()
    assert protocol.MAX_N == 2**30 - 1 and f"0..{protocol.MAX_N} (2^30 - 1)" in doc
    assert f"Pico <-> Pi serial protocol, version {protocol.PROTOCOL_VERSION}" in doc


# -- all-number frames written in place (the board's hot path) ---------------------------

NUMBER_KINDS = [k for k in protocol.BOARD_TO_PI
                if all(typ in protocol.NUMBER_TYPES and not opt for _, typ, _, opt in protocol.fields(protocol.BOARD_TO_PI, k))]


def test_the_all_number_kinds_are_the_boards_hot_frames():
    assert sorted(NUMBER_KINDS) == ["ADC", "BEAT", "DOWN", "ENC", "PONG", "UP"]
    for kind in ("HELLO", "SNAP", "ACK", "ERR"):
        with pytest.raises(ProtocolError, match="not a number field"):
            protocol.number_template(protocol.BOARD_TO_PI, kind)


NUMBER = st.one_of(st.sampled_from([0, 1, 9, 10, 99, 100, protocol.MAX_N]), st.integers(0, protocol.MAX_N))


@given(kind=st.sampled_from(NUMBER_KINDS), seq=st.integers(0, 65535), data=st.data(), at=st.integers(0, 40))
def test_a_frame_put_in_place_is_byte_for_byte_the_encoded_one(kind, seq, data, at):
    fs = protocol.fields(protocol.BOARD_TO_PI, kind)
    values = [data.draw(NUMBER) * (data.draw(st.sampled_from([1, -1])) if typ == "i" else 1) for _, typ, _, _ in fs]
    tmpl = protocol.number_template(protocol.BOARD_TO_PI, kind)
    buf = bytearray(b"?" * 200)
    end = protocol.put_numbers(buf, at, tmpl, [seq] + values)
    want = encode(seq, kind, protocol.pack(protocol.BOARD_TO_PI, kind, values))
    assert bytes(buf[at:end]) == want
    assert buf[:at] == b"?" * at and buf[end:] == b"?" * (200 - end)   # nothing around it touched
    assert end - at <= protocol.number_frame_max(tmpl)
