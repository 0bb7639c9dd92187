"""The reference build's Pico for the benchmarks: `penguin-panel firmware emulator` (the real
firmware loop on an emulated board behind a pty) in a process of its own, as a real Pico is
a processor of its own: its 1 kHz scan is never counted in the cockpit's CPU or budget.

`PicoProcess` starts it (in the benchmark's parent, outside any CPU budget); the process
under test drives its keys with `PicoKeys`, over the emulator's typed commands on two pipe
ends passed down to it (`fds`, `spec`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path


class PicoProcess:
    """The emulated board in a process of its own; a context manager."""

    def __init__(self, folder: Path, config: dict, name: str = "board", *, preexec_fn=None):
        path = folder / f"{name}.json"
        path.write_text(json.dumps(config))
        self.p = subprocess.Popen([sys.executable, "-m", "panel", "firmware", "emulator", "--config", str(path)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, preexec_fn=preexec_fn)
        line = self.p.stdout.readline().decode(errors="replace")
        m = re.search(r"emulated board on (\S+)", line)
        if not m:
            self.p.kill()
            raise SystemExit(f"the emulated board did not start: {line!r}")
        self.port = m.group(1)
        self.p.stdout.readline()  # its list of commands

    @property
    def fds(self) -> tuple[int, int]:
        """(its commands' pipe, its answers' pipe): passed down to the process that drives it."""
        return self.p.stdin.fileno(), self.p.stdout.fileno()

    @property
    def spec(self) -> dict:
        to_fd, from_fd = self.fds
        return {"port": self.port, "to_fd": to_fd, "from_fd": from_fd}

    def close(self) -> None:
        try:
            self.p.stdin.write(b"quit\n")
            self.p.stdin.flush()
            self.p.wait(30)
        except (OSError, subprocess.TimeoutExpired):
            self.p.kill()

    def __enter__(self) -> "PicoProcess":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class PicoKeys:
    """The board's keys, driven from the process under test: `press`/`release` write the
    emulator's command (the key closes when its process reads it, some tens of
    microseconds later: counted in the measured path, never taken off it). Its answers
    ("ok" for each command) stay in their pipe until `drain()` reads them between the
    measured windows: no thread of the process under test wakes for them in one."""

    def __init__(self, spec: dict):
        self.port = spec["port"]
        self._to = spec["to_fd"]
        self._from = spec["from_fd"]
        os.set_blocking(self._from, False)  # (drain reads what is there, never waits)

    def _say(self, words: str) -> None:
        os.write(self._to, (words + "\n").encode())

    def press(self, row: int, col: int) -> None:
        self._say(f"press {row} {col}")

    def release(self, row: int, col: int) -> None:
        self._say(f"release {row} {col}")

    def drain(self) -> None:
        """What the emulated board has answered, read now: anything but "ok" is said."""
        said = b""
        try:  # (a pipe holds thousands of answers: draining between actions is plenty)
            while chunk := os.read(self._from, 65536):
                said += chunk
        except BlockingIOError:
            pass
        for line in said.splitlines():
            if line.strip() not in (b"ok", b""):
                print(f"the emulated board said: {line.decode(errors='replace').strip()}", file=sys.stderr)
