"""Pengo Jump's companion, one test per rule of the rulebook and per house rule
(docs/pengo-jump.md: "rule N" below), and the scenario contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from panel.core.errors import ConfigError
from panel.core.events import Action, InputEvent
from panel.games.base import Build
from panel.games.feed import play
from panel.games.pengo_jump.engine import BAG, IN_BAG, PengoMatch, stage_of
from panel.games.pengo_jump.game import GAME
from panel.games.pengo_jump.mapping_file import panel_for
from panel.games.pengo_jump.settings import PengoSettings
from panel.games.registry import game_named
from panel.games.scenarios import load_scenario, parse_scenario, run_scenario

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "scenarios"


def game(mode="happy", players=("Lea", "Tom")) -> PengoMatch:
    layout, mapping = panel_for(None)
    return PengoMatch(PengoSettings(mode=mode, players=tuple(players)), mapping, layout=layout)


def act(m: PengoMatch, name: str, t: float = 1.0, **params):
    """The action's refusal (None when taken) and the events it made."""
    a = Action(name, t, params)
    why = m.refusal(a)
    return why, m.handle(a)


def types(events) -> list[str]:
    return [e.type for e in events]


# ---------------------------------------------------------------- the box (rule 1)

def test_rule_1_the_box_has_21_chunks_in_the_bag():
    assert BAG == {"snowy": 9, "sea_lion": 6, "frosty": 6} and IN_BAG == 21
    m = game()
    s = m.snapshot()
    assert s["left"] == 21 and s["home"] == 0 and s["penguins"] == 4 and s["tokens"] is None
    assert s["odds"] == {"snowy": 9 / 21, "sea_lion": 6 / 21, "frosty": 6 / 21}


def test_rule_1_sea_lions_adventure_has_six_small_and_six_large_tokens():
    s = game("sea_lions").snapshot()
    assert s["tokens"] == {"small": {"free": 6, "board": 0, "fallen": 0}, "large": {"free": 6, "board": 0, "fallen": 0}}


# ---------------------------------------------------------------- players (rule 2)

def test_rule_2_players_play_in_the_order_given_and_solo_plays_every_turn():
    m = game(players=("Lea", "Tom", "Ana"))
    seen = []
    for _ in range(4):
        seen.append(m.snapshot()["current"])
        act(m, "draw", kind="snowy")
        act(m, "end_turn")
    assert seen == [0, 1, 2, 0]
    solo = game(players=("",))
    act(solo, "draw", kind="snowy")
    _why, ev = act(solo, "end_turn")
    assert ev[0].details["from"] == ev[0].details["to"] == 0


@pytest.mark.parametrize("players", [0, 11, [], ["a"] * 11, ["Lea", "lea"], [3]])
def test_rule_2_a_group_is_1_to_10_players_with_distinct_names(players):
    with pytest.raises(ConfigError):
        PengoSettings.from_dict({"players": players})


def test_rule_2_players_as_a_number_are_unnamed():
    assert PengoSettings.from_dict({"players": 3}).players == ("", "", "")


# ---------------------------------------------------------------- the draw (rule 3)

def test_rule_3_a_draw_takes_the_chunk_out_of_the_bag():
    m = game()
    why, ev = act(m, "draw", kind="frosty")
    assert why is None and types(ev) == ["chunk_drawn"]
    assert m.bag == {"snowy": 9, "sea_lion": 6, "frosty": 5} and m.snapshot()["odds"]["frosty"] == 5 / 20


def test_rule_3_every_turn_begins_with_a_draw():
    m = game()
    for name in ("home", "fell", "end_turn"):
        why, ev = act(m, name)
        assert why is not None and "draw" in why.reason and ev == []


def test_rule_3_a_draw_during_a_turn_ends_it_first():
    m = game()
    act(m, "draw", kind="snowy")
    _why, ev = act(m, "draw", kind="snowy")
    assert types(ev) == ["turn_over", "chunk_drawn"] and ev[0].details["why"] == "draw" and ev[1].details["by"] == 1


def test_rule_3_a_kind_none_is_left_of_is_refused():
    m = game()
    for _ in range(6):
        act(m, "draw", kind="frosty")
    why, ev = act(m, "draw", kind="frosty")
    assert why is not None and "frosty" in str(why) and ev == [] and m.bag["frosty"] == 0


# ---------------------------------------------------------------- tumbling penguins (rule 4)

def test_rule_4_after_a_fall_no_penguin_moves_this_turn():
    m = game("sea_lions")
    act(m, "draw", kind="snowy")
    assert act(m, "fell")[0] is None
    assert act(m, "fell")[0] is None  # two penguins knocked off by the same push
    assert act(m, "home")[0] is not None and act(m, "sea_lion", size="small")[0] is not None
    assert m.home == 0 and m.snapshot()["falls"] == 2
    act(m, "end_turn")
    act(m, "draw", kind="snowy")
    assert act(m, "home")[0] is None  # the next turn moves again


