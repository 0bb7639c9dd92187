"""`penguin-panel play`: run the cockpit service (pages, engine, inputs, store)."""

from __future__ import annotations

from panel.core.i18n import _


def register(sub) -> None:
    p = sub.add_parser("play", help=_("run the cockpit: the game, its pages and its inputs"),
                       description=_("Run the cockpit service. With --sim the panel is simulated in the "
                                   "browser (open the address it prints); without it, the hardware map's "
                                   "controls and LEDs are used."))
    p.add_argument("--sim", action="store_true", help=_("simulated panel in the browser (no hardware)"))
    p.add_argument("--host", metavar=_("HOST"),
                   help=_("address to listen on (default: 127.0.0.1 with --sim, else 0.0.0.0)"))
    p.add_argument("--port", metavar=_("PORT"), type=int,
                   help=_("port to listen on (default: the settings file's, else 8080; 0 picks a free one)"))
    p.add_argument("--settings", metavar=_("FILE"), help=_("settings TOML ([service] and [match] tables)"))
    p.add_argument("--hardware", metavar=_("MAP"),
                   help=_("hardware map TOML of the built cockpit, or a shipped map's name"))
    p.add_argument("--layout", metavar=_("FILE"), help=_("layout TOML (default: the Penguin Airlines panel)"))
    p.add_argument("--db", metavar=_("PATH"),
                   help=_("SQLite database (default: $XDG_STATE_HOME/penguin-panel/panel.db)"))
    p.add_argument("--allow-host", metavar=_("NAME"), action="append", default=[], dest="allow_hosts",
                   help=_("also accept requests for this host name (repeatable)"))
    p.set_defaults(func=play)


def play(args) -> int:
    from panel.run import Options, run  # aiohttp is imported only when the service runs

    return run(Options(sim=args.sim, host=args.host, port=args.port, db=args.db, layout=args.layout,
                       hardware=args.hardware, settings=args.settings, allow_hosts=args.allow_hosts))
