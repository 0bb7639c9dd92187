"""`penguin-panel venue`: the venue's board and leaderboard for every cockpit on the broker."""

from __future__ import annotations

from panel.core.i18n import _


def register(sub) -> None:
    p = sub.add_parser("venue", help=_("the venue board: every cockpit on the MQTT broker and a leaderboard"),
                       description=_("Follow every cockpit on the venue's MQTT broker, keep the leaderboard "
                                   "(SQLite) and serve the venue board for a TV, its admin page and a JSON API."))
    p.add_argument("--settings", metavar=_("FILE"), help=_("settings TOML ([venue] and [mqtt] tables)"))
    p.add_argument("--host", metavar=_("HOST"), help=_("address to listen on (default 0.0.0.0)"))
    p.add_argument("--port", metavar=_("PORT"), type=int,
                   help=_("port to listen on (default 8090; 0 picks a free one)"))
    p.add_argument("--db", metavar=_("PATH"),
                   help=_("SQLite database (default: $XDG_STATE_HOME/penguin-panel/venue.db)"))
    p.set_defaults(func=venue)


def venue(args) -> int:
    from panel.venue.run import Options, run  # aiohttp and aiomqtt are imported only when the venue runs

    return run(Options(settings=args.settings, host=args.host, port=args.port, db=args.db))
