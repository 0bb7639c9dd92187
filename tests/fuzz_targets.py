"""Every parser of the project as a fuzz target: bytes in, and only the parser's own clear
error out (ConfigError, ProtocolError, BodyError). Anything else escaping is a crash.

Used by tests/test_fuzz.py (Hypothesis, bounded, in every test run; the saved crashes in
tests/data/fuzz/<target>/ replayed as regression cases) and by tests/fuzz_atheris.py
(coverage-guided with atheris/libFuzzer, which saves what it finds in the same folders).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

from panel.games.airlines.deck_file import load_deck
from panel.games.airlines.engine import MatchSettings, names
from panel.core.errors import ConfigError
from panel.firmware import protocol
from panel.hardware.map import load_map
from panel.core.layout_file import load_layout
from panel.link.serial_link import SerialLink
from panel.games.scenarios import load_scenario
from panel.server.body import BodyError, parse_body
from panel.run import read_settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "data" / "fuzz"  # saved crashes: regression cases
_TMP = Path(tempfile.mkdtemp(prefix="penguin-fuzz-"))


def _as_file(data: bytes, name: str) -> Path:
    path = _TMP / name
    path.write_bytes(data)
    return path


def _toml_loader(load: Callable[[Path], object], name: str) -> Callable[[bytes], None]:
    def target(data: bytes) -> None:
        try:
            load(_as_file(data, name))
        except ConfigError as e:
            assert e.problems and all(str(p) and "\n" not in str(p) for p in e.problems), e.problems
    return target


def json_body(data: bytes) -> None:
    """A request body, then what the service does with a match's settings from it."""
    try:
        body = parse_body(data)
    except BodyError as e:
        assert str(e) and "\n" not in str(e)
        return
    for check in (lambda: MatchSettings.from_dict(body, key="", allowed=names("form")),
                  lambda: MatchSettings.check_defaults(body, "defaults", key="")):
        try:
            check()
        except ConfigError as e:
            assert e.problems and all("\n" not in str(p) for p in e.problems)


_LINK = None


def serial_frames(data: bytes) -> None:
    """Bytes from the co-processor: framing, each frame's fields, and the host's handling
    (which must count a bad frame, never stop)."""
    global _LINK
    if _LINK is None:
        _LINK = SerialLink({(0, 0): "cross.up", (1, 2): "cross.ok"}, adc_map={0: "slider.blue"},
                           encoder_map={0: "knob.main"}, finder=lambda: [])
    parser = protocol.Parser()
    for f in parser.feed(data):
        seq, kind, args = f
        try:
            protocol.unpack(protocol.BOARD_TO_PI, kind, args)
        except ProtocolError:
            pass
        _LINK._frame(f, 1000.0)
    assert parser.frames + parser.rejected <= data.count(b"\n") + 1


ProtocolError = protocol.ProtocolError

TARGETS: dict[str, Callable[[bytes], None]] = {
    "layout": _toml_loader(lambda p: load_layout(p), "layout.toml"),
    "hardware_map": _toml_loader(load_map, "map.toml"),
    "deck": _toml_loader(load_deck, "deck.toml"),
    "scenario": _toml_loader(load_scenario, "scenario.toml"),
    "settings": _toml_loader(lambda p: read_settings(str(p)), "settings.toml"),
    "serial_frames": serial_frames,
    "json_body": json_body,
}


def seeds(target: str) -> list[bytes]:
    """Well-formed inputs to start from: the project's own files of that kind."""
    files = {
        "layout": [ROOT / "panel" / "layouts" / "penguin-airlines.toml", ROOT / "tests" / "data" / "tiny_layout.toml"],
        "hardware_map": sorted((ROOT / "panel" / "maps").glob("*.toml")),
    }.get(target, [])
    out = [f.read_bytes() for f in files if f.is_file()]
    if target == "deck":  # a whole generated deck, every kind of card
        from panel.games.airlines.deck_file import dump_deck
        from panel.games.airlines.deckgen import generate_deck

        out.append(dump_deck(generate_deck(load_layout(expansion=True), seed=3, expansion=True)).encode())
    out += SEED_TEXTS.get(target, [])
    return out


SEED_TEXTS: dict[str, list[bytes]] = {
    "scenario": [b'[match]\nteams = [{ name = "Ice", players = ["ann", "bob"] }, { name = "Snow", players = '
                 b'["cid", "dee"] }]\nturn_seconds = 30\n[[input]]\nt = 0.5\naction = "start_turn"\n'
                 b'[[input]]\nt = 1.0\npress = "grid.r1c1"\n[[input]]\nt = 1.5\nmove = "knob.main"\nto = "2"\n'],
    "settings": [b'[service]\nhost = "0.0.0.0"\nport = 8080\npin = "482913"\nallow_hosts = ["cafe.local"]\n'
                 b'[match]\nturn_seconds = 35\ntime_counters = 4\ntarget_points = 12\n'],
    "serial_frames": [b"".join([
        protocol.encode(1, "HELLO", ["fw=1.0", f"proto={protocol.PROTOCOL_VERSION}", "uid=E66138", "boot=1A2B",
                                     "rows=2", "cols=3", "adc=1", "enc=1", "cfg=0000", "t=10"]),
        protocol.encode(2, "SNAP", ["t=20", "keys=0.0,1.2", "adc=512", "enc=-3"]),
        protocol.encode(3, "DOWN", ["1", "2", "t=1200"]), protocol.encode(4, "UP", ["1", "2", "t=1250"]),
        protocol.encode(5, "ADC", ["0", "733", "t=1300"]), protocol.encode(6, "ENC", ["0", "-4", "t=1400"]),
        protocol.encode(7, "BEAT", ["t=2200", "rate=1000", "rej=0", "drop=0"]),
        protocol.encode(8, "PONG", ["5", "t=2300"]), protocol.encode(9, "ACK", ["CFG", "cfg=1F2E"]),
        protocol.encode(10, "ERR", ["no", "such", "pin"])]),
        b"garbage\n@7 DOWN 0 0 t=" + b"9" * 400 + b" #0000\n"],
    "json_body": [b'{"mode": "competitive", "teams": [{"name": "Gulls", "players": ["Ana", "Bo"]}, '
                  b'{"name": "Puffins", "players": ["Cy", "Di"]}], "turn_seconds": 30, "seed": 7}',
                  b'{"action": "challenge", "team": "Gulls", "card": "current"}', b'{"pin": "2468"}'],
}


def saved_crashes(target: str) -> list[Path]:
    folder = CORPUS / target
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.startswith(("crash-", "timeout-", "oom-", "leak-"))) if folder.is_dir() else []


def save_crash(target: str, data: bytes) -> Path:
    """Keep an input that crashed a target as a regression case (tests replay the folder)."""
    import hashlib

    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"crash-{hashlib.sha1(data).hexdigest()[:16]}"
    path.write_bytes(data)
    return path


if os.environ.get("PENGUIN_FUZZ_TMP"):  # the atheris runner's own scratch folder
    _TMP = Path(os.environ["PENGUIN_FUZZ_TMP"])