# ---------------------------------------------------------------- one penguin per turn (rule 5)

def test_rule_5_one_penguin_moves_per_turn():
    m = game("sea_lions")
    act(m, "draw", kind="frosty")
    assert act(m, "home")[0] is None
    assert act(m, "home")[0] is not None and m.home == 1
    assert act(m, "sea_lion", size="large")[0] is not None


def test_rule_5_a_hop_onto_a_sea_lion_under_the_iceberg_goes_home_in_the_same_move():
    m = game("sea_lions")
    act(m, "draw", kind="sea_lion")
    assert act(m, "sea_lion", size="small")[0] is None
    assert act(m, "home")[0] is None and m.home == 1
    assert act(m, "sea_lion", size="small")[0] is not None


# ---------------------------------------------------------------- the modes (rules 6 and 7)

def test_rule_6_happy_penguins_has_no_sea_lion_tokens():
    m = game("happy")
    act(m, "draw", kind="sea_lion")
    for name in ("sea_lion", "token_fell"):
        why, ev = act(m, name, size="small")
        assert why is not None and "Happy Penguins" in str(why) and ev == []


def test_rule_7_a_hop_onto_a_sea_lion_slides_the_matching_token_in():
    m = game("sea_lions")
    act(m, "draw", kind="snowy")
    _why, ev = act(m, "sea_lion", size="large")
    assert types(ev) == ["sea_lion_token"] and ev[0].details["token"] is True
    assert m.tokens["large"] == {"free": 5, "board": 1, "fallen": 0} and m.tokens["small"]["free"] == 6


def test_rule_7_the_fallen_tokens_are_collected_back_when_none_is_left():
    m = game("sea_lions", players=("",))
    for i in range(6):
        act(m, "draw", kind="snowy" if i < 3 else "frosty")
        act(m, "sea_lion", size="small")
        if i < 2:
            assert act(m, "token_fell", size="small")[0] is None
        act(m, "end_turn")
    assert m.tokens["small"] == {"free": 0, "board": 4, "fallen": 2}
    act(m, "draw", kind="snowy")
    _why, ev = act(m, "sea_lion", size="small")
    assert types(ev) == ["tokens_collected", "sea_lion_token"] and ev[0].details["count"] == 2
    assert m.tokens["small"] == {"free": 1, "board": 5, "fallen": 0}


def test_rule_7_no_free_and_none_fallen_the_hop_slides_no_token():
    m = game("sea_lions", players=("",))
    for i in range(7):
        act(m, "draw", kind="snowy")
        _why, ev = act(m, "sea_lion", size="large")
        act(m, "end_turn")
    assert ev[-1].details["token"] is False and m.tokens["large"] == {"free": 0, "board": 6, "fallen": 0}


def test_rule_8_a_token_falls_only_from_the_board():
    m = game("sea_lions")
    assert act(m, "token_fell", size="small")[0] is not None
    act(m, "draw", kind="snowy")
    act(m, "sea_lion", size="small")
    assert act(m, "token_fell", size="small")[0] is None and m.tokens["small"] == {"free": 5, "board": 0, "fallen": 1}


# ---------------------------------------------------------------- the daylight (rule 9)

def test_rule_9_the_sun_sets_as_the_bag_empties():
    assert [stage_of(n) for n in (21, 15, 14, 8, 7, 1, 0)] == ["day", "day", "evening", "evening", "dusk", "dusk",
                                                                "night"]
    m = game(players=("",))
    stages = []
    for kind, n in BAG.items():
        for _ in range(n):
            stages += [e.details["stage"] for e in act(m, "draw", kind=kind)[1] if e.type == "daylight"]
    assert stages == ["evening", "dusk", "night"] and m.snapshot()["daylight"] == 0.0


# ---------------------------------------------------------------- the end (rules 10 and 11)

def test_rule_10_four_penguins_home_win_at_once():
    m = game()
    for i in range(4):
        act(m, "draw", kind="snowy")
        _why, ev = act(m, "home")
    assert types(ev) == ["penguin_home", "all_home"] and m.finished and m.outcome == "won" and m.ended_by == "complete"
    assert act(m, "draw", kind="snowy")[0] is not None


def _empty_the_bag(m: PengoMatch) -> None:
    for kind, n in BAG.items():
        for _ in range(n):
            act(m, "draw", kind=kind)


