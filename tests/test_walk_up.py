"""A café's cockpit needs nobody at /admin: START with no match in play sets one up and
starts its first turn; after a match, START plays the same teams again on a new deck."""

import asyncio

from panel.games.airlines.engine import MatchSettings, Phase
from panel.core.events import InputEvent
from panel.service.cockpit import Cockpit
from panel.storage.store import Store
from play_helpers import mistake
from waiting import until


def test_start_with_no_match_sets_one_up_and_plays(tmp_path):
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                assert cockpit.match is None
                await cockpit.input("cockpit.start", True)
                await cockpit.input("cockpit.start", False)
                assert await until(lambda: cockpit.match is not None and cockpit.match.phase is Phase.IN_TURN)
                first = cockpit.record
                assert first.settings["teams"] == MatchSettings().as_dict()["teams"]
                assert [t["name"] for t in first.settings["teams"]] == ["Blue team", "Red team"]  # as the README says
                logged = [(e.kind, e.data) for e in store.entries(first.id)]
                assert logged[0] == ("input", {"control": "cockpit.start", "value": True})

                # A pressed START during a match is the engine's business, not a new match.
                await cockpit.input("cockpit.start", True)
                assert cockpit.record.id == first.id

                await mistake(cockpit)  # the turn scored (two mistakes): a match was played (rule 25)
                await mistake(cockpit)
                await cockpit.action("end", {})
                assert store.match(first.id).status == "ended"
                await cockpit.input("cockpit.start", True)
                assert await until(lambda: cockpit.record.id != first.id)
                second = cockpit.record
                assert second.settings["teams"] == first.settings["teams"]
                assert cockpit.match.phase is Phase.IN_TURN
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_a_start_that_can_set_nothing_up_says_why(tmp_path):
    """Cooperative by default, and no players named anywhere (rule 24 counts them): START sets
    nothing up, and the state says why, for the board; a match set up clears it."""
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True, defaults={"mode": "cooperative"})
            await cockpit.start()
            try:
                assert cockpit.public_state()["walk_up_problem"] is None
                assert await cockpit.input("cockpit.start", True) is False
                assert cockpit.match is None
                problem = cockpit.public_state()["walk_up_problem"]
                assert problem.startswith("START could not set up a match (teams: cooperative mode is for 2 to 6")
                await cockpit.create_match({"teams": [{"name": "Crew", "players": ["Ana", "Bo"]}]})
                assert cockpit.public_state()["walk_up_problem"] is None
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_other_buttons_with_no_match_set_nothing_up(tmp_path):
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                await cockpit.input("grid.r1c1", True)
                await cockpit.input("cockpit.flip", True)  # returns once the owner task has handled it
                assert cockpit.match is None and store.matches() == []
            finally:
                await cockpit.close()

    asyncio.run(scenario())


def test_the_names_the_cockpit_gives_are_in_its_language(tmp_path):
    """With Spanish chosen, a walk-up match's default teams are named in Spanish, and a
    cooperative crew listed as several teams is one crew, called so in Spanish; the
    engine's own names stay English (scripts, replays)."""
    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                cockpit.set_language("es")
                await cockpit.input("cockpit.start", True)
                await cockpit.input("cockpit.start", False)
                assert await until(lambda: cockpit.match is not None and cockpit.match.phase is Phase.IN_TURN)
                assert [t["name"] for t in cockpit.record.settings["teams"]] == ["Equipo azul", "Equipo rojo"]
                assert list(cockpit.match.scores) == ["Equipo azul", "Equipo rojo"]
                await cockpit.action("abandon", {})
                await cockpit.create_match({"mode": "cooperative", "teams": [
                    {"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy"]}]})
                assert cockpit.record.settings["teams"] == [{"name": "Tripulación", "players": ["Ana", "Bo", "Cy"]}]
                assert list(cockpit.match.scores) == ["Tripulación"]
                cockpit.set_language("en")
                await cockpit.action("abandon", {})
                await cockpit.create_match({"mode": "cooperative", "teams": [
                    {"name": "Gulls", "players": ["Ana", "Bo"]}, {"name": "Puffins", "players": ["Cy"]}]})
                assert list(cockpit.match.scores) == ["Crew"]
            finally:
                await cockpit.close()

    asyncio.run(scenario())
    assert MatchSettings().teams[0].name == "Blue team"


def test_once_a_match_is_over_the_next_one_s_deck_is_made_ahead(tmp_path, monkeypatch):
    """Making a deck is most of the CPU of the START that sets a match up at the panel: once
    a match is over and told, off any press, the next one's seed is chosen and its deck made;
    START then makes none, and plays the deck its seed makes (as a replay makes it)."""
    from panel.games.airlines import deckgen

    made = []
    generate = deckgen.generate_deck

    def counted(layout, **kw):
        made.append(kw["seed"])
        return generate(layout, **kw)

    monkeypatch.setattr(deckgen, "generate_deck", counted)

    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                await cockpit.input("cockpit.start", True)
                assert await until(lambda: cockpit.match is not None and cockpit.match.phase is Phase.IN_TURN)
                first = cockpit.record
                await mistake(cockpit)
                await mistake(cockpit)
                before = len(made)
                await cockpit.action("end", {})
                assert await until(lambda: len(made) > before)  # made ahead, with nobody pressing
                ahead = made[-1]
                await cockpit.input("cockpit.start", True)
                assert cockpit.record.id != first.id and cockpit.match.phase is Phase.IN_TURN
                assert len(made) == before + 1  # the press made no deck
                assert cockpit.record.settings["seed"] == ahead
                card = cockpit.full_snapshot()["card"]
            finally:
                await cockpit.close()
            restarted = Cockpit(store, sim=True)  # the match again from its log: the deck made from its seed
            await restarted.start()
            try:
                assert restarted.record.settings["seed"] == ahead and restarted.full_snapshot()["card"] == card
            finally:
                await restarted.close()

    asyncio.run(scenario())


def test_the_first_start_after_the_cockpit_starts_reads_no_file_and_makes_no_deck(tmp_path, monkeypatch):
    """A café's first group of the day: its START finds its match made ahead at the start
    (no deck made at the press) and the whole panel read (no layout file read and parsed
    at the press, before its light)."""
    from panel.core import layout_file
    from panel.games.airlines import deckgen, game

    layout_file.whole_panel.cache_clear()
    game.layout_for.cache_clear()
    made, read = [], []
    generate, read_toml = deckgen.generate_deck, layout_file.read_toml
    monkeypatch.setattr(deckgen, "generate_deck", lambda layout, **kw: made.append(kw["seed"]) or generate(layout, **kw))
    monkeypatch.setattr(layout_file, "read_toml", lambda path: read.append(path) or read_toml(path))

    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            try:
                assert await until(lambda: made)  # made at the start, with nobody pressing
                ahead, before = made[-1], len(read)
                await cockpit.input("cockpit.start", True)
                assert cockpit.match is not None and cockpit.match.phase is Phase.IN_TURN
                assert len(made) == 1 and cockpit.record.settings["seed"] == ahead
                assert read[before:] == []
            finally:
                await cockpit.close()

    asyncio.run(scenario())
