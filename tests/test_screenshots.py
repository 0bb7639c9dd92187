"""`penguin-panel docs screenshots`: the guide's pictures photographed from the real pages of
a real cockpit, every one written at the size of the screen its page is used on."""

from __future__ import annotations

import struct

import pytest

from panel.tools.cli import main
from panel.tools.screenshots import expected_images

pytestmark = pytest.mark.browser


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_the_command_photographs_every_page_at_its_size(tmp_path, capsys):
    assert main(["docs", "screenshots", "--out", str(tmp_path)]) == 0, capsys.readouterr().err
    written = {p.name: png_size(p.read_bytes()) for p in tmp_path.glob("*.png")}
    assert written == expected_images()
    assert written["airlines-board.png"] == (1920, 1080) and written["kaboom-sim.png"] == (1024, 768)
    assert written["kaboom-tower.png"] == (390, 844)
