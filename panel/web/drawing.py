"""The join page's QR code, drawn by panel/web/qr.py, loaded only when a join page first
asks (the tower's card is the service's to draw: panel/service/drawing.py)."""

from __future__ import annotations


def qr_svg(url: str) -> str:
    from panel.web.qr import qr_svg as draw

    return draw(url)
