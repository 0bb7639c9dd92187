"""`penguin-panel firmware ...`: config checking, the install plan, the maintenance
handshake against the emulated board, the emulator and watch commands as processes."""

import json
import subprocess
import sys

import pytest
import serial

from panel.tools.cli import main
from panel.tools.commands.firmware import BOARD_FILES, FIRMWARE_DIR, enter_maintenance
from panel.firmware import protocol
from panel.link.emulator import FirmwareEmulator
from waiting import wait_until

CFG = {"rows": [2, 3], "cols": [10, 11], "adc": [26]}


def write(tmp_path, obj, name="wiring.json"):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return str(p)


def test_config_prints_what_the_board_stores(tmp_path, capsys):
    assert main(["firmware", "config", "--config", write(tmp_path, CFG)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rows"] == [2, 3] and out["scan_hz"] == 1000 and out["diodes"] is True


def test_a_bad_config_gives_one_line_per_problem_naming_file_and_key(tmp_path, capsys):
    path = write(tmp_path, {"rows": [2, 2], "cols": [31], "scan_hz": "fast"})
    assert main(["firmware", "config", "--config", path]) == 2
    err = capsys.readouterr().err.splitlines()
    assert f"error: {path}: rows: GP2 is already used by rows" in err
    assert f"error: {path}: cols: 31 is not a GPIO number 0-29" in err
    assert f"error: {path}: scan_hz: must be a whole number from 100 to 5000" in err
    assert all("Traceback" not in line for line in err)
    assert main(["firmware", "config", "--config", write(tmp_path, "{nope")]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_install_dry_run_shows_one_mpremote_command_with_every_file(tmp_path, capsys):
    assert main(["firmware", "install", "--port", "/dev/ttyACM7", "--config", write(tmp_path, CFG), "--dry-run"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if "mpremote" in x and "connect" in x).split()
    assert line[line.index("connect") + 1] == "/dev/ttyACM7"
    for f in BOARD_FILES:
        assert str(FIRMWARE_DIR / f) in line
    assert ":config.json" in line and line[-1] == "reset"
    assert '"rows":[2,3]' in out
    # every .py of the firmware goes to the board, except the CPython package marker
    assert set(BOARD_FILES) == {p.name for p in FIRMWARE_DIR.glob("*.py")} - {"__init__.py"}


def test_install_and_config_take_the_wiring_from_a_hardware_map(capsys):
    from pathlib import Path

    ref = str(Path(__file__).resolve().parent.parent / "panel" / "maps" / "reference.toml")
    assert main(["firmware", "config", "--hardware", ref]) == 0
    cfg = json.loads(capsys.readouterr().out)
    assert cfg["rows"] == list(range(8)) and cfg["adc"] == [26, 27]
    assert main(["firmware", "install", "--port", "/dev/ttyACM0", "--hardware", ref, "--dry-run"]) == 0
    assert '"cols":[8,9,10,11,12,13,14,15,16,17]' in capsys.readouterr().out


def test_install_needs_a_config_or_an_explicit_keep(capsys):
    assert main(["firmware", "install", "--port", "/dev/null", "--dry-run"]) == 2
    assert "--config" in capsys.readouterr().err


def test_maintenance_handshake_reboots_the_running_firmware_without_its_app():
    with FirmwareEmulator(CFG) as emu:
        assert enter_maintenance(emu.port, timeout=2) is True
        wait_until(lambda: emu.in_maintenance, guard=5)
        assert emu.in_maintenance and emu.board is None   # no app, no watchdog
        # nothing answers now, as on a board already in maintenance mode
        assert enter_maintenance(emu.port, timeout=1) is False
        emu.reset()                                      # `mpremote reset`: the app is back
        assert emu.board is not None


def _spawn(args):
    return subprocess.Popen([sys.executable, "-m", "panel", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, bufsize=1)


def test_the_emulator_command_is_a_board_a_terminal_can_talk_to(tmp_path):
    proc = _spawn(["firmware", "emulator", "--config", write(tmp_path, CFG)])
    try:
        first = proc.stdout.readline()
        assert first.startswith("emulated board on /dev/")
        port = first.split()[-1]
        proc.stdout.readline()                           # the command list
        with serial.Serial(port, 115200, timeout=2) as ser:
            ser.write(b"snap\n")                         # typed, as a person would
            line = ser.readline()
            while b" SNAP " not in line:
                line = ser.readline()
            _, kind, args = protocol.decode(line.rstrip(b"\n"))
            assert protocol.unpack(protocol.BOARD_TO_PI, kind, args)["keys"] == []
            proc.stdin.write("press 1 0\n")
            assert proc.stdout.readline().strip() == "ok"
            line = ser.readline()
            while b" DOWN " not in line:
                line = ser.readline()
            _, kind, args = protocol.decode(line.rstrip(b"\n"))
            m = protocol.unpack(protocol.BOARD_TO_PI, kind, args)
            assert (m["row"], m["col"]) == (1, 0)
        proc.stdin.write("fly away\n")
        assert "unknown command 'fly'" in proc.stdout.readline()
        proc.stdin.write("press 9 9\n")
        assert proc.stdout.readline().startswith("usage: press R C")
        proc.stdin.write("quit\n")
        assert proc.wait(timeout=10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_watch_prints_status_and_key_events_from_the_board(tmp_path):
    with FirmwareEmulator(CFG) as emu:
        proc = _spawn(["firmware", "watch", "--port", emu.port, "--seconds", "2"])
        try:
            line = proc.stdout.readline()
            while "status connected" not in line:
                line = proc.stdout.readline()
                assert line, proc.stderr.read()
            emu.press(1, 1)
            lines = []
            while "frames received" not in (line := proc.stdout.readline()):
                lines.append(line)
            assert any(" key r1c1 down" in x for x in lines)
            assert "rejected 0" in line
            assert proc.wait(timeout=10) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
