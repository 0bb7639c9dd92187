"""The cockpit's parts on their own (panel/service/): the owner's queue, the join codes,
the walk-up's choice of game, the store writes' retry, and each game's check of its
settings-file table."""

from __future__ import annotations

import pytest

from panel.core.errors import ConfigError, Refused, StoreWriteError
from panel.games.base import Build
from panel.games.kaboom.mapping_file import load_mapping
from panel.games.registry import game_named, games
from panel.run import read_settings
from panel.service.cockpit import Inbox
from panel.service.join_codes import CODE_ALPHABET, CODE_LENGTH, JoinCodes, code_ok, make_code
from panel.service.saving import RETRY_FIRST, RETRY_MOST, Saving
from panel.service.walk_up import game_for
from panel.storage.store import Store
from service_helpers import fill_the_disk, free_the_disk

AIRLINES, KABOOM = game_named("airlines"), game_named("kaboom")
COLOUR = load_mapping().players["red"]  # a penguin's colour button on the shipped layout


# ---------------------------------------------------------------------------- the owner's queue
def test_the_owner_takes_each_item_as_it_is_put_one_at_a_time_in_order():
    inbox, taken, batches = Inbox(), [], []

    def take(item):
        taken.append(item)
        if item == "press":  # what the press does puts a call: it waits until the press is done
            inbox.put_nowait("call")
        taken.append("/" + item)

    inbox.put_nowait("waiting")  # before the owner takes: it waits in the queue
    assert taken == []
    inbox.take_with(take, then=lambda: batches.append(len(taken)))
    assert taken == ["waiting", "/waiting"]
    inbox.put_nowait("press")  # taken at once, on the putter's turn
    assert taken[2:] == ["press", "/press", "call", "/call"] and inbox.empty()
    assert batches == [2, 6]  # after each batch: the owner's timer set again
    inbox.take_with(None)  # closed: what comes now waits
    inbox.put_nowait("late")
    assert "late" not in taken and not inbox.empty()


# ---------------------------------------------------------------------------- join codes
def test_a_code_is_read_aloud_without_look_alike_characters():
    codes = {make_code() for _ in range(200)}
    assert len(codes) > 190  # random, not a counter
    assert all(len(c) == CODE_LENGTH and set(c) <= set(CODE_ALPHABET) for c in codes)
    assert not set("01OI") & set(CODE_ALPHABET)


def test_a_code_typed_in_any_case_with_spaces_is_the_code():
    assert code_ok(" ab3k9z ", "AB3K9Z") and code_ok("AB3K9Z", "AB3K9Z")
    assert not code_ok("AB3K9", "AB3K9Z") and not code_ok(None, "AB3K9Z") and not code_ok(123456, "AB3K9Z")


def test_the_next_code_is_kept_in_the_store_until_a_match_takes_it(tmp_path):
    with Store(tmp_path / "panel.db") as store:
        first = JoinCodes(store, unsaved=pytest.fail).next
    with Store(tmp_path / "panel.db") as store:  # a restart shows the same code on the board
        codes = JoinCodes(store, unsaved=pytest.fail)
        assert codes.next == first
        renewed = codes.renew()
        assert renewed == codes.next and renewed != first
    with Store(tmp_path / "panel.db") as store:
        assert JoinCodes(store, unsaved=pytest.fail).next == renewed


@pytest.fixture
def full_store(tmp_path):
    """A real store on a full disk (SQLite's own SQLITE_FULL: service_helpers.fill_the_disk)."""
    with Store(tmp_path / "panel.db") as store:
        match_id = store.create_match({"game": "airlines"}, {}, "AB3K9Z").id
        fill_the_disk(store, match_id, 0.0)
        yield store, match_id
        free_the_disk(store)


