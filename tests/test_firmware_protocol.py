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
    assert examples
    for line in examples:
        assert decode(line.encode()) == reference(line.encode())
