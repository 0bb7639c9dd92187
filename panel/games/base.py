"""The one seam for what varies between games: the `Game` interface and the `Engine` it makes.

Every game the cockpit plays (Penguin Airlines, Penguin Kaboom, ...) is one package under
panel/games/ that provides one `Game` object, registered in panel/games/registry.py. The
cockpit, the replay, the store's history, the effects, the MQTT bridge, the commands and the
pages ask the game for what differs (its engine, its settings form, its walk-up, its lights,
its words, its debrief, its result) and never branch on which game it is.

The word for it everywhere is `game` (`Game.id`): in stored settings, in every snapshot,
every result, the MQTT payloads and the pages. "mode" keeps its Penguin Airlines meaning
(competitive or cooperative).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol, runtime_checkable

from panel.core.errors import Problem
from panel.core.events import Action, GameEvent, InputEvent
from panel.core.layout import Layout
from panel.core.refusal import Refusal


@runtime_checkable
class Engine(Protocol):
    """A game's rules: pure and deterministic, time passed in (no clock, no I/O). Fed with
    `handle` for every input and action in time order and `advance` when `next_deadline`
    comes; the same feeding gives the same match (the log is replayed through it).

    An engine may also offer `lights(now)`: the part of `snapshot` its game's show draws
    from, made on its own so that the panel's light (the press's answer) is drawn before the
    pages' whole state is made; `lights_source` asks it, or the whole snapshot where it has none.

    An engine may also offer `kept_view()` and `CLOCK`: the dict its snapshot copies, the
    very same object for as long as nothing has changed but the fields named in `CLOCK` (those
    that move with time alone, which the snapshot sets over it). The pages' state of such an
    engine is presented again only when that view is another object (Presentation.state): its
    game's `present` reads nothing but the snapshot, the engine's layout and the language."""

    layout: Layout | None
    positions: dict[str, str]
    ended_by: str | None  # "complete", "ended" or "abandoned" once over (STATUS_WHEN_OVER's keys)

    @property
    def finished(self) -> bool: ...

    @property
    def clock_running(self) -> bool: ...

    def handle(self, event: InputEvent | Action) -> list[GameEvent]: ...

    def advance(self, now: float) -> list[GameEvent]: ...

    def next_deadline(self) -> float | None: ...

    def refusal(self, action: Action) -> Refusal | None: ...

    def asks(self, event: InputEvent) -> Action | None:
        """The action a control's change asks for now (refused like any action), or None
        when the game judges the change itself (a mistake is not a refusal)."""

    def snapshot(self, now: float | None = None) -> dict[str, Any]:
        """The whole visible state, JSON-ready, with `game` (the game's id) and `phase`."""


def lights_source(engine: Engine) -> Callable[[float], dict[str, Any]]:
    """What `engine`'s show draws from, as a call of the time: its `lights`, or its whole
    `snapshot` where it has none (asked once per match: every press's light calls it)."""
    lights = getattr(engine, "lights", None)
    return lights if lights is not None else engine.snapshot


@dataclass(frozen=True)
class Build:
    """What a game needs to know of the cockpit it is played on: the build's layout file,
    whether its tokens have touch sensors, and each game's defaults from the settings file
    (its own table: [match] for Penguin Airlines, [kaboom] for Penguin Kaboom)."""

    layout_path: str | None = None
    touch_sensors: bool = False
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    walk_up: Mapping[str, bool] = field(default_factory=dict)  # a game's walk-up switched on by the settings file

    def defaults_of(self, game: str) -> dict[str, Any]:
        return dict(self.defaults.get(game, {}))


# A show's answer to "what moves with time alone" (Show.motion), a plain tuple (made at
# every frame): (the seconds left on a clock that ticks through its LAST_SECONDS, None when
# none runs; a sound called again, (its tune, every so many seconds), for as long as the
# snapshot asks it, None when none is; whether the picture moves: a clock drains,
# something blinks).
Motion = tuple[float | None, tuple[str, float] | None, bool]


class Show(Protocol):
    """A game's lights and sounds: pure functions from its snapshot and the time to a frame,
    drawn with panel/games/lights.py, and its tunes. The one picture of the game:
    panel/hardware/effects.py plays it on the built panel's strip and buzzer,
    panel/service/effects.py renders it for /sim's simulated strip."""

    SOUNDS: Mapping[str, tuple[str, str | None]]  # game event -> (its sound and light cue, whose colour)
    LAST_SECONDS: int  # how many last seconds of a running clock tick (lights.TICK)
    CUE_SECONDS: Mapping[str, float]  # each cue's light, how long it shows
    TUNES: Mapping[str, Any]  # each sound's tune for the buzzer (lights.Steps), the tick's with them
    PRIORITY: Mapping[str, int]  # which tune cuts which: a higher one cuts a lower
    Cue: type  # the game's cue (a lights.Cue that knows its CUE_SECONDS): Cue(kind, start, whose colour)

    def motion(self, snapshot: dict[str, Any]) -> Motion:
        """What moves with time alone, in one call (every frame, a press's first, asks it)."""

    def render(self, snapshot: dict[str, Any], now: float, config: Any, cues: Any = ()) -> list[Any]: ...


@dataclass(frozen=True)
class ResultLimits:
    """The most a result of a game's match can hold, by its rules: what a venue checks a
    result against before counting it (a forged result of 99 points in a turn, or of
    400,000 teams, is refused, said in one line)."""

    teams: int  # sides in a match
    name: int  # characters of a team's name
    players: int  # in all
    turns: int  # turns in a match (a sanity bound: the rules end a match long before)
    turn_points: int  # points one turn can score
    turn_cards: int  # cards one turn can complete
    turn_counters: int  # time counters held at a turn's end
    turn_mistakes: int  # mistakes in one turn


class Game(Protocol):
    """One game of the cockpit. Implementations: panel/games/airlines/game.py,
    panel/games/kaboom/game.py, panel/games/ultimatum/game.py (a scorekeeper: no control of
    the panel, every entry an action from the game master's page). A new game is one
    package providing this and one line in panel/games/registry.py."""

    id: str  # the game's word everywhere: "airlines", "kaboom"
    title: str  # its name for people (marked N_(), said in the reader's language)
    actions: Mapping[str, Any]  # every action a person, a button or a script may ask, with its parameters
    event_types: Mapping[str, str]  # every game event its engine sends, and what it says
    settings_table: str  # the settings file's table of this game's defaults ("match", "kaboom")
    at_venue: bool  # whether a venue counts its matches (scores, leaderboard, commands)
    # Whether the debrief's list of matches says how each came out (its summary's `outcome`,
    # made from the log once): a status alone ("finished") does not tell this game's results.
    lists_outcome: bool

    # ---- matches
    def from_stored(self, settings: dict[str, Any], positions: dict[str, str]) -> Engine:
        """The match a stored record was set up as (its settings as `stored_settings` wrote
        them), before any of its log: the replay feeds the log to it."""

    def set_up(self, body: dict[str, Any], *, build: Build, positions: dict[str, str], language: str) -> Engine:
        """A new match from the game master's form or a walk-up press: `body` over the
        build's defaults. ConfigError or ValueError(Text) when it cannot be played."""

    def stored_settings(self, engine: Engine) -> dict[str, Any]:
        """The settings to store with the match (without `game`: the registry adds it)."""

    def form(self, build: Build, tr: Any) -> dict[str, Any]:
        """What the game master's page needs to offer this game on this build."""

    def check_defaults(self, table: dict[str, Any], *, file: str) -> list[Problem]:
        """The game's own check of its table of the settings file (`settings_table`): every
        problem at once, each naming `file` and the key (an empty list when it is right)."""

    def describe(self, engine: Engine, code: str) -> str:
        """One log line: the match set up (English, for the journal)."""

    # ---- walk-up: a café's cockpit plays without anyone at /admin
    def walks_up(self, control: str, *, build: Build, last: dict[str, Any] | None) -> bool:
        """Whether `control` pressed with no match in play sets up a match of this game
        (`last`: the stored settings of the last match, None when none)."""

    def walk_up_body(self, control: str, last: dict[str, Any] | None, last_engine: Engine | None, *,
                     build: Build, language: str) -> dict[str, Any]:
        """The form a walk-up press of `control` sets its match up with (the same group
        again after a match of this game: `last` and `last_engine` are its, else None)."""

    walk_up_problem: str  # what the board says when a walk-up press could not set a match up ({why})

    # Optional (a game may leave it out): with no match in play (a match of this game over
    # and told, or none yet since the start), the next match a walk-up press sets up made
    # ready, off every press (a game whose set-up costs the press its light: Penguin
    # Airlines deals a deck); `set_up` then hands it out when it is asked for what it was
    # made for. `last`: the stored settings of the match just over, None when none was
    # played; `positions`: where the tokens stand now.
    #
    #     def prepare(self, last: dict[str, Any] | None, *, build: Build, positions: dict[str, str],
    #                 language: str) -> None: ...

    # ---- what people see
    show: Show

    def present(self, state: dict[str, Any], engine: Engine, tr: Any) -> dict[str, Any]:
        """The public state (the snapshot without the card) in the pages' language: the
        game's words the engine says as ids (controls' plain names) named for the reader."""

    def present_event(self, event: dict[str, Any], engine: Engine | None, tr: Any) -> dict[str, Any]:
        """A public event in the pages' language (the same naming)."""

    def pages(self, tr: Any) -> dict[str, Any]:
        """What the pages show of this game that is not in a snapshot: its title, its
        colours' and choices' names, its debrief's columns (GET /api/games)."""

    # ---- afterwards
    def summary(self, engine: Engine, events: list[GameEvent]) -> dict[str, Any]:
        """The debrief's result and tables (without the record's fields: the history adds them)."""

    def summary_in_language(self, result: dict[str, Any], tr: Any) -> dict[str, Any] | None:
        """A stored summary (in the engine's words) said for the reader, or None when the
        stored one is already right for any reader."""

    def listing(self, settings: dict[str, Any]) -> dict[str, Any]:
        """A stored match in the debrief's picker: `teams` (the sides' names) and `mode`."""

    def tower_card(self, card: dict[str, Any], engine: Engine) -> dict[str, Any]:
        """The card in play as the tower's page shows it (only games with a tower have cards)."""

    def tables(self, events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        """The debrief's tables from a result's events (the CLI's `debrief FILE`)."""

    columns: Mapping[str, tuple[str, ...]]  # each debrief table's columns
    table_titles: Mapping[str, str]  # each debrief table's title (marked N_())

    def headline(self, result: dict[str, Any]) -> str:
        """The one line a debrief or a replay prints above its tables: scores, or how it ended."""

    def venue_result(self, engine: Engine) -> dict[str, Any] | None:
        """What a venue counts of a match that is over (scores, winner, tier), None when
        this game's matches score nothing there."""

    result_limits: ResultLimits | None  # the most a venue result can hold (None: not at a venue)

    # Optional (a game may leave it out; ask with `record_of`): the cockpit's record of this
    # game over every stored match, for the debrief (GET /api/admin/record?game=ID). `listed`
    # holds each stored match of the game as the debrief's list has it: its `listing`, with
    # its `outcome` and `status`. Added for Pengo Jump (issue 26), whose café keeps a record
    # of games played and won, by mode and by number of players; a game with no such record
    # has nothing to add.
    #
    #     def record(self, listed: list[dict[str, Any]]) -> dict[str, Any]: ...

    # ---- scenarios (the scripting contract)
    def read_scenario(self, raw: dict[str, Any], *, file: str | None, base: Any) -> "Scenario":
        """A scenario file of this game, every problem at once (ConfigError)."""

    def print_log(self, result: dict[str, Any]) -> None:
        """A scenario's result as a log a person reads (`penguin-panel replay FILE`)."""


def record_of(game: Game) -> Any:
    """The game's `record` (see `Game`), or None for a game that keeps none."""
    return getattr(game, "record", None)


class Scenario(Protocol):
    """A parsed scenario: a fresh engine, its inputs in time order and an optional end."""

    game: Game
    inputs: list[InputEvent | Action]
    end: float | None

    def new_match(self) -> Engine: ...

    def result(self, engine: Engine, events: list[GameEvent], refused: list[dict[str, Any]],
               tr: Any) -> dict[str, Any]:
        """The JSON-ready result of the scenario contract, with `game`."""
