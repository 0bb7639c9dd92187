"""`penguin-panel docs reference --out DIR`: the guide's reference pages, generated from the
code's own declarations (see panel/tools/reference.py).

    penguin-panel docs reference --out docs/reference
    penguin-panel docs reference --out docs/reference --check   # stale?
"""

from __future__ import annotations

from panel.core.i18n import _
from panel.tools.commands.wiring import write_or_check


def register(sub) -> None:
    p = sub.add_parser("docs", help=_("generate the guide's pages made from the code"))
    what = p.add_subparsers(dest="docs_command", metavar=_("COMMAND"), parser_class=type(p))
    what.required = True
    r = what.add_parser("reference", help=_("every command, option and settings key, from their declarations"))
    r.add_argument("--out", metavar=_("DIR"), required=True, help=_("folder to write the files into"))
    r.add_argument("--check", action="store_true",
                   # Translators: DIR is --out's placeholder: write it as you translated "DIR".
                   help=_("write nothing: exit 1 if the files in DIR are not what the code makes now"))
    r.set_defaults(func=reference_command)


def reference_command(args) -> int:
    from panel.tools.reference import reference_files

    return write_or_check(reference_files(), args.out, check=args.check,
                          command=f"penguin-panel docs reference --out {args.out}",
                          up_to_date=_("{folder}: up to date with the code").format(folder=args.out))
