"""`penguin-panel firmware ...`: put the co-processor firmware on a Pico, emulate a board,
watch the link.

    firmware install [--port P] [--config FILE | --keep-config] [--dry-run]
    firmware config --config FILE          print the config.json the board would get
    firmware emulator [--config FILE]      a board on a pty, driven by typed commands
    firmware watch [--port P] [--seconds N]  print the link's events and status
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from panel import firmware
from panel.core.errors import ConfigError, Problem
from panel.firmware import config as fwconfig
from panel.core.i18n import N_, Text, _, ngettext

# Where the board's files are: the repository's firmware/ folder in a checkout, the
# package's panel/firmware/ in a wheel (pyproject.toml maps the one onto the other).
FIRMWARE_DIR = Path(firmware.__file__).resolve().parent
# What goes on the board: every firmware module except the CPython package marker.
BOARD_FILES = ("protocol.py", "config.py", "matrix.py", "analog.py", "encoder.py", "rp2fast.py", "app.py", "main.py")

# A small wiring for trying things out: 4 x 4 keys, one slider, one encoder.
EXAMPLE = {"rows": [2, 3, 4, 5], "cols": [6, 7, 8, 9], "adc": [26], "encoders": [[14, 15]]}


def register(sub) -> None:
    p = sub.add_parser("firmware", help=_("co-processor firmware: install, emulate, watch"))
    fsub = p.add_subparsers(dest="firmware_command", metavar=_("ACTION"))
    fsub.required = True

    inst = fsub.add_parser("install", help=_("copy the firmware and its config.json to a Pico (uses mpremote)"))
    inst.add_argument("--port", metavar=_("PORT"), help=_("serial port (default: the first Pico found by USB id)"))
    g = inst.add_mutually_exclusive_group()
    g.add_argument("--config", metavar=_("FILE"), help=_("firmware config JSON (wiring) to write as config.json"))
    g.add_argument("--hardware", metavar=_("FILE"), help=_("take the wiring from a hardware map (TOML)"))
    g.add_argument("--keep-config", action="store_true", help=_("leave the board's config.json as it is"))
    inst.add_argument("--dry-run", action="store_true", help=_("print what would be done, touch nothing"))
    inst.set_defaults(func=cmd_install)

    cfg = fsub.add_parser("config", help=_("check a firmware config and print it as the board stores it"))
    g = cfg.add_mutually_exclusive_group(required=True)
    g.add_argument("--config", metavar=_("FILE"), help=_("firmware config JSON"))
    g.add_argument("--hardware", metavar=_("FILE"), help=_("a hardware map (TOML): its co-processor part"))
    cfg.set_defaults(func=cmd_config)

    emu = fsub.add_parser("emulator", help=_("run the firmware on an emulated board behind a pty"))
    emu.add_argument("--config", metavar=_("FILE"), help=_("firmware config JSON (default: a 4 x 4 example)"))
    emu.add_argument("--no-diodes", action="store_true", help=_("wire the emulated matrix without diodes"))
    emu.add_argument("--protocol", metavar=_("VERSION"), type=int, help=_("pretend to speak another protocol version"))
    emu.set_defaults(func=cmd_emulator)

    w = fsub.add_parser("watch", help=_("connect like the service does and print every event"))
    w.add_argument("--port", metavar=_("PORT"), help=_("serial port (default: the first Pico found by USB id)"))
    w.add_argument("--config", metavar=_("FILE"), help=_("firmware config JSON to push if the board has another"))
    w.add_argument("--seconds", metavar=_("SECONDS"), type=float,
                   help=_("stop after this long (default: until Ctrl-C)"))
    w.set_defaults(func=cmd_watch)


def load_config(path: str) -> dict:
    """A firmware config JSON file, validated: every problem names the file and key."""
    p = Path(path)
    try:
        raw = json.loads(p.read_text())
    except FileNotFoundError:
        raise ConfigError(Problem(p, None, Text(N_("file not found")))) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(Problem(p, None, Text(N_("cannot be read ({why})"), why=e))) from None
    except json.JSONDecodeError as e:
        raise ConfigError(Problem(p, None, Text(N_("not valid JSON ({why} at line {line} column {column})"), why=e.msg,
                                                line=e.lineno, column=e.colno))) from None
    problems = fwconfig.validate(raw)
    if problems:
        raise ConfigError([Problem(p, *pr.split(": ", 1)) for pr in problems])
    return fwconfig.complete(raw)


def config_from_map(path: str) -> dict:
    """The firmware config a hardware map's co-processor section and controls call for."""
    from panel.hardware.map import load_map

    cfg = load_map(path).board().firmware_config
    problems = fwconfig.validate(cfg)
    if problems:
        raise ConfigError([Problem(path, "coprocessor", pr) for pr in problems])
    return fwconfig.complete(cfg)


