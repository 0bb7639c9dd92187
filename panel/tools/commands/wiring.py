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
    from panel.tools.wiring import wiring_files

    hmap, layout, _warnings = checked_map(args.map, args.layout, side=args.side)
    return write_or_check(wiring_files(hmap, layout), args.out, check=args.check,
                          command=f"penguin-panel wiring {args.map} --out {args.out}",
                          up_to_date=_("{folder}: up to date with {map}").format(folder=args.out, map=args.map))


def write_or_check(files: dict[str, str], out: str, *, check: bool, command: str, up_to_date: str) -> int:
    """Write generated files into `out`, or with `check` write nothing and exit 1 naming
    each one that is stale (the command that makes them again on the last line)."""
    from panel.tools.wiring import stale_files, write_wiring

    if check:
        stale = stale_files(files, out)
        for name, which in stale.items():
            print(_(SAY_STALE[which]).format(folder=out, file=name), file=sys.stderr)
        if stale:
            print(_("run: {command}").format(command=command), file=sys.stderr)
            return 1
        print(up_to_date)
        return 0
    for p in write_wiring(files, out):
        print(p)  # the files written, one path a line (for scripts too)
    return 0
