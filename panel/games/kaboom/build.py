"""A Kaboom mission from a settings table, the way the service makes one: the missions file
it names (or the shipped one), the layout's [kaboom] mapping, the engine. Used to set a
mission up from the game master's form or the walk-up, and to rebuild a stored one from
its log."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from panel.games.kaboom.engine import KaboomMatch
from panel.games.kaboom.settings import DIFFICULTIES, KaboomSettings
from panel.core.errors import ConfigError
from panel.core.layout import Layout
from panel.core.layout_file import load_layout
from panel.games.kaboom.mapping import KaboomMapping
from panel.games.kaboom.mapping_file import load_mapping
from panel.games.kaboom.missions import load_missions


@lru_cache(maxsize=4)
def panel_for(layout_path: str | None) -> tuple[Layout, KaboomMapping]:
    """The whole panel (both sides share their control ids; the expansion's are there
    whether fitted or not) and how Kaboom uses it. ConfigError when the layout has no
    usable [kaboom] table."""
    return load_layout(layout_path, expansion=True), load_mapping(layout_path)


def kaboom_match(raw: dict[str, Any], positions: dict[str, str] | None = None, *, key: str = "") -> KaboomMatch:
    """Raises ConfigError (one line per problem) for settings that cannot be played, and
    ValueError for players this panel has no button for."""
    presets = load_missions(raw.get("missions") if isinstance(raw.get("missions"), str) else None)
    settings = KaboomSettings.from_dict(raw, presets, key=key)
    layout, mapping = panel_for(settings.layout)
    return KaboomMatch(settings, mapping, layout=layout, positions=positions)


def declaration(layout_path: str | None, defaults: dict[str, Any], tr: Any = None) -> dict[str, Any]:
    """What the game master's page needs to offer a Kaboom mission on this panel: the
    penguins it has a button for, the difficulties, every mission's numbers at each, the
    custom mission's starting values and limits, and the defaults. `available` is False
    (with the reason, in the language of `tr`) on a layout without a usable [kaboom] table."""
    try:
        _, mapping = panel_for(layout_path)
        missions = defaults.get("missions")
        presets = load_missions(missions if isinstance(missions, str) else None)
    except ConfigError as e:
        return {"available": False, "reason": "; ".join(p.text(tr) for p in e.problems)}
    return {"available": True, "colours": list(mapping.players), "difficulties": list(DIFFICULTIES),
            "form": list(KaboomSettings.FORM), **presets.as_dict(),
            "defaults": {k: v for k, v in defaults.items() if k in KaboomSettings.FORM}}
