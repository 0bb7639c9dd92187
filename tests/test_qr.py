"""The join page's QR code encodes exactly the tower URL."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
import segno

from panel.web.qr import qr_svg


def modules_from_svg(svg: str) -> set[tuple[int, int]]:
    """Read the dark modules back from segno's path (runs of 'h' strokes on half-row lines)."""
    root = ET.fromstring(svg)
    path = [p for p in root.iter("{http://www.w3.org/2000/svg}path") if p.get("stroke")][0]
    dark, x, y = set(), 0.0, 0.0
    for cmd, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", path.get("d")):
        if cmd == "M":
            x, y = float(a), float(b)
        elif cmd == "m":
            x, y = x + float(a), y + float(b)
        else:
            for i in range(int(float(a))):
                dark.add((int(x) + i, int(y)))
            x += float(a)
    return dark


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/tower?code=K7QP", "http://penguin.local/tower?code=ZZ99"])
def test_qr_svg_encodes_the_url(url):
    svg = qr_svg(url)
    assert "viewBox" in svg
    qr = segno.make(url, error="m", micro=False)
    want = {(x + 4, y + 4) for y, row in enumerate(qr.matrix) for x, v in enumerate(row) if v}
    assert modules_from_svg(svg) == want


def test_qr_svg_refuses_an_empty_url():
    with pytest.raises(ValueError, match="URL"):
        qr_svg("")
