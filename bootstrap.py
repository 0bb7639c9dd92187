#!/usr/bin/env python3
"""Set up and run the cockpit with nothing but python3.

    python3 bootstrap.py start      # set up, then start the cockpit (play --sim)
    python3 bootstrap.py test       # set up, then run the whole test suite

It makes a virtual environment in .venv, installs the project into it (again only when
pyproject.toml changed), installs the Debian packages the tests need when it can
(root or password-less sudo), and hands over. Extra arguments go to the command run:
`start --port 8081` runs `play --sim --port 8081` (added to the simulator, not in its
place); `start --hardware MAP` runs the built cockpit, without --sim.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / "bin"
# Debian packages the test suite uses: a real browser, a real MQTT broker (the venue
# bridge's tests), systemd's unit checker. Each is looked for first and installed only
# when missing.
TEST_APT = {"chromium": "/usr/bin/chromium", "mosquitto": "/usr/sbin/mosquitto",
            "systemd": "/usr/bin/systemd-analyze",
            # OpenSSL's command line: the MQTT tests make a CA and certificates for TLS.
            "openssl": "/usr/bin/openssl",
            # The maker kit: Graphviz for WireViz, Cairo for the deck PDF, poppler to turn
            # its pages into images in the tests, the font the cards are drawn in.
            "graphviz": "/usr/bin/dot", "libcairo2": "/usr/share/doc/libcairo2/copyright",
            "poppler-utils": "/usr/bin/pdftoppm", "fonts-dejavu-core": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"}


def say(msg: str) -> None:
    print(f"bootstrap: {msg}", flush=True)


def run(cmd: list[str], **kw) -> None:
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        say(f"failed ({r.returncode}): {' '.join(cmd)}")
        sys.exit(r.returncode)


def can_apt() -> list[str] | None:
    if not shutil.which("apt-get"):
        return None
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n"]
    return None


_apt_updated = False


def apt_install(packages: list[str]) -> bool:
    global _apt_updated
    prefix = can_apt()
    if prefix is None:
        say(f"please install these Debian packages first: sudo apt-get install {' '.join(packages)}")
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    if not _apt_updated:
        subprocess.run(prefix + ["apt-get", "update", "-qq"], env=env)
        _apt_updated = True
    r = subprocess.run(prefix + ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages], env=env)
    return r.returncode == 0


def ensure_venv() -> None:
    if (BIN / "python").exists():
        return
    say("creating .venv")
    r = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True)
    if r.returncode != 0:
        # Debian ships venv without ensurepip until python3-venv is installed.
        shutil.rmtree(VENV, ignore_errors=True)
        ver = f"python3.{sys.version_info.minor}-venv"
        if not apt_install(["python3-venv", ver]) and not apt_install(["python3-venv"]):
            say("could not create a virtual environment: install python3-venv and run me again")
            sys.exit(1)
        run([sys.executable, "-m", "venv", str(VENV)])


def on_a_pi() -> bool:
    """A Raspberry Pi, as the hardware layer tells it (/proc/device-tree/model): the
    project's own check, importable before anything is installed (stdlib only)."""
    sys.path.insert(0, str(ROOT))
    try:
        from panel.hardware.pins import board_model
    finally:
        sys.path.remove(str(ROOT))
    return board_model() is not None


def ensure_build_tools() -> None:
    """On a Pi, RPi.GPIO is built from source (PyPI has no wheel for it): it needs a C
    compiler and the Python headers, which Raspberry Pi OS Lite leaves out."""
    headers = Path(f"/usr/include/python3.{sys.version_info.minor}/Python.h")
    missing = [pkg for pkg, path in (("gcc", Path("/usr/bin/gcc")), ("python3-dev", headers)) if not path.exists()]
    if missing:
        say(f"installing what RPi.GPIO needs to build: {' '.join(missing)}")
        apt_install(missing)


def ensure_installed(extras: list[str]) -> None:
    """The project and its extras; on a Pi also the `pi` extra (its pin backends and
    NeoPixel drivers), with what building them needs."""
    pi = on_a_pi()
    extras = extras + ["pi"] if pi else extras
    extras = f"[{','.join(extras)}]" if extras else ""
    stamp = VENV / f".installed{extras}"
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    if pi:
        ensure_build_tools()
    say(f"installing the project{extras} into .venv")
    quiet = ["-q"] if os.environ.get("CI") else []
    run([str(BIN / "python"), "-m", "pip", "install", *quiet, "--upgrade", "pip"])
    run([str(BIN / "python"), "-m", "pip", "install", *quiet, "-e", f"{ROOT}{extras}"])
    stamp.write_text(digest)


def ensure_test_packages() -> None:
    missing = [pkg for pkg, path in TEST_APT.items() if not Path(path).exists()]
    if missing:
        say(f"installing Debian packages for the tests: {' '.join(missing)}")
        if not apt_install(missing):
            say("some tests need them and will fail without them")


def start_args(rest: list[str]) -> list[str]:
    """`play`'s arguments for `start REST`: the simulator with REST added, unless REST
    names a hardware map (a built cockpit) or says --sim itself."""
    built = any(a == "--hardware" or a.startswith("--hardware=") for a in rest)
    return ["play", *([] if built or "--sim" in rest else ["--sim"]), *rest]


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("start", "test"):
        print(__doc__)
        return 2
    what, rest = argv[0], argv[1:]
    ensure_venv()
    if what == "start":
        ensure_installed([])
        cmd = [str(BIN / "penguin-panel"), *start_args(rest)]
    else:
        ensure_installed(["dev"])
        ensure_test_packages()
        cmd = [str(BIN / "python"), "-m", "pytest", *rest]
    say(" ".join(cmd))
    os.chdir(ROOT)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