def cmd_config(args) -> int:
    cfg = config_from_map(args.hardware) if args.hardware else load_config(args.config)
    print(fwconfig.canonical(cfg))
    return 0


def _port(args) -> str:
    if args.port:
        return args.port
    from panel.link import find_ports

    ports = find_ports()
    if not ports:
        raise ConfigError(Problem(None, None, Text(N_("no Pico found ({where}): plug it in, or give --port"),
                                                   where="USB 2E8A:0005 or /dev/serial/by-id/*MicroPython*")))
    return ports[0]


def install_plan(port: str, config_file: str | None, mpremote: str) -> list[str]:
    """The one mpremote command that copies everything and restarts the board."""
    cmd = [mpremote, "connect", port, "cp", *[str(FIRMWARE_DIR / f) for f in BOARD_FILES], ":"]
    if config_file:
        cmd += ["+", "cp", config_file, ":config.json"]
    return cmd + ["+", "reset"]


def enter_maintenance(port: str, timeout: float = 8.0) -> bool:
    """If the penguin-panel firmware runs on `port`, ask it to reboot without its app and
    watchdog (the watchdog would reset the board in the middle of the copy). True if it
    answered; False if nothing answered (fresh MicroPython, or already in maintenance)."""
    import serial

    from panel.firmware import protocol

    def acked(kind: str, args: list[str]) -> bool:
        try:
            return kind == "ACK" and protocol.unpack(protocol.BOARD_TO_PI, kind, args)["command"] == "MAINT"
        except protocol.ProtocolError:
            return False  # another firmware's frame: not our answer

    parser = protocol.Parser()
    try:
        with serial.Serial(port, 115200, timeout=0.1) as ser:
            ser.write(protocol.encode(0, "MAINT", protocol.pack(protocol.PI_TO_BOARD, "MAINT")))
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                for _seq, kind, args in parser.feed(ser.read(256)):
                    if acked(kind, args):
                        break
                else:
                    continue
                break
            else:
                return False
    except serial.SerialException:
        return False  # the board reset under us: that is the answer too
    # The board re-enumerates; wait for the port to come back.
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if Path(port).exists():
            time.sleep(0.5)
            return True
        time.sleep(0.1)
    raise ConfigError(Problem(port, None, Text(N_("the board did not come back after entering maintenance mode"))))


def cmd_install(args) -> int:
    mpremote = shutil.which("mpremote") or str(Path(sys.executable).with_name("mpremote"))
    cfg_text = None
    if args.config:
        cfg_text = fwconfig.canonical(load_config(args.config))
    elif args.hardware:
        cfg_text = fwconfig.canonical(config_from_map(args.hardware))
    elif not args.keep_config:
        raise ConfigError(Problem(None, None, Text(N_("give --hardware MAP or --config FILE (the wiring the board "
                                                      "should use), or --keep-config"))))
    port = args.port or (_("<first Pico found>") if args.dry_run else _port(args))
    with tempfile.TemporaryDirectory() as tmp:
        cfg_file = None
        if cfg_text is not None:
            cfg_file = str(Path(tmp) / "config.json")
            Path(cfg_file).write_text(cfg_text)
        cmd = install_plan(port, cfg_file, mpremote)
        if args.dry_run:
            print(_("would ask the board on {port} to enter maintenance mode (MAINT), then run:").format(port=port))
            print("  " + " ".join(cmd))
            if cfg_text is not None:
                print(f"config.json: {cfg_text}")
            return 0
        if not Path(mpremote).exists():
            raise ConfigError(Problem(None, None, Text(N_("mpremote not found: pip install mpremote (it ships with "
                                                          "penguin-panel)"))))
        if enter_maintenance(port):
            print(_("{port}: board in maintenance mode").format(port=port))
        r = subprocess.run(cmd)
        if r.returncode != 0:
            raise ConfigError(Problem(port, None, Text(N_("mpremote failed (exit {code}); is MicroPython on the board? "
                                                          "see firmware/README.md"), code=r.returncode)))
    n = len(BOARD_FILES)
    print((ngettext("{port}: firmware installed ({n} file and config.json); the board restarts into the app",
                    "{port}: firmware installed ({n} files and config.json); the board restarts into the app", n)
           if cfg_text else
           ngettext("{port}: firmware installed ({n} file); the board restarts into the app",
                    "{port}: firmware installed ({n} files); the board restarts into the app", n)).format(port=port, n=n))
    return 0


