"""`penguin-panel wiring MAP --out DIR`: pinout and matrix tables, harness and schematic
drawings, all generated from a hardware map (see panel/tools/wiring.py).

    penguin-panel wiring reference --out wiring/reference
    penguin-panel wiring reference --out wiring/reference --check   # stale?
"""

from __future__ import annotations

import sys

from panel.core.i18n import N_, _
from panel.core.layout import SIDES
from panel.tools.wiring import MISSING, NO_LONGER_MADE, STALE

SAY_STALE = {STALE: N_("{folder}: {file} is stale"), MISSING: N_("{folder}: {file} is missing"),
             NO_LONGER_MADE: N_("{folder}: {file} is no longer made from this map")}


def register(sub) -> None:
    p = sub.add_parser("wiring", help=_("generate the wiring tables and diagrams of a hardware map"))
    p.add_argument("map", metavar="HARDWARE_MAP",
                   help=_("hardware map TOML, or a shipped map's name (reference, small)"))
    p.add_argument("--out", metavar=_("DIR"), required=True, help=_("folder to write the files into"))
    p.add_argument("--layout", metavar=_("FILE"), help=_("layout TOML (default: the Penguin Airlines panel)"))
    p.add_argument("--side", choices=SIDES, default="blue", help=_("printed side of the module cards"))
    p.add_argument("--check", action="store_true",
                   # Translators: DIR is --out's placeholder: write it as you translated "DIR".
                   help=_("write nothing: exit 1 if the files in DIR are not what the map makes now"))
    p.set_defaults(func=wiring_command)


def wiring_command(args) -> int:
    from panel.hardware.map import checked_map
    from panel.tools.wiring import stale_files, wiring_files, write_wiring

    hmap, layout, _warnings = checked_map(args.map, args.layout, side=args.side)
    files = wiring_files(hmap, layout)
    if args.check:
        stale = stale_files(files, args.out)
        for name, which in stale.items():
            print(_(SAY_STALE[which]).format(folder=args.out, file=name), file=sys.stderr)
        if stale:
            print(_("run: {command}").format(command=f"penguin-panel wiring {args.map} --out {args.out}"),
                  file=sys.stderr)
            return 1
        print(_("{folder}: up to date with {map}").format(folder=args.out, map=args.map))
        return 0
    for p in write_wiring(files, args.out):
        print(p)  # the files written, one path a line (for scripts too)
    return 0
