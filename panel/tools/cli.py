"""`penguin-panel`: the command line.

Each file in panel/tools/commands/ adds its own sub-commands through `register(subparsers)`,
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

from panel import __version__
from panel.core.errors import ConfigError
from panel.core.i18n import _, bind_system_language, system, text_of


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, like every other bad input
        self.exit(2, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser, worded in the system locale's language: built on each run, never at import,
    so its texts (translated here, as they are added) follow the locale of the run."""
    from panel.tools import commands

    # argparse says its own words ("usage:", "options", "the following arguments are
    # required: ...") through gettext.gettext: our catalog becomes the global domain, which
    # they come from (panel/tools/argparse_words.py marks the ones translated).
    bind_system_language()
    parser = _Parser(prog="penguin-panel", description=_("Penguin Airlines cockpit"))
    parser.add_argument("--version", action="version", version=f"penguin-panel {__version__}",
                        help=_("show program's version number and exit"))
    # Translators: the placeholder for a sub-command in the usage line ("penguin-panel [-h] COMMAND ...").
    sub = parser.add_subparsers(dest="command", metavar=_("COMMAND"), parser_class=_Parser)
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
        tr = system()  # a person at a terminal: the system locale's language
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
        said = text_of(e.args[0], system()) if len(e.args) == 1 else str(e)
        print(_("error: {error} (set PENGUIN_PANEL_DEBUG=1 for details)").format(error=f"{type(e).__name__}: {said}"),
              file=sys.stderr)
        return 1
    return int(code or 0)


if __name__ == "__main__":
    sys.exit(main())
