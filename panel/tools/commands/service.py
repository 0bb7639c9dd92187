"""`penguin-panel service install | uninstall | reset-pin`: run the cockpit at boot under
systemd, and with `--kiosk` show its board on the Pi's own screen; with `--venue`, the
venue board (`penguin-panel venue`) instead."""

from __future__ import annotations

import os
import pwd
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, _, ngettext

UNIT_NAME = "penguin-panel.service"
KIOSK_UNIT = "penguin-panel-kiosk.service"
KIOSK_RULES = "70-penguin-panel-kiosk.rules"  # udev: no phantom mouse pointer (see the file)
VENUE_UNIT = "penguin-panel-venue.service"
DEFAULT_EXEC = "/opt/penguin-panel/.venv/bin/penguin-panel"
SYSTEMD_RUNNING = Path("/run/systemd/system")  # sd_booted(): systemd is this machine's init
# The files written (units, settings templates) stay English: they are read by systemd and
# by whoever edits them, whatever the language of the one who ran the install.
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

# [mqtt]                              # a venue's broker (the guide, docs/venues.md)
# host = "venue-broker.local"
# tls = true                          # port 8883; the venue's CA, from its broker-config:
# ca_file = "/etc/penguin-panel/penguin-panel-ca.crt"
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
host = "localhost"                    # the broker on this machine: its plain listener is on 127.0.0.1 only
username = "venue"
password = "change me"                # the one given with mosquitto_passwd
"""


def register(sub) -> None:
    p = sub.add_parser("service", help=_("run the cockpit at boot (systemd)"))
    ssub = p.add_subparsers(dest="service_command", metavar=_("ACTION"))
    ssub.required = True
    inst = ssub.add_parser("install", help=_("install and describe the systemd unit (needs root)"))
    inst.add_argument("--user", metavar=_("USER"), default="penguin",
                      help=_("user the service runs as (default: penguin)"))
    inst.add_argument("--unit-dir", metavar=_("DIR"), default="/etc/systemd/system",
                      help=_("where the unit goes (default: /etc/systemd/system)"))
    inst.add_argument("--config-dir", metavar=_("DIR"), default="/etc/penguin-panel",
                      help=_("settings and hardware map (default: /etc/penguin-panel)"))
    inst.add_argument("--kiosk", action="store_true",
                      help=_("also show the board full screen on this machine's screen at boot (cage + Chromium)"))
    inst.add_argument("--kiosk-user", metavar=_("USER"), default="penguin-kiosk",
                      help=_("user the kiosk runs as (default: penguin-kiosk)"))
    inst.add_argument("--udev-dir", metavar=_("DIR"), default="/etc/udev/rules.d",
                      help=_("where the kiosk's udev rule goes"))
    inst.add_argument("--venue", action="store_true",
                      help=_("the venue board's unit (penguin-panel venue) and its settings, not the cockpit's"))
    inst.add_argument("--print", action="store_true", dest="print_only",
                      help=_("only print the unit(s) this installation would get"))
    inst.set_defaults(func=install)
    uninst = ssub.add_parser("uninstall", help=_("stop and remove the unit(s); settings and matches are kept"))
    uninst.add_argument("--kiosk", action="store_true", help=_("remove only the kiosk (the cockpit stays)"))
    uninst.add_argument("--venue", action="store_true", help=_("remove only the venue board"))
    uninst.add_argument("--unit-dir", metavar=_("DIR"), default="/etc/systemd/system", help=_("where the units are"))
    uninst.add_argument("--udev-dir", metavar=_("DIR"), default="/etc/udev/rules.d",
                        help=_("where the kiosk's udev rule is"))
    uninst.set_defaults(func=uninstall)
    reset = ssub.add_parser("reset-pin", help=_("make a new game master PIN and print it"))
    reset.add_argument("--db", metavar=_("PATH"), help=_("the service's database (default: as penguin-panel play)"))
    reset.set_defaults(func=reset_pin)


def unit_template(name: str = UNIT_NAME) -> Path:
    """systemd/<name> of the checkout this package runs from."""
    path = Path(__file__).resolve().parents[3] / "systemd" / name
    if not path.is_file():
        raise ConfigError(Problem(str(path), None, Text(N_("the unit file is not there: install from a checkout of the "
                                                           "repository ({command})"), command="python3 bootstrap.py start")))
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


def say(message: str, *, err: bool = False) -> None:
    """One line for the person at the terminal, in the system locale's language."""
    print(f"penguin-panel: {message}", file=sys.stderr if err else sys.stdout)


