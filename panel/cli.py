"""`penguin-panel`: the command line.

Each file in panel/commands/ adds its own sub-commands through `register(subparsers)`,
so a new command never edits this file. Errors a person can fix (a bad layout, deck,
map or scenario) print one line per problem and exit 2; nothing prints a traceback
unless PENGUIN_PANEL_DEBUG=1 is set.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from . import __version__
from .errors import ConfigError
from .i18n import _, system


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other bad input
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from . import commands

    parser = _Parser(prog="penguin-panel", description="Penguin Airlines cockpit")
    parser.add_argument("--version", action="version", version=f"penguin-panel {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except ConfigError as e:
        tr = system()
        for problem in e.problems:
            print(_("error: {error}").format(error=problem.text(tr)), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # last resort: a clear line, never a traceback
        if os.environ.get("PENGUIN_PANEL_DEBUG"):
            raise
        print(_("error: {error} (set PENGUIN_PANEL_DEBUG=1 for details)").format(error=f"{type(e).__name__}: {e}"),
              file=sys.stderr)
        return 1
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