def test_a_code_the_store_cannot_keep_is_said_and_kept_in_memory(full_store):
    store, _match_id = full_store
    heard = []
    codes = JoinCodes(store, unsaved=heard.append)
    renewed = codes.renew()
    # Heard twice: the code made at the start (none kept yet) and the renewed one.
    assert codes.next == renewed and len(heard) == 2 and all(isinstance(e, StoreWriteError) for e in heard)


# ---------------------------------------------------------------------------- walk-up
def test_start_with_nothing_played_yet_sets_up_the_default_game():
    assert game_for("cockpit.start", last=None, settings=None, build=Build()) is AIRLINES


def test_a_colour_sets_up_a_mission_only_where_the_settings_file_says_so():
    assert game_for(COLOUR, last=None, settings=None, build=Build()) is None
    assert game_for(COLOUR, last=None, settings=None, build=Build(walk_up={"kaboom": True})) is KABOOM
    assert game_for("grid.r1c1", last=None, settings=None, build=Build(walk_up={"kaboom": True})) is None


def test_the_last_match_s_game_is_asked_first():
    """After a mission, START plays the next mission (not a Penguin Airlines match), and its
    colours set one up too; after an Airlines match a colour sets nothing up."""
    last_mission = {"game": "kaboom", "difficulty": "easy"}
    assert game_for("cockpit.start", last=KABOOM, settings=last_mission, build=Build()) is KABOOM
    assert game_for(COLOUR, last=KABOOM, settings=last_mission, build=Build()) is KABOOM
    assert game_for(COLOUR, last=AIRLINES, settings={"game": "airlines"}, build=Build()) is None
    assert game_for("cockpit.start", last=AIRLINES, settings={"game": "airlines"}, build=Build()) is AIRLINES


# ---------------------------------------------------------------------------- store writes
def test_a_deadline_the_store_refuses_is_tried_again_each_wait_twice_the_last(full_store):
    store, match_id = full_store
    told = []
    saving = Saving(store, publish=lambda: told.append(1))
    now, tries = 100.0, []
    for _ in range(7):
        assert saving.may_try(lambda: now)
        with pytest.raises(Refused) as e:
            saving.append(match_id, 0.0, "advance", {})
        assert e.value.status == 503
        saving.refused_deadline(now)
        tries.append(saving.retry_at - now)
        assert not saving.may_try(lambda: now + tries[-1] / 2)
        now = saving.retry_at
    assert tries == [RETRY_FIRST, 1.0, 2.0, 4.0, RETRY_MOST, RETRY_MOST, RETRY_MOST]
    assert told == [1] and saving.error  # the pages told once, not at every try
    saving.saved()
    assert saving.error is None and saving.retry_at is None and saving.retry.next == RETRY_FIRST


# ---------------------------------------------------------------------------- settings-file tables
def test_each_game_checks_its_own_table_of_the_settings_file(tmp_path):
    f = str(tmp_path / "settings.toml")
    assert AIRLINES.check_defaults({"turn_seconds": 40, "touch_sensors": True}, file=f) == []
    assert KABOOM.check_defaults({"difficulty": "easy", "mission": 3, "walk_up": True}, file=f) == []
    said = [str(p) for p in AIRLINES.check_defaults({"turn_seconds": 2}, file=f)]
    assert said == [f"{f}: match.turn_seconds: must be a number from 5 to 600, not 2"]
    said = [str(p) for p in KABOOM.check_defaults({"walk_up": "yes", "players": ["red"]}, file=f)]
    assert any(p.startswith(f"{f}: kaboom.walk_up: ") for p in said)
    assert any(p.startswith(f"{f}: kaboom.players: ") for p in said)


def test_a_table_no_game_has_lists_every_table_the_file_may_have(tmp_path):
    f = tmp_path / "settings.toml"
    f.write_text("[extra]\n")
    with pytest.raises(ConfigError) as e:
        read_settings(str(f))
    tables = ["service", *(g.settings_table for g in games()), "mqtt"]
    assert [str(p) for p in e.value.problems] == [f"{f}: extra: unknown key (expected one of: {', '.join(tables)})"]
    assert tables == ["service", "match", "kaboom", "ultimatum", "pengo_jump", "mqtt"]  # every game registered has its table


