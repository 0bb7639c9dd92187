"""`penguin-panel broker-config`: the venue's Mosquitto configuration and ACL for its cockpits."""

from __future__ import annotations

import sys
from pathlib import Path

from panel.core.errors import ConfigError, Problem
from panel.core.i18n import N_, Text, _


def register(sub) -> None:
    p = sub.add_parser("broker-config", help=_("Mosquitto configuration and ACL for the venue's cockpits"),
                       description=_("Write (or print) a Mosquitto configuration file with no anonymous access "
                                   "and the ACL that lets each cockpit, the venue and Home Assistant publish "
                                   "exactly their own topics."))
    p.add_argument("cockpits", nargs="+", metavar="COCKPIT_ID", help=_("the cockpits' ids (each one is also its user)"))
    p.add_argument("--out", metavar=_("DIR"), help=_("write penguin-panel.conf and penguin-panel.acl there "
                                                "(default: print them)"))
    p.add_argument("--port", metavar=_("PORT"), type=int, default=1883, help=_("the listener's port (default 1883)"))
    p.add_argument("--password-file", metavar=_("FILE"), default="/etc/mosquitto/penguin-panel.passwd",
                   help=_("Mosquitto's password file (default: /etc/mosquitto/penguin-panel.passwd)"))
    p.add_argument("--prefix", metavar=_("PREFIX"), default=None, help=_("topic prefix (default: penguin-panel)"))
    p.add_argument("--discovery-prefix", metavar=_("PREFIX"), default=None,
                   help=_("Home Assistant's discovery prefix (default: homeassistant)"))
    p.add_argument("--no-homeassistant", action="store_true", help=_("no user for Home Assistant"))
    p.set_defaults(func=broker_config)


def broker_config(args) -> int:
    from panel.mqtt.broker import HA_USER, VENUE_USER, acl, listener_conf
    from panel.mqtt.protocol import COCKPIT_ID, DEFAULT_DISCOVERY_PREFIX, DEFAULT_PREFIX

    bad = [c for c in args.cockpits if not COCKPIT_ID.match(c)]
    if bad:
        raise ConfigError([Problem(None, c, Text(N_("not a cockpit id (1 to 32 of a-z, 0-9, - and _)"))) for c in bad])
    out = Path(args.out) if args.out else None
    conf_path = (out.resolve() if out else Path("/etc/mosquitto/conf.d")) / "penguin-panel.conf"
    acl_path = (out.resolve() if out else Path("/etc/mosquitto")) / "penguin-panel.acl"
    acl_text = acl(args.cockpits, prefix=args.prefix or DEFAULT_PREFIX,
                   discovery_prefix=args.discovery_prefix or DEFAULT_DISCOVERY_PREFIX,
                   ha_user=None if args.no_homeassistant else HA_USER)
    conf_text = listener_conf(password_file=args.password_file, acl_file=acl_path, port=args.port)
    users = [*args.cockpits, VENUE_USER] + ([] if args.no_homeassistant else [HA_USER])
    if out is None:  # the files themselves (Mosquitto's): English, like every file written
        print(f"# ---- {conf_path}\n{conf_text}\n# ---- {acl_path}\n{acl_text}")
    else:
        out.mkdir(parents=True, exist_ok=True)
        conf_path.write_text(conf_text)
        acl_path.write_text(acl_text)
        print("penguin-panel: " + _("wrote {conf} and {acl}").format(conf=conf_path, acl=acl_path), file=sys.stderr)
    print("# " + _("then give every user a password (each command asks for it):"), file=sys.stderr)
    first = True
    for user in users:
        print(f"sudo mosquitto_passwd {'-c ' if first else ''}{args.password_file} {user}", file=sys.stderr)
        first = False
    # Mosquitto runs as the user mosquitto: it refuses a password file it cannot read, and
    # warns about one anybody may read (mosquitto_passwd -c leaves it root's, mode 600).
    print(f"sudo chown root:mosquitto {args.password_file} && sudo chmod 640 {args.password_file}", file=sys.stderr)
    print("sudo systemctl restart mosquitto", file=sys.stderr)
    return 0
