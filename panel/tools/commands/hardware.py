"""`penguin-panel hardware ...`: check a build's hardware map against the layout."""

from __future__ import annotations

import sys

from panel.core.i18n import _, ngettext, system
from panel.core.layout import SIDES


def register(sub) -> None:
    p = sub.add_parser("hardware", help=_("hardware maps: which wire each control arrives on"))
    hsub = p.add_subparsers(dest="hardware_command", metavar=_("ACTION"))
    hsub.required = True
    check = hsub.add_parser("check", help=_("validate a hardware map against the layout"))
    check.add_argument("map", metavar=_("MAP"), help=_("hardware map TOML, or a shipped map's name (reference, small)"))
    check.add_argument("--layout", metavar=_("FILE"), help=_("layout TOML (default: the Penguin Airlines panel)"))
    check.add_argument("--side", choices=SIDES, default="blue", help=_("printed side of the module cards"))
    check.add_argument("--strict", action="store_true", help=_("an unmapped control is an error, not a warning"))
    check.set_defaults(func=check_command)


def check_command(args) -> int:
    from panel.hardware.map import check_map

    errors, warnings = check_map(args.map, strict=args.strict, layout_path=args.layout, side=args.side)
    tr = system()
    for p in warnings:
        print(_("warning: {warning}").format(warning=p.text(tr)), file=sys.stderr)
    for p in errors:
        print(_("error: {error}").format(error=p.text(tr)), file=sys.stderr)
    if errors:
        return 2
    n = len(warnings)
    print(ngettext("{map}: OK ({n} warning)", "{map}: OK ({n} warnings)", n).format(map=args.map, n=n) if n else
          _("{map}: OK").format(map=args.map))
    return 0
