"""The join page's QR code, as inline SVG (segno: pure Python, no image libraries)."""

from __future__ import annotations

import io

import segno


def qr_svg(url: str, *, scale: int = 8, border: int = 4) -> str:
    """A QR code of `url` as an SVG document (black on white, sized in whole modules)."""
    if not isinstance(url, str) or not url:
        raise ValueError("qr_svg needs a non-empty URL")
    qr = segno.make(url, error="m", micro=False)
    buf = io.BytesIO()
    qr.save(buf, kind="svg", scale=scale, border=border, dark="#000000", light="#ffffff",
            xmldecl=False, svgns=True, title="Join code QR", svgclass="qr", lineclass=None,
            omitsize=True)
    return buf.getvalue().decode("utf-8")
