"""`penguin-panel kiosk`: the board full screen on this machine's own screen.

The kiosk unit (systemd/penguin-panel-kiosk.service) runs it; it becomes cage running
Chromium on the board (panel/tools/kiosk.py says which flags and why).

    penguin-panel kiosk --settings /etc/penguin-panel/settings.toml
    penguin-panel kiosk --print      # the command the unit runs (from any shell)
"""

from __future__ import annotations

import os
import shlex
import shutil

from panel.core.i18n import _


def register(sub) -> None:
    p = sub.add_parser("kiosk", help=_("show the board full screen on this machine's screen (cage + Chromium)"))
    p.add_argument("--settings", metavar=_("FILE"),
                   help=_("the cockpit's settings file: the board is opened on its port (default 8080)"))
    p.add_argument("--url", metavar=_("URL"),
                   help=_("open this address instead of the board of the cockpit on this machine"))
    p.add_argument("--print", action="store_true", dest="print_only",
                   help=_("print the command the kiosk unit runs, do not run it"))
    p.set_defaults(func=kiosk)


def kiosk(args) -> int:
    from panel.tools import kiosk as k
    from panel.core.errors import ConfigError, Problem
    from panel.core.i18n import N_, Text
    from panel.run import DEFAULT_PORT, read_settings

    url = args.url
    if url is None:
        port = read_settings(args.settings).get("service", {}).get("port", DEFAULT_PORT)
        if port == 0:
            raise ConfigError(Problem(args.settings, "service.port", Text(N_("0 picks a free port at each start: "
                                                                             "the kiosk needs a fixed one to find the board"))))
        url = k.board_url(port)
    profile = k.profile_dir(unit=args.print_only)  # printed: the unit's, even from an ssh shell
    if profile is None:
        raise ConfigError(Problem(None, None, Text(N_("XDG_RUNTIME_DIR is not set: run the kiosk from its systemd "
                                                      "unit or a login session on this machine"))))
    missing = k.missing_programs()
    cmd = k.command(url, cage=shutil.which("cage") or "cage", browser=k.find_browser() or "chromium",
                    profile=profile)
    if args.print_only:
        print(shlex.join(cmd))
        return 0
    if missing:
        raise ConfigError(Problem(None, None, Text(N_("the kiosk needs {programs}: {command}"), programs=", ".join(missing),
                                                   command=f"sudo apt-get install {' '.join(missing)}")))
    k.fresh_profile(profile)
    os.execv(cmd[0], cmd)
    return 1  # not reached: exec replaced this process
