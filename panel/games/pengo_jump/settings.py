"""Pengo Jump's settings: the mode and who plays, in their order, each checked with one-line
messages. The box itself (its chunks and tokens) is the rulebook's and never a setting: see
`Box` in panel/games/pengo_jump/engine.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text
from panel.games.pengo_jump.events import MODES

# Each mode's name for people (the pages say it in their language).
MODE_NAMES = {"happy": N_("Happy Penguins"), "sea_lions": N_("Sea Lions Adventure")}
# Pengo Jump house rule 2: solo, or a group of up to ten around the box.
MAX_PLAYERS = 10
MAX_NAME = 30
# What the game master's form and a walk-up may give.
FORM = ("mode", "players")


@dataclass(frozen=True)
class PengoSettings:
    mode: str = "happy"
    players: tuple[str, ...] = ("",)  # in the order they play; "" for a player without a name

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "players": list(self.players)}

    @classmethod
    def from_dict(cls, raw: Any, *, file: str | None = None, key: str = "") -> "PengoSettings":
        """Settings from a table (the form, a scenario's [match], the stored record, the
        settings file's [pengo_jump]); ConfigError with every problem at once.

        `players` is the players' names in their order (a name may be "": called by their
        place in the order), or a number of players without names."""
        problems: list[Problem] = []

        def bad(k: str, reason: Text) -> None:
            problems.append(Problem(file, f"{key}.{k}" if key else k, reason))

        if raw is None:
            raw = {}
        if not isinstance(raw, dict):
            raise ConfigError(Problem(file, key or None, Text(N_("must be a table"))))
        for k in raw:
            if k not in FORM:
                bad(k, Text(N_("unknown setting for Pengo Jump (expected one of: {names})"), names=", ".join(FORM)))
        mode = raw.get("mode", "happy")
        if mode not in MODES:
            bad("mode", Text(N_("{value} is not a mode of Pengo Jump ({modes})"), value=repr(mode),
                             modes=", ".join(MODES)))
        players = _players(raw.get("players", 1), bad)
        if problems:
            raise ConfigError(problems)
        return cls(mode=mode, players=players)


def _players(raw: Any, bad: Any) -> tuple[str, ...]:
    says = Text(N_("must be 1 to {most} players: their names in the order they play, or how many"), most=MAX_PLAYERS)
    if isinstance(raw, int) and not isinstance(raw, bool):
        if not 1 <= raw <= MAX_PLAYERS:
            bad("players", says)
            return ()
        return ("",) * raw
    if not isinstance(raw, list) or not 1 <= len(raw) <= MAX_PLAYERS:
        bad("players", says)
        return ()
    names = []
    for i, name in enumerate(raw):
        if isinstance(name, dict):  # { name = "Lea" }, the way the other games write a player
            name = name.get("name", "")
        if not isinstance(name, str) or len(name.strip()) > MAX_NAME:
            bad(f"players[{i}]", Text(N_("a player's name is text of at most {most} characters"), most=MAX_NAME))
            continue
        names.append(name.strip())
    taken = [n for n in names if n]
    if len(set(n.casefold() for n in taken)) != len(taken):
        bad("players", Text(N_("two players have the same name: give each their own")))
    return tuple(names)
