"""Small builders shared by the Kaboom tests."""

from __future__ import annotations

from typing import Any

from panel.games.kaboom.engine import KaboomMatch
from panel.games.kaboom.settings import KaboomSettings, MissionRules, Player
from panel.core.events import Action, GameEvent, InputEvent
from panel.games.kaboom.mapping_file import load_mapping

MAPPING = load_mapping()


def rules(**kw: Any) -> MissionRules:
    base = dict(time_per_player=60, alert_seconds=20, recharge_seconds=25, recharge_above_start=True, alerts=5,
                alerts_face_up=0)
    return MissionRules(**{**base, **kw})


def match(colours: tuple[str, ...] = ("red", "blue", "white"), *, seed: int = 0, **kw: Any) -> KaboomMatch:
    settings = KaboomSettings(tuple(Player(c) for c in colours), rules(**kw), mission="custom",
                              seed=seed)
    return KaboomMatch(settings, MAPPING)


def act(m: KaboomMatch, name: str, t: float, **params: Any) -> list[GameEvent]:
    return m.handle(Action(name, t, params))


def press(m: KaboomMatch, colour_or_control: str, t: float) -> list[GameEvent]:
    """Press and release a button: a player's colour, or a control id."""
    control = MAPPING.players.get(colour_or_control, colour_or_control)
    return m.handle(InputEvent(control, True, t)) + m.handle(InputEvent(control, False, t))


def refused(m: KaboomMatch, colour_or_control: str, t: float) -> str:
    """Press a button whose action the rules refuse now: the reason; nothing happens."""
    control = MAPPING.players.get(colour_or_control, colour_or_control)
    m.advance(t)
    why = m.refusal(m.asks(InputEvent(control, True, t)))
    assert why is not None
    before = m.snapshot(t)
    assert press(m, control, t) == [] and m.snapshot(t) == before
    return why.reason


def refused_act(m: KaboomMatch, name: str, t: float, **params: Any) -> str:
    """Ask for an action the rules refuse now: the reason; nothing happens."""
    m.advance(t)
    why = m.refusal(Action(name, t, params))
    assert why is not None
    before = m.snapshot(t)
    assert act(m, name, t, **params) == [] and m.snapshot(t) == before
    return why.reason


def hold(m: KaboomMatch, colour: str, t: float, down: bool = True) -> list[GameEvent]:
    return m.handle(InputEvent(MAPPING.players[colour], down, t))


def only(events: list[GameEvent], kind: str) -> GameEvent:
    found = [e for e in events if e.type == kind]
    assert len(found) == 1, f"expected one {kind} in {[e.type for e in events]}"
    return found[0]


def types(events: list[GameEvent]) -> list[str]:
    return [e.type for e in events]