# ---------------------------------------------------------------------------- collections off the press path
def test_the_collector_runs_between_the_owner_s_turns_never_in_a_press(tmp_path):
    """Once the cockpit serves, no collection falls while the owner takes an item (a press,
    between its edge and its light): each is made once the batch is taken, at the loop's
    next turn, as often as CPython would have made it."""
    import asyncio
    import gc

    from panel.core.events import InputEvent
    from panel.service import collections_off_press
    from panel.service.cockpit import Cockpit

    seen: list[tuple[int, bool]] = []  # (generation, during an item the owner takes)
    taking: list[bool] = []

    def watch(phase, info):
        if phase == "start":
            seen.append((info["generation"], bool(taking)))

    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True)
            await cockpit.start()
            take = cockpit._take

            def watched(item):
                taking.append(True)
                try:
                    take(item)
                finally:
                    taking.pop()

            cockpit.queue.take_with(watched, then=cockpit._after_batch)
            gc.callbacks.append(watch)
            try:
                for i in range(60):  # START sets a match up and starts turns; the others are mistakes
                    control = "cockpit.start" if i % 3 == 0 else "cross.left"
                    for value in (True, False):
                        cockpit.queue.put_nowait(InputEvent(control, value, cockpit.clock()))
                        await asyncio.sleep(0)  # the loop's next turn: where a collection due is made
            finally:
                gc.callbacks.remove(watch)
                await cockpit.close()

    thresholds = gc.get_threshold()
    collections_off_press.hold()
    try:
        asyncio.run(scenario())
    finally:
        gc.set_threshold(*thresholds)
    assert seen  # collections were made (which generation depends on what the process made before)
    assert not [g for g, during in seen if during], seen


# ---------------------------------------------------------------------------- the pages' state
class StatePage:
    """A page's socket that checks every state message as it is sent: the one a presentation
    that keeps nothing makes at that moment."""

    view = "board"

    def __init__(self, cockpit):
        self.cockpit = cockpit
        self.states = 0

    def send(self, message):
        if message["type"] == "state":
            from panel.service.presentation import Presentation

            assert message["state"] == Presentation(self.cockpit).state()
            self.states += 1


def test_the_pages_state_after_every_press_is_the_state_presented_afresh(tmp_path):
    """The pages' state is presented again only when the engine's kept view is another
    (Presentation.state): through card steps, mistakes, a turn's end, another turn in another
    language, with the clock moving between presses, every state a page is sent is the one
    presented afresh."""
    import asyncio

    from panel.core.i18n import translations
    from panel.service.cockpit import Cockpit
    from play_helpers import mistake, new_match, play_card

    clock = [100.0]

    async def scenario():
        with Store(tmp_path / "panel.db") as store:
            cockpit = Cockpit(store, sim=True, clock=lambda: clock[0])
            await cockpit.start()
            page = StatePage(cockpit)
            cockpit.subscribe(page)
            try:
                await new_match(cockpit)
                steps = [lambda: cockpit.action("start_turn", {}), lambda: play_card(cockpit),
                         lambda: mistake(cockpit), lambda: play_card(cockpit), lambda: mistake(cockpit),
                         lambda: cockpit.action("start_turn", {}), lambda: play_card(cockpit)]
                for i, step in enumerate(steps):
                    clock[0] += 1.5  # the clock moves between presses: a kept state gets the new one
                    if i == 5:
                        cockpit.set_language("es")
                    await step()
                await mistake(cockpit)
                state = cockpit.public_state()  # (the stuck control named in the pages' language)
                assert state["stuck_name"] == cockpit.match.layout.plain_name(state["stuck"], translations("es"))
                assert page.states > 20
            finally:
                await cockpit.close()

    asyncio.run(scenario())