def test_rule_11_the_empty_bag_refuses_a_draw_and_the_last_turn_is_played_out():
    m = game()
    _empty_the_bag(m)
    assert not m.finished and m.snapshot()["last_turn"]
    why, _ev = act(m, "draw", kind="snowy")
    assert why is not None and "empty" in str(why)
    _why, ev = act(m, "end_turn")
    assert types(ev) == ["night_fell"] and m.outcome == "lost" and m.reason == "bag_empty" and ev[0].details["out"] == 4


def test_rule_11_the_last_chunk_can_still_bring_the_fourth_penguin_home():
    m = game()
    for _ in range(3):
        act(m, "draw", kind="snowy")
        act(m, "home")
    _empty_the_bag_but(m, 0)
    assert m.left == 0
    _why, ev = act(m, "home")
    assert m.outcome == "won"


def _empty_the_bag_but(m: PengoMatch, keep: int) -> None:
    while m.left > keep:
        act(m, "draw", kind=next(k for k, n in m.bag.items() if n))


def test_rule_11_the_last_turn_ends_lost_by_a_fall_or_a_move_short_of_four():
    for last in ("fell", "home"):
        m = game()
        _empty_the_bag_but(m, 0)
        _why, ev = act(m, last)
        assert types(ev)[-1] == "night_fell" and m.outcome == "lost"


# ---------------------------------------------------------------- refusals, abandon (rules 12, 13)

def test_rule_12_a_refused_report_changes_nothing():
    m = game()
    before = m.snapshot()
    for name, params in (("home", {}), ("draw", {"kind": "ice"}), ("sea_lion", {"size": "small"}), ("dance", {})):
        why, ev = act(m, name, **params)
        assert why is not None and ev == []
    assert m.snapshot() == before


def test_rule_13_abandon_ends_without_a_result():
    m = game()
    _why, ev = act(m, "abandon")
    assert types(ev) == ["game_abandoned"] and m.ended_by == "abandoned" and m.outcome == "abandoned"
    assert GAME.record([{"mode": "happy", "teams": ["a"], "outcome": "abandoned"}])["games"] == 0


def test_rule_13_the_cafes_record_counts_games_won_by_mode_and_players():
    listed = [{"mode": "happy", "teams": ["a"], "outcome": "won"}, {"mode": "happy", "teams": ["a", "b"], "outcome": "lost"},
              {"mode": "sea_lions", "teams": ["a", "b"], "outcome": "won"}, {"mode": "happy", "teams": [], "outcome": None}]
    assert GAME.record(listed) == {"games": 3, "won": 2,
                                   "by_mode": {"happy": {"games": 2, "won": 1}, "sea_lions": {"games": 1, "won": 1}},
                                   "by_players": {"1": {"games": 1, "won": 1}, "2": {"games": 2, "won": 1}}}


# ---------------------------------------------------------------- the panel's buttons

def test_the_panels_buttons_ask_for_the_reports():
    m = game("sea_lions")
    ev = m.handle(InputEvent("beacon.blue", True, 1.0))
    assert types(ev) == ["chunk_drawn"] and ev[0].details["kind"] == "frosty"
    assert m.handle(InputEvent("beacon.blue", False, 1.1)) == []  # a release asks for nothing
    assert types(m.handle(InputEvent("cross.left", True, 2.0))) == ["sea_lion_token"]
    assert types(m.handle(InputEvent("cross.up", True, 3.0))) == ["penguin_home"]
    assert types(m.handle(InputEvent("cross.ok", True, 4.0))) == ["turn_over"]
    assert m.handle(InputEvent("alarm.red", True, 5.0)) == []  # a button the game does not use


def test_the_tv_names_each_button_by_what_it_is_on_the_panel():
    from panel.core.i18n import translations

    m = game()
    state = GAME.present(m.snapshot(), m, translations("en"))
    assert state["buttons"]["snowy"]["name"] == "the white beacon" and state["buttons"]["home"]["control"] == "cross.up"
    es = GAME.present(m.snapshot(), m, translations("es"))
    assert es["buttons"]["snowy"]["name"] != "the white beacon"


def test_a_layout_mapping_with_a_button_twice_is_refused(tmp_path):
    from panel.core.layout_file import default_layout_path

    layout = tmp_path / "l.toml"
    layout.write_text(default_layout_path().read_text().replace('frosty = "beacon.blue"', 'frosty = "beacon.white"'))
    with pytest.raises(ConfigError) as err:
        panel_for(str(layout))
    assert "pengo_jump.frosty" in str(err.value.problems[0])


# ---------------------------------------------------------------- the game interface

def test_set_up_from_the_form_over_the_settings_files_defaults():
    build = Build(defaults={"pengo-jump": {"mode": "sea_lions"}})
    m = GAME.set_up({"players": ["Lea"]}, build=build, positions={}, language="en")
    assert m.settings.mode == "sea_lions" and m.players == ("Lea",)
    again = GAME.from_stored(GAME.stored_settings(m), {})
    assert again.settings == m.settings
    assert game_named("pengo-jump") is GAME
    assert GAME.check_defaults({"mode": "night"}, file="s.toml")


