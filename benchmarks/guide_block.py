"""A benchmark's own figures written into a marked block of a page (the guide's, a
README's), with the machine they were measured on: the pages never carry figures copied
by hand, which go stale with every change."""

from __future__ import annotations

import os
import platform
import sys
from pathlib import Path


def cpu_model() -> str:
    """This machine's processor, as /proc/cpuinfo names it, and its core count."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores"


def write_block(path: Path, begin: str, end: str, body: str) -> None:
    """Replace what stands between the `begin` and `end` markers of `path` with `body`."""
    text = path.read_text()
    i, j = text.find(begin), text.find(end, text.find(begin) + 1)
    if i < 0 or j < i:
        sys.exit(f"{path} has no marked block ({begin} ... {end})")
    path.write_text(text[:i + len(begin)] + "\n" + body + text[j:])
