"""Penguin Kaboom's actions and game events, declared once (the engine, the scenario reader
and the service read them here)."""

from __future__ import annotations

from panel.core.events import declare_event_types

# Every action, with the parameters each takes. A player's colour button asks for join or
# leave before the start and for pass during the mission; `new_match` is asked of the
# mission in play (may another replace it now?), never played inside one.
ACTIONS: dict[str, tuple[str, ...]] = {
    "join": ("colour",),
    "leave": ("colour",),
    "start": (),
    "pass": ("colour",),
    "recharge": (),
    "lift_cover": (),
    "lower_cover": (),
    "confirm": (),
    "alert_flipped": (),
    "alert_deactivated": (),
    "pause": ("reason",),
    "resume": ("reason",),
    "abandon": (),
    "new_match": (),
}

# Every type of game event the engine sends, and what it says.
EVENT_TYPES: dict[str, str] = declare_event_types({
    "paused": "every clock stopped (reason: pause, restart, link)",
    "resumed": "the clocks run again",
    "player_joined": "a penguin joined before the start (colour, the players now)",
    "player_left": "a penguin left before the start (colour, the players now)",
    "mission_started": "the clocks started (first player, players, names, seconds each, alert cards)",
    "turn_passed": "the turn went on (from, to, why: pass or tie_break, time left of both)",
    "recharge": "time added to the player with the least (to, seconds, capped, before, time left)",
    "alert": "an alert sounded: flip an alert card (number, cards face up and down, alerts waiting)",
    "alert_flipped": "the players reported an alert card flipped face up (cards face up and down)",
    "alert_deactivated": "the players reported an alert card turned back face down",
    "cover_lifted": "the mission button's protection is off",
    "cover_lowered": "the mission button's protection is back on",
    "mission_confirmed": "the mission button was pressed: clocks stopped, every finger on its colour",
    "mission_accomplished": "every player's colour held at once: success (time left)",
    "mission_failed": "the mission is lost (reason: clock_out with the colour, or last_alert; time left)",
    "mission_abandoned": "the game master abandoned the mission",
})
