"""The Kaboom debrief: time per player, passes, recharges, alerts, closest to zero."""

from __future__ import annotations

from panel.games.kaboom.debrief import COLUMNS, debrief
from panel.games.scenarios import parse_scenario, run_scenario

MATCH = {"mode": "kaboom", "players": ["red", "blue"], "mission": "custom", "seed": 2,
         "custom": {"time_per_player": 30, "alert_seconds": 12, "recharge_seconds": 10, "recharge_above_start": True,
                    "alerts": 5}}


def mission(inputs, end=None):
    raw = {"match": MATCH, "input": inputs}
    if end is not None:
        raw["end"] = end
    return run_scenario(parse_scenario(raw))


def test_a_mission_told_per_player_and_per_alert():
    first = mission([{"t": 0, "action": "start"}])["events"][0]["first"]
    other = "blue" if first == "red" else "red"
    out = mission([{"t": 0, "action": "start"}, {"t": 8, "action": "pass", "colour": first},  # first: 22
                   {"t": 13, "action": "alert_flipped"},  # the alert of 12 s, reported 1 s after
                   {"t": 20, "action": "pass", "colour": other},  # other: 18
                   {"t": 21, "action": "recharge"},  # first is running, 21 left: other (18) gets 10
                   {"t": 22, "action": "pause"}, {"t": 90, "action": "resume"},
                   {"t": 100, "action": "pass", "colour": first}],  # first: 22 - 2 - 10 = 10
                  end=200)
    tables = debrief(out["events"], {first: "Alis"})
    rows = {r["colour"]: r for r in tables["players"]}
    assert set(tables["players"][0]) == set(COLUMNS["players"])
    assert rows[first] == {"colour": first, "name": "Alis", "turns": 2, "seconds_played": 20.0, "passes": 2,
                           "recharges": 0, "seconds_recharged": 0.0, "closest_to_zero": 10.0, "time_left": 10.0}
    # other: plays 8-20 (12 s) then from 100 until the clock runs out at 128
    assert rows[other] == {"colour": other, "name": None, "turns": 2, "seconds_played": 40.0, "passes": 1,
                           "recharges": 1, "seconds_recharged": 10.0, "closest_to_zero": 0.0, "time_left": 0.0}
    alerts = tables["alerts"]
    assert [a["number"] for a in alerts] == list(range(1, len(alerts) + 1))
    assert alerts[0] == {"number": 1, "sounded_at": 12.0, "reported_after": 1.0, "face_up_after": 1}
    assert all(a["reported_after"] is None for a in alerts[1:])  # never reported
    assert out["outcome"] == "failed" and out["failed_colour"] == other


def test_no_mission_no_rows():
    assert debrief([]) == {"players": [], "alerts": []}