def needs_root(command: str, *, removing: bool = False) -> int:
    say(_("removing a system service needs root; run:") if removing else
        _("installing a system service needs root; run:"), err=True)
    print(f"  sudo {command}", file=sys.stderr)
    return 1


def now_run(steps: list[str]) -> None:
    """The commands left to the person, each with `sudo` (a step may end in a comment)."""
    say(_("now run:"))
    for s in steps:
        print(f"  sudo {s}")


def install(args) -> int:
    if args.venue:
        return install_venue(args)
    exec_path = executable()
    units = {UNIT_NAME: render_unit(exec_path=exec_path, user=args.user, config_dir=args.config_dir)}
    if args.kiosk:
        units[KIOSK_UNIT] = render_unit(exec_path=exec_path, user=args.kiosk_user, config_dir=args.config_dir,
                                        name=KIOSK_UNIT)
    if args.print_only:
        print("\n".join(f"# ---- {name}\n{text}" for name, text in units.items()), end="")
        return 0
    if os.geteuid() != 0:
        return needs_root(f"{exec_path} service install{' --kiosk' if args.kiosk else ''}")
    if args.kiosk and not kiosk_can_run(units[KIOSK_UNIT]):
        return 1  # said why; nothing written
    unit_dir, config_dir = Path(args.unit_dir), Path(args.config_dir)
    unit_dir.mkdir(parents=True, exist_ok=True)
    for name, text in units.items():
        (unit_dir / name).write_text(text)
        say(_("wrote {path}").format(path=unit_dir / name))
    config_dir.mkdir(parents=True, exist_ok=True)
    settings = config_dir / "settings.toml"
    if not settings.exists():
        settings.write_text(SETTINGS_TEMPLATE)
    say(_("settings in {settings}; copy your hardware map to {map}").format(settings=settings,
                                                                          map=config_dir / "hardware.toml"))
    steps = _user_steps(args.user, ("gpio", "spi", "dialout"))
    if args.kiosk:
        rules = Path(args.udev_dir) / KIOSK_RULES
        rules.parent.mkdir(parents=True, exist_ok=True)
        rules.write_text(unit_template(KIOSK_RULES).read_text())
        say(_("wrote {path} (no mouse pointer on the board)").format(path=rules))
        # video, render: the GPU, should the screen be reached before logind grants it.
        steps += _user_steps(args.kiosk_user, ("video", "render"))
    steps += ["systemctl daemon-reload", "systemctl enable --now penguin-panel"]
    if args.kiosk:
        steps += ["udevadm control --reload-rules && udevadm trigger --subsystem-match=input",
                  "systemctl enable --now penguin-panel-kiosk    # "
                  + _("the board on the screen, now and at every boot")]
    steps.append("journalctl -u penguin-panel -b | grep PIN    # " + _("the game master's PIN, shown at first start"))
    now_run(steps)
    return 0


def install_venue(args) -> int:
    """The venue board's unit and its settings file (which will hold the broker's password)."""
    exec_path = executable()
    unit = render_unit(exec_path=exec_path, user=args.user, config_dir=args.config_dir, name=VENUE_UNIT)
    if args.print_only:
        print(f"# ---- {VENUE_UNIT}\n{unit}", end="")
        return 0
    if os.geteuid() != 0:
        return needs_root(f"{exec_path} service install --venue")
    unit_dir, config_dir = Path(args.unit_dir), Path(args.config_dir)
    unit_dir.mkdir(parents=True, exist_ok=True)
    (unit_dir / VENUE_UNIT).write_text(unit)
    say(_("wrote {path}").format(path=unit_dir / VENUE_UNIT))
    config_dir.mkdir(parents=True, exist_ok=True)
    settings = config_dir / "venue.toml"
    if not settings.exists():
        settings.write_text(VENUE_SETTINGS_TEMPLATE)
        settings.chmod(0o640)  # the broker's password: the service's group may read it, nobody else
    say(_("settings in {settings}: put the venue user's broker password there").format(settings=settings))
    steps = _user_steps(args.user, ())
    steps += ["systemctl daemon-reload", "systemctl enable --now penguin-panel-venue",
              "journalctl -u penguin-panel-venue -b | grep PIN    # " + _("the venue admin's PIN, shown at first start")]
    now_run(steps)
    return 0


