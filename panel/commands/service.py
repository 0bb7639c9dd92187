"""`penguin-panel service install [--venue] | reset-pin`: run the cockpit (or the venue board)
at boot under systemd."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import sys
from pathlib import Path

from ..errors import ConfigError, Problem

UNIT_NAME = "penguin-panel.service"
VENUE_UNIT = "penguin-panel-venue.service"
DEFAULT_EXEC = "/opt/penguin-panel/.venv/bin/penguin-panel"
SETTINGS_TEMPLATE = """\
# Settings of the cockpit service (penguin-panel play --settings this file).
[service]
# allow_hosts = ["cockpit.example"]   # extra host names the pages are reached by
# pin = "1234"                        # set the game master's PIN here (else made at first start)

[match]
# Defaults for new matches (the game master can change them per match).
# turn_seconds = 35
# time_counters = 4
# target_points = 12

# [mqtt]                              # a venue's broker (README, "A venue with several cockpits")
# host = "venue-broker.local"
# username = "cockpit-1"
# password = "..."
# cockpit_id = "cockpit-1"
"""
VENUE_SETTINGS_TEMPLATE = """\
# Settings of the venue board (penguin-panel venue --settings this file).
[venue]
# name = "Penguin Café"               # the board's title
# pin = "135790"                      # the venue admin's PIN (else made at first start)

[mqtt]
host = "localhost"
username = "venue"
password = "change me"                # the one given with mosquitto_passwd
"""


def register(sub) -> None:
    p = sub.add_parser("service", help="run the cockpit at boot (systemd)")
    ssub = p.add_subparsers(dest="service_command", metavar="ACTION")
    ssub.required = True
    inst = ssub.add_parser("install", help="install and describe the systemd unit (needs root)")
    inst.add_argument("--user", default="penguin", help="user the service runs as (default: penguin)")
    inst.add_argument("--unit-dir", default="/etc/systemd/system", help="where the unit goes (default: /etc/systemd/system)")
    inst.add_argument("--config-dir", default="/etc/penguin-panel", help="settings and hardware map (default: /etc/penguin-panel)")
    inst.add_argument("--print", action="store_true", dest="print_only",
                      help="only print the unit this installation would get")
    inst.add_argument("--venue", action="store_true",
                      help="the venue board's unit (penguin-panel venue) instead of the cockpit's")
    inst.set_defaults(func=install)
    reset = ssub.add_parser("reset-pin", help="make a new game master PIN and print it")
    reset.add_argument("--db", metavar="PATH", help="the service's database (default: as penguin-panel play)")
    reset.set_defaults(func=reset_pin)


def unit_template(name: str = UNIT_NAME) -> Path:
    """systemd/<name> of the checkout this package runs from."""
    path = Path(__file__).resolve().parents[2] / "systemd" / name
    if not path.is_file():
        raise ConfigError(Problem(str(path), None, "the unit file is not there: install from a checkout of the "
                                                   "repository (python3 bootstrap.py start)"))
    return path


def executable() -> str:
    """The penguin-panel script of this installation."""
    candidate = Path(sys.executable).parent / "penguin-panel"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("penguin-panel")
    return found or DEFAULT_EXEC


def render_unit(*, exec_path: str, user: str, config_dir: str, name: str = UNIT_NAME) -> str:
    text = unit_template(name).read_text()
    text = text.replace(DEFAULT_EXEC, exec_path)
    text = re.sub(r"^User=.*$", f"User={user}", text, flags=re.M)
    text = re.sub(r"^Group=.*$", f"Group={user}", text, flags=re.M)
    text = text.replace("/etc/penguin-panel/", config_dir.rstrip("/") + "/")
    if exec_path.startswith(("/home/", "/root/")):
        # The program lives in a home directory: it must stay visible (read-only).
        text = text.replace("ProtectHome=yes", "ProtectHome=read-only")
    return text


def install(args) -> int:
    name = VENUE_UNIT if args.venue else UNIT_NAME
    unit = render_unit(exec_path=executable(), user=args.user, config_dir=args.config_dir, name=name)
    if args.print_only:
        print(unit, end="")
        return 0
    if os.geteuid() != 0:
        print("penguin-panel: installing a system service needs root; run:\n"
              f"  sudo {executable()} service install", file=sys.stderr)
        return 1
    unit_dir, config_dir = Path(args.unit_dir), Path(args.config_dir)
    unit_dir.mkdir(parents=True, exist_ok=True)
    (unit_dir / name).write_text(unit)
    config_dir.mkdir(parents=True, exist_ok=True)
    settings = config_dir / ("venue.toml" if args.venue else "settings.toml")
    if not settings.exists():
        settings.write_text(VENUE_SETTINGS_TEMPLATE if args.venue else SETTINGS_TEMPLATE)
        settings.chmod(0o640)  # it may hold a broker password
    print(f"penguin-panel: wrote {unit_dir / name}")
    print(f"penguin-panel: settings in {settings}" +
          ("" if args.venue else f"; copy your hardware map to {config_dir / 'hardware.toml'}"))
    steps = []
    try:
        pwd.getpwnam(args.user)
    except KeyError:
        steps.append(f"useradd --system --no-create-home --shell /usr/sbin/nologin {args.user}")
    groups = [] if args.venue else [g for g in ("gpio", "spi", "dialout") if _group_exists(g)]
    if groups:
        steps.append(f"usermod -aG {','.join(groups)} {args.user}")
    service = name.removesuffix(".service")
    steps += ["systemctl daemon-reload", f"systemctl enable --now {service}",
              f"journalctl -u {service} -b | grep PIN    # the {'venue admin' if args.venue else 'game master'}'s "
              "PIN, shown at first start"]
    print("penguin-panel: now run:")
    for s in steps:
        print(f"  sudo {s}")
    return 0


def _group_exists(name: str) -> bool:
    import grp

    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def reset_pin(args) -> int:
    from ..service.run import default_db
    from ..service.security import Security, make_pin
    from ..service.store import Store, StoreError

    db = Path(args.db) if args.db else default_db()
    if not db.exists():
        raise ConfigError(Problem(str(db), None, "no database here: start the service once first"))
    try:
        with Store(db) as store:
            pin = make_pin()
            Security(store).set_pin(pin)
    except StoreError as e:
        raise ConfigError(Problem(None, "--db", str(e))) from None
    print(f"penguin-panel: new game master PIN: {pin}")
    return 0
