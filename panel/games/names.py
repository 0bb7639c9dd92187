"""What a team's or a player's name may be, in every game: short enough for the board to
show it large (a 20,000-character name was accepted once and broke every page), on one
line, and not empty."""

from __future__ import annotations

from typing import Any

from panel.core.i18n import N_, Text, Word

NAME_MAX = 40  # characters of a team's or a player's name (the board shows it large)


def name_problem(name: Any, what: str) -> Text | None:
    """Why `name` (already trimmed) cannot be a team's or a player's name, or None; `what`
    (marked N_) says whose ("a team", "a player")."""
    if not isinstance(name, str) or not name:
        return Text(N_("{what} needs a name"), what=Word(what))
    if len(name) > NAME_MAX:
        return Text(N_("{what} name is {n} characters long (at most {most})"), what=Word(what), n=len(name),
                    most=NAME_MAX)
    if not name.isprintable():
        return Text(N_("{what} name must be text on one line"), what=Word(what))
    return None
