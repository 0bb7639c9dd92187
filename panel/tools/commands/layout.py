"""`penguin-panel layout show`: every control of a layout, for people and scripts."""

from __future__ import annotations

import json

from panel.core.i18n import _, ngettext
from panel.core.layout import SIDES
from panel.core.layout_file import load_layout


def add_layout_options(p) -> None:
    """The options every command that reads a layout shares."""
    p.add_argument("--layout", metavar=_("FILE"), help=_("layout TOML (default: the Penguin Airlines panel)"))
    p.add_argument("--side", choices=SIDES, default="blue", help=_("printed side of the module cards"))
    p.add_argument("--expansion", action="store_true", help=_("include the 3 expansion modules"))


def register(sub) -> None:
    p = sub.add_parser("layout", help=_("inspect a panel layout"))
    lsub = p.add_subparsers(dest="layout_command", metavar=_("ACTION"))
    lsub.required = True
    show = lsub.add_parser("show", help=_("print every control"))
    add_layout_options(show)
    show.add_argument("--json", action="store_true", help=_("machine-readable output"))
    show.set_defaults(func=show_layout)


def show_layout(args) -> int:
    layout = load_layout(args.layout, side=args.side, expansion=args.expansion)
    controls = layout.as_dicts()
    if args.json:
        print(json.dumps({"name": layout.name, "side": layout.side, "expansion": layout.expansion,
                          "controls": controls}, indent=2))
        return 0
    counts = ", ".join([ngettext("{n} module", "{n} modules", len(layout.modules)).format(n=len(layout.modules)),
                        ngettext("{n} button", "{n} buttons", len(layout.buttons)).format(n=len(layout.buttons)),
                        ngettext("{n} token", "{n} tokens", len(layout.tokens)).format(n=len(layout.tokens))])
    side = _(layout.side)
    print((_("{layout}: {side} side, with the expansion: {counts}") if layout.expansion else
           _("{layout}: {side} side, without the expansion: {counts}")).format(layout=layout.name, side=side,
                                                                                counts=counts))
    # One row per control in the layout file's own words (ids, kinds, roles, colours): what
    # a hardware map or a deck names them by.
    for c in controls:
        extra = _("positions {positions}").format(positions="/".join(c["positions"])) if c["kind"] == "token" \
            else (c["role"] or "")
        print(f"  {c['id']:<22} {c['kind']:<6} {c['section']:<12} {c['colour']:<7} {extra}")
    return 0
