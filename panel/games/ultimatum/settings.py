"""A Penguin Ultimatum game's set-up: the players who sit down before the first entry (each
a colour, a name and the form on their performance card), every problem said at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text
from panel.games.ultimatum.cards import FORMS, MAX_PLAYERS, PLAYER_COLOURS

NAME_LETTERS = 40  # a name longer than this does not fit a phone's score line


@dataclass(frozen=True)
class Player:
    colour: str
    form: str  # the form of entertainment on their performance card
    name: str | None = None  # None: the pages call them by their colour

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.colour, "form": self.form, **({"name": self.name} if self.name else {})}


def name_problem(name: Any) -> Text | None:
    if name is None:
        return None
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > NAME_LETTERS:
        return Text(N_("must be a name of 1 to {most} letters, or left out"), most=NAME_LETTERS)
    return None


@dataclass(frozen=True)
class UltimatumSettings:
    players: tuple[Player, ...] = ()

    KEYS = ("players",)

    def as_dict(self) -> dict[str, Any]:
        return {"players": [p.as_dict() for p in self.players]}

    @classmethod
    def from_dict(cls, raw: Any, *, file: str | None = None, key: str = "match") -> "UltimatumSettings":
        """The set-up from a scenario's table or the game master's form: `players`, a list of
        tables { player = "red", name = "Lea", form = "dance" } (none, or up to four; they
        may also sit down by entries before the first performance)."""
        def where(k: str) -> str | None:
            return f"{key}.{k}" if key else k

        if not isinstance(raw, dict):
            raise ConfigError(Problem(file, key or None, Text(N_("must be a table"))))
        problems: list[Problem] = []
        for k in raw:
            if k not in cls.KEYS:
                problems.append(Problem(file, where(k), Text(N_("unknown setting for Penguin Ultimatum (expected one of: "
                                                                "{names})"), names=", ".join(cls.KEYS))))
        raw_players = raw.get("players", [])
        if not isinstance(raw_players, list) or len(raw_players) > MAX_PLAYERS:
            problems.append(Problem(file, where("players"), Text(
                N_("must list up to {most} players, each a table {table}"), most=MAX_PLAYERS,
                table='{ player = "red", name = "Lea", form = "dance" }')))
            raw_players = []
        players: list[Player] = []
        for i, rp in enumerate(raw_players):
            k = where(f"players[{i}]")
            if not isinstance(rp, dict):
                problems.append(Problem(file, k, Text(N_("must be a table {table}"),
                                                      table='{ player = "red", name = "Lea", form = "dance" }')))
                continue
            why = player_problem(rp, players)
            if why is not None:
                param, reason = why
                problems.append(Problem(file, f"{k}.{param}", reason))
                continue
            players.append(Player(rp["player"], rp["form"], rp["name"].strip() if rp.get("name") else None))
        if problems:
            raise ConfigError(problems)
        return cls(tuple(players))


def player_problem(rp: dict[str, Any], players: list[Player]) -> tuple[str, Text] | None:
    """What is wrong with a player sitting down beside `players` (Ultimatum rule 1), as
    (the key at fault, why), or None."""
    for extra in rp:
        if extra not in ("player", "name", "form"):
            return extra, Text(N_("unknown key (expected player, name, form)"))
    colour, form = rp.get("player"), rp.get("form")
    if colour not in PLAYER_COLOURS:
        return "player", Text(N_("{value} is not a player's colour ({colours})"), value=repr(colour),
                              colours=", ".join(PLAYER_COLOURS))
    if any(p.colour == colour for p in players):
        return "player", Text(N_("two players have the {colour} pieces"), colour=colour)
    if form not in FORMS:
        return "form", Text(N_("{value} is not a performance card ({forms})"), value=repr(form), forms=", ".join(FORMS))
    if any(p.form == form for p in players):
        return "form", Text(N_("two players have the {form} performance card: each has one of the four"), form=form)
    why = name_problem(rp.get("name"))
    return ("name", why) if why is not None else None
