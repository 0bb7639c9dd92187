"""The build's whole panel: every control of the layout, both sides' ids and the expansion's,
whatever a match is played on. Inputs are checked against it between matches, and the
token positions it holds are kept through every match (they are side-free)."""

from __future__ import annotations

from functools import lru_cache

from panel.core.layout import Layout
from panel.core.layout_file import load_layout


@lru_cache(maxsize=4)
def whole_panel(layout_path: str | None) -> Layout:
    return load_layout(layout_path, side="blue", expansion=True)
