"""From a hardware map (panel.hardware.map) to what the link and the firmware need.

The map names sources as the maker thinks of them (a matrix cell, ADC channel 0-2 =
GP26-GP28, an encoder's GP pins); the board numbers its inputs in config order (the
n-th entry of "adc" is channel n on the wire). This is the one place that translates,
so the firmware config written to the board and the link's maps always agree.
"""

from __future__ import annotations

import os
from typing import Any

from .serial_link import SerialLink, find_ports

PICO_ADC_GP = {0: 26, 1: 27, 2: 28}


def link_settings(hmap) -> dict[str, Any]:
    """{"firmware_config", "matrix_map", "adc_map", "encoder_map", "port"} for a map."""
    cp = hmap.coprocessor
    adc = sorted(hmap.coprocessor_adc().items())          # [(map channel, control)]
    encoders = sorted(hmap.coprocessor_encoders().items())  # [(control, (a, b))]
    cfg: dict[str, Any] = {
        "rows": list(cp.rows) if cp else [],
        "cols": list(cp.cols) if cp else [],
        "adc": [PICO_ADC_GP[ch] for ch, _ in adc],
        "encoders": [list(pins) for _, pins in encoders],
    }
    return {
        "firmware_config": cfg,
        "matrix_map": dict(hmap.matrix_cells()),
        "adc_map": {i: control for i, (_, control) in enumerate(adc)},
        "encoder_map": {i: control for i, (control, _) in enumerate(encoders)},
        "port": cp.port if cp else None,
    }


def link_for_map(hmap, **kw) -> SerialLink:
    """A SerialLink for the map's co-processor. The map's `port` is tried first, then any
    Pico found by USB id, so a board that comes back under another name is found."""
    s = link_settings(hmap)
    preferred = s["port"]

    def finder() -> list[str]:
        found = find_ports()
        if preferred and os.path.exists(preferred):
            found = [preferred] + [p for p in found if os.path.realpath(p) != os.path.realpath(preferred)]
        return found

    kw.setdefault("finder", finder)
    return SerialLink(s["matrix_map"], adc_map=s["adc_map"], encoder_map=s["encoder_map"],
                      firmware_config=s["firmware_config"], **kw)