def _user_steps(user: str, groups: tuple[str, ...]) -> list[str]:
    """The commands that make a system user and put it in those of the groups that exist."""
    steps = []
    try:
        pwd.getpwnam(user)
    except KeyError:
        steps.append(f"useradd --system --no-create-home --shell /usr/sbin/nologin {user}")
    present = [g for g in groups if _group_exists(g)]
    if present:
        steps.append(f"usermod -aG {','.join(present)} {user}")
    return steps


def kiosk_can_run(unit: str) -> bool:
    """The kiosk's programs are installed and a screen is connected (the unit's own
    ExecCondition, run here); otherwise one line says what to do."""
    from panel.tools.kiosk import missing_programs

    missing = missing_programs()
    if missing:
        say(_("the kiosk needs {programs}; install them first:").format(programs=", ".join(missing)), err=True)
        print(f"  sudo apt-get install {' '.join(missing)}", file=sys.stderr)
        return False
    if not screen_connected(unit):
        say(_("no screen is connected (no display connector in /sys/class/drm reads \"connected\"): plug the screen "
              "in, switch it on and run this again"), err=True)
        return False
    return True


def screen_connected(unit: str) -> bool:
    m = re.search(r"^ExecCondition=(.+)$", unit, flags=re.M)
    if m is None:  # the unit changed shape: fail loudly rather than install blind
        raise ConfigError(Problem(KIOSK_UNIT, "ExecCondition", Text(N_("missing: the kiosk unit must check for a screen"))))
    return subprocess.run(shlex.split(m.group(1)), capture_output=True).returncode == 0


def uninstall(args) -> int:
    names = [VENUE_UNIT] if args.venue else [KIOSK_UNIT] if args.kiosk else [KIOSK_UNIT, UNIT_NAME]
    if os.geteuid() != 0:
        return needs_root(f"{executable()} service uninstall{' --kiosk' if args.kiosk else ''}"
                          f"{' --venue' if args.venue else ''}", removing=True)
    unit_dir, running = Path(args.unit_dir), SYSTEMD_RUNNING.is_dir()
    removed = False
    for name in names:
        unit = unit_dir / name
        if not unit.exists():
            continue
        if running:  # disabled while its file is still there for systemctl to read
            _run(["systemctl", "disable", "--now", name])
        unit.unlink()
        removed = True
        say(_("removed {path}").format(path=unit))
    rules = Path(args.udev_dir) / KIOSK_RULES
    if rules.exists():
        rules.unlink()
        say(_("removed {path}").format(path=rules))
    if not removed:
        say(ngettext("nothing to remove ({units} is not in {folder})", "nothing to remove ({units} are not in {folder})",
                     len(names)).format(units=", ".join(names), folder=unit_dir))
        return 0
    if running:
        _run(["systemctl", "daemon-reload"])
    else:
        say(_("systemd is not running here: nothing to stop"))
    say(_("kept: the settings ({settings}), the matches ({matches}) and the users (userdel removes one)").format(
        settings="/etc/penguin-panel", matches="/var/lib/penguin-panel"))
    return 0


def _run(cmd: list[str]) -> None:
    say(" ".join(cmd))  # the command itself, as typed
    r = subprocess.run(cmd)
    if r.returncode != 0:
        raise ConfigError(Problem(None, None, Text(N_("{command} failed (exit {code})"), command=" ".join(cmd),
                                                   code=r.returncode)))


def _group_exists(name: str) -> bool:
    import grp

    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def reset_pin(args) -> int:
    from panel.run import default_db
    from panel.server.security import Security, make_pin
    from panel.core.errors import StoreError
    from panel.storage.store import Store

    db = Path(args.db) if args.db else default_db()
    if not db.exists():
        raise ConfigError(Problem(str(db), None, Text(N_("no database here: start the service once first"))))
    try:
        with Store(db) as store:
            pin = make_pin()
            Security(store).set_pin(pin)
    except StoreError as e:
        raise ConfigError(Problem(None, "--db", e.args[0])) from None
    say(_("new game master PIN: {pin}").format(pin=pin))
    return 0
