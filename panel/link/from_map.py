"""A SerialLink for a hardware map's co-processor.

What the board is told and how its numbering maps to controls (the firmware config, the
matrix cells, the wire's ADC and encoder channels) is the map's (`HardwareMap.board()`),
so the config written to the board and the link's maps always agree.
"""

from __future__ import annotations

import os

from panel.link.serial_link import SerialLink, find_ports


def link_for_map(hmap, **kw) -> SerialLink:
    """A SerialLink for the map's co-processor. The map's `port` is tried first, then any
    Pico found by USB id, so a board that comes back under another name is found."""
    board = hmap.board()
    preferred = board.port

    def finder() -> list[str]:
        found = find_ports()
        if preferred and os.path.exists(preferred):
            found = [preferred] + [p for p in found if os.path.realpath(p) != os.path.realpath(preferred)]
        return found

    kw.setdefault("finder", finder)
    return SerialLink(board.matrix, adc_map=board.adc, encoder_map=board.encoders,
                      firmware_config=board.firmware_config, **kw)
