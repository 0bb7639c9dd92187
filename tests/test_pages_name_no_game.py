"""The pages never branch on which game is played: no script in panel/web/static outside
static/games/ (each game's own parts of the pages) holds a game's id in a string (a lookup
like `state.game === "kaboom"`, a class `.kaboom`, a module "/static/kaboom.js") or the old
`isKaboom`. A page asks static/games/index.js for the part of the game a state names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from panel.games.registry import GAMES

STATIC = Path(__file__).resolve().parent.parent / "panel" / "web" / "static"
SCRIPTS = sorted(p for p in STATIC.rglob("*.js") if STATIC / "games" not in p.parents)
# A string literal ('...', "..." or `...`) on one line.
STRING = re.compile(r"""(["'`])(?:\\.|(?!\1).)*\1""")


def test_the_pages_scripts_are_found():
    assert {"admin.js", "board.js", "debrief.js", "sim.js", "common.js"} <= {p.name for p in SCRIPTS}
    assert not any(p.name == "kaboom.js" for p in SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(STATIC)))
def test_no_page_script_names_a_game(script):
    text = script.read_text(encoding="utf-8")
    named = [(n, m.group(0)) for n, line in enumerate(text.splitlines(), 1) for m in STRING.finditer(line)
             if any(re.search(rf"\b{re.escape(game)}\b", m.group(0), re.IGNORECASE) for game in GAMES)]
    assert named == [], f"{script.name} names a game (ask static/games/index.js instead): {named}"
    assert "isKaboom" not in text


def test_every_game_has_its_part_of_each_page():
    for game in GAMES:
        for page in ("admin", "board", "debrief", "sim"):
            assert (STATIC / "games" / game / f"{page}.js").is_file(), (game, page)


def test_every_penguin_colour_has_its_name_and_colours_for_the_pages():
    from panel.games.kaboom.game import PENGUINS
    from panel.games.kaboom.settings import COLOURS

    assert tuple(PENGUINS) == COLOURS