def test_walk_up_start_plays_the_same_group_again():
    build = Build()
    last = {"mode": "sea_lions", "players": ["Lea", "Tom"]}
    assert GAME.walks_up("cockpit.start", build=build, last=last)
    assert not GAME.walks_up("cockpit.start", build=build, last=None)
    assert not GAME.walks_up("beacon.white", build=build, last=None)
    assert GAME.walks_up("beacon.white", build=Build(walk_up={"pengo-jump": True}), last=None)
    assert GAME.walk_up_body("cockpit.start", last, None, build=build, language="en") == last


# ---------------------------------------------------------------- the scenario contract

def test_the_example_scenarios_play_to_their_ends():
    won = run_scenario(load_scenario(EXAMPLES / "pengo-jump-won.toml"))
    assert won["game"] == "pengo-jump" and won["finished"] and won["outcome"] == "won" and won["home"] == 4
    assert [r["action"] for r in won["refused"]] == ["home", "home"]
    lost = run_scenario(load_scenario(EXAMPLES / "pengo-jump-lost.toml"))
    assert lost["outcome"] == "lost" and lost["reason"] == "bag_empty" and lost["left"] == 0 and lost["out"] == 2
    assert [r["action"] for r in lost["refused"]] == ["sea_lion", "draw"]
    assert "empty" in lost["refused"][-1]["reason"]


def test_a_scenario_with_a_wrong_entry_is_an_error_of_the_file():
    with pytest.raises(ConfigError) as err:
        parse_scenario({"game": "pengo-jump", "match": {"mode": "night"},
                        "input": [{"t": 1, "action": "draw", "kind": "ice"}, {"t": 2, "press": "nowhere"}]}, file="p.toml")
    said = [str(p) for p in err.value.problems]
    assert any("match.mode" in p for p in said) and any("input[0]" in p for p in said) and any("input[1]" in p for p in said)


def test_replay_json_from_the_command_line():
    out = subprocess.run([sys.executable, "-m", "panel.tools.cli", "replay", str(EXAMPLES / "pengo-jump-won.toml"), "--json"],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout)
    assert {"events", "refused", "bag", "left", "tokens", "home", "finished", "outcome", "reason"} <= set(result)
    assert result["tokens"]["small"]["board"] == 1


def test_the_debrief_tables():
    m = game()
    events = play(m, [Action("draw", 1, {"kind": "snowy"}), Action("home", 2), Action("draw", 3, {"kind": "frosty"}),
                      Action("fell", 4)])
    summary = GAME.summary(m, events)
    assert summary["tables"]["draws"][0] == {"turn": 1, "player": 1, "drew": "snowy", "left": 20, "home": 1, "fell": 0,
                                             "hopped": None, "tokens_collected": 0}
    assert summary["tables"]["jumpers"][1]["fell"] == 1 and summary["tables"]["jumpers"][1]["frosty"] == 1


# ---------------------------------------------------------------- lights and sounds

def test_every_sound_has_its_light_and_its_tune():
    from panel.games.pengo_jump import show
    from panel.games.pengo_jump.events import EVENT_TYPES

    assert set(show.SOUNDS) <= set(EVENT_TYPES)
    m = game("sea_lions")
    act(m, "draw", kind="snowy")
    s = m.snapshot()
    plain = show.ring(s, 10.0, 24, [])
    for _event, (cue, _who) in show.SOUNDS.items():
        assert cue in show.TUNES and cue in show.PRIORITY and cue in show.CUE_SECONDS
        lit = show.ring(s, 10.1, 24, [show.Cue(cue, 10.0, "frosty" if cue == "pengo_draw" else "dusk")])
        assert lit != plain, cue  # the cue shows on the ring while it lasts


def test_the_ring_is_the_daylight_and_the_buttons_what_may_be_reported():
    from panel.games.pengo_jump import show

    m = game()
    full = show.ring(m.snapshot(), 0.0, 21, [])
    assert full == [show.SKY["day"]] * 21
    for _ in range(10):
        act(m, "draw", kind="snowy" if m.bag["snowy"] else "frosty")
    lit = [p for p in show.ring(m.snapshot(), 0.0, 21, []) if p != (0, 0, 0)]
    assert len(lit) == 11 and lit[0] == show.SKY["evening"]
    lights = show.button_lights(m.snapshot())
    assert lights["cross.up"] == show.CYAN and lights["cross.ok"] == show.GREEN
    assert lights["beacon.white"] == (0, 0, 0)  # no snowy chunk left in the bag: off
    assert lights["cross.left"] == (0, 0, 0)  # Happy Penguins: no sea lion to hop onto