def cmd_emulator(args) -> int:
    from panel.link.emulator import FirmwareEmulator

    cfg = load_config(args.config) if args.config else dict(EXAMPLE)
    kw = {"protocol_version": args.protocol} if args.protocol else {}
    with FirmwareEmulator(cfg, diodes=not args.no_diodes, **kw) as emu:
        # The typed commands and their "ok" are the emulator's own words (scripts drive it);
        # what it says to the person typing is in the system locale's language.
        print(_("emulated board on {port}").format(port=emu.port), flush=True)
        print(_("commands: {commands}").format(commands="press R C | release R C | tap R C | adc CH VALUE(0-65535) | "
                                                       "turn ENC N | unplug | replug | hang | reset | quit"), flush=True)
        def tap(r, c):
            emu.press(r, c)
            emu.wait_scans(3)
            emu.release(r, c)

        commands = {"press": (emu.press, "R C"), "release": (emu.release, "R C"), "tap": (tap, "R C"),
                    "adc": (emu.set_adc, "CH VALUE"), "turn": (emu.turn, "ENC N"), "unplug": (emu.unplug, ""),
                    "replug": (emu.replug, ""), "hang": (emu.hang, ""), "reset": (emu.reset, "")}
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            if words[0] == "quit":
                break
            if words[0] not in commands:
                print(_("unknown command {command}").format(command=repr(words[0])), flush=True)
                continue
            fn, usage = commands[words[0]]
            try:
                vals = [int(w) for w in words[1:]]
                if len(vals) != len(usage.split()):
                    raise ValueError
                result = fn(*vals)
            except (ValueError, IndexError):
                print(_("usage: {usage} (whole numbers, within the config)").format(
                    usage=f"{words[0]} {usage}".rstrip()), flush=True)
                continue
            except TimeoutError as e:  # the machine is too busy for the emulated board to keep up
                print(_("{command}: the machine is too busy for the emulated board to keep up ({detail}); "
                        "try again").format(command=words[0], detail=e), flush=True)
                continue
            if words[0] == "replug":
                print(_("emulated board on {port}").format(port=result), flush=True)
            print("ok", flush=True)
    return 0


def cmd_watch(args) -> int:
    from panel.link import SerialLink, find_ports

    cfg = load_config(args.config) if args.config else None
    # Every cell and channel gets a name of its own: this shows the wiring, not the game.
    cells = {(r, c): f"r{r}c{c}" for r in range(fwconfig.MAX_ROWS) for c in range(fwconfig.MAX_COLS)}

    # The link's events and states as the link names them (a trace, like `replay`'s
    # event lines); the summary at the end is said in the system locale's language.
    def show(item) -> None:
        if isinstance(item, dict):
            print(f"status {item['state']} {item['reason']} {item['message']}".rstrip(), flush=True)
        elif hasattr(item, "raw"):
            print(f"{item.t:.3f} {item.kind} {item.control} {item.raw}", flush=True)
        else:
            print(f"{item.t:.3f} key {item.control} {'down' if item.value else 'up'}", flush=True)

    link = SerialLink(cells, adc_map={i: f"adc{i}" for i in range(3)}, encoder_map={i: f"enc{i}" for i in range(8)},
                      port=args.port, finder=find_ports, on_event=show, on_analog=show, on_status=show,
                      firmware_config=cfg)
    with link:
        try:
            end = None if args.seconds is None else time.monotonic() + args.seconds
            while end is None or time.monotonic() < end:
                time.sleep(0.05)
        except KeyboardInterrupt:
            pass
        st = link.status()
    print(_("frames received {received}, rejected {rejected}, reconnects {reconnects}, sequence gaps {gaps}, "
            "board scan rate {rate}/s").format(received=st["frames_received"], rejected=st["frames_rejected"],
                                                reconnects=st["reconnects"], gaps=st["gaps"], rate=st["scan_rate"]),
          flush=True)
    return 0
