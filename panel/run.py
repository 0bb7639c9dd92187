"""Start and stop the whole service: store, PIN, cockpit, web server, systemd notify.

`run(options)` is what `penguin-panel play` calls. It opens the store, makes the PIN at
first start (printed once), restores the last match from its log, starts the inputs
(the browser in --sim, the hardware map otherwise), serves the pages, tells systemd it
is ready, feeds the watchdog from the loop and stops cleanly on SIGTERM or Ctrl-C.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from panel.games.airlines.engine import MatchSettings
from panel.games.registry import DEFAULT, game_named, games
from panel.core.errors import ConfigError, DatabaseUnusable, Problem, StoreError
from panel.core.schema import Bool, Check, Each, Field, Int, Problems, Str, Table
from panel.core.toml_file import read_toml
from panel.core.i18n import N_, Several, Text, _, languages, system, system_language, text_of
from panel.web.app import build_app
from panel.service import collections_off_press
from panel.service.cockpit import Cockpit
from panel.server import event_loop
from panel.server.guard import ConnectionGuard, guard_process, start_serving
from panel.service.history import Retention
from panel.server.lifecycle import bind_port, first_pin, say, stop_on_signals, until_stopped
from panel.server.sdnotify import Notifier
from panel.server.security import PinError, Security, check_pin_format, machine_hosts
from panel.storage.sqlite import OwnerLock, move_aside
from panel.storage.store import Store

log = logging.getLogger("penguin-panel")

DEFAULT_PORT = 8080


def default_db() -> Path:
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "penguin-panel" / "panel.db"


@dataclass
class Options:
    sim: bool = False
    host: str | None = None
    port: int | None = None
    db: str | None = None
    layout: str | None = None
    hardware: str | None = None
    settings: str | None = None
    allow_hosts: list[str] = field(default_factory=list)


@dataclass
class Resolved:
    sim: bool
    host: str
    port: int
    db: Path
    layout: str | None
    hardware: str | None
    allow_hosts: list[str]
    pin: str | None
    match_defaults: dict[str, Any]
    touch_sensors: bool
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)  # the settings file's tables, checked
    sim_from_network: bool = False  # the simulator takes presses from other devices than this one
    hardware_map: Any = None          # the map, checked against the layout (not with --sim)
    map_warnings: list = field(default_factory=list)
    mqtt: Any = None  # panel.mqtt.settings.BridgeSettings when the settings file has [mqtt]
    retention: Retention = Retention()


def _pin(v: Any) -> Text | None:
    try:
        check_pin_format(v)
    except PinError as e:
        return e.args[0]
    return None


_PATH = Str(says=N_("must be a string"))
SERVICE = Table(says=N_("must be a table"), default={}, fields={
    "host": _PATH, "port": Int(lo=0, hi=65535, says=N_("must be a port number 0-65535, not {value}")), "db": _PATH,
    "pin": Check(test=_pin), "allow_hosts": Check(test=lambda v: None if isinstance(v, list) and all(
        isinstance(h, str) for h in v) else N_("must be an array of host names")),
    "layout": _PATH, "hardware": _PATH, "sim_from_network": Bool(default=False),
    **{k: Field() for k in Retention.KEYS}})  # Retention checks its own
_OWN_KEYS = Each(says=N_("must be a table"))  # a table whose keys its own reader checks (each game's)
# The settings file's tables: [service], each game's own ([match], [kaboom], ...: `Game.settings_table`)
# and [mqtt]; a table none of them is gets "unknown key" listing them all.
SETTINGS_FILE = Table(fields={"service": SERVICE, **{g.settings_table: _OWN_KEYS for g in games()}, "mqtt": Field()})
DEFAULT_TABLE = game_named(DEFAULT).settings_table  # the default game's: also the build's touch sensors


def read_settings(path: str | None) -> dict[str, Any]:
    """The settings file ([service], each game's table and [mqtt]), checked key by key:
    each game checks its own table (`Game.check_defaults`)."""
    if path is None:
        return {}
    raw = read_toml(path)
    problems = Problems(path)
    SETTINGS_FILE.read_top(raw, problems)
    service, *tables = ({} if not isinstance(raw.get(k, {}), dict) else raw.get(k, {})
                        for k in ("service", *(g.settings_table for g in games())))
    problems.collect(Retention.from_settings, service, file=path)
    own = {g.settings_table: table for g, table in zip(games(), tables)}
    for game in games():
        problems.found += game.check_defaults(own[game.settings_table], file=path)
    mqtt = None
    if "mqtt" in raw:  # the venue's broker (panel.mqtt): checked by its own settings type
        from panel.mqtt.settings import BridgeSettings

        mqtt = problems.collect(BridgeSettings.from_table, raw["mqtt"], file=path)
    problems.raise_any()
    return {"service": service, **own, "mqtt": mqtt}


def resolve(opts: Options) -> Resolved:
    """Command line over settings file over defaults."""
    settings = read_settings(opts.settings)
    service = settings.get("service", {})
    match = dict(settings.get(DEFAULT_TABLE, {}))
    host = opts.host or service.get("host") or ("127.0.0.1" if opts.sim else "0.0.0.0")
    port = opts.port if opts.port is not None else service.get("port", DEFAULT_PORT)
    if not 0 <= port <= 65535:
        raise ConfigError(Problem(None, "--port", Text(N_("must be 0-65535, not {value}"), value=port)))
    db = Path(opts.db or service.get("db") or default_db()).expanduser()
    touch = bool(match.pop("touch_sensors", False))
    hardware = opts.hardware or service.get("hardware")
    if not opts.sim and hardware is None:
        raise ConfigError(Problem(None, "--hardware", Text(N_("a built cockpit needs its hardware map ({command}), "
                                                              "or try the simulator: {simulator}"),
                                                           command="penguin-panel play --hardware MAP.toml",
                                                           simulator="penguin-panel play --sim")))
    layout = opts.layout or service.get("layout")
    hmap, warnings = None, []
    if not opts.sim:
        # Before anything starts: the map against the layout, as `penguin-panel hardware
        # check` does it. An error (a misspelled control id would be a dead button) stops
        # the start with the checker's own lines.
        from panel.hardware.map import checked_map

        hmap, _layout, warnings = checked_map(hardware, layout)
    return Resolved(sim=opts.sim, host=host, port=port, db=db, layout=layout,
                    hardware=hardware, allow_hosts=list(service.get("allow_hosts", [])) + list(opts.allow_hosts),
                    pin=str(service["pin"]) if "pin" in service else None, match_defaults=match,
                    touch_sensors=touch, tables={k: v for k, v in settings.items() if isinstance(v, dict)},
                    sim_from_network=service.get("sim_from_network", False),
                    hardware_map=hmap, map_warnings=warnings, mqtt=settings.get("mqtt"),
                    retention=Retention.from_settings(service))


def stored_defaults(store: Store, base: dict[str, Any]) -> tuple[dict[str, Any], Text | None]:
    """The defaults for new matches: the settings file's, under those saved on /admin. Saved
    ones that cannot be read are left out, with one line saying so (never a failed start)."""
    stored = store.get_setting("match_defaults")
    if not stored:
        return dict(base), None
    try:
        saved = json.loads(stored)
        if not isinstance(saved, dict):
            raise ValueError("not a JSON object")
        MatchSettings.check_defaults({**base, **saved}, "defaults", key="")
    except ConfigError as e:
        why: Any = Several(e.problems)
    except (ValueError, RecursionError) as e:
        why = Text(N_("not valid JSON ({why})"), why=str(e).splitlines()[0][:120])
    else:
        return {**base, **saved}, None
    return dict(base), Text(N_("the defaults for new matches saved on /admin cannot be used ({why}): "
                               "the settings file's are used; save them again on /admin"), why=why)


def hardware_io(r: Resolved) -> tuple[list, list]:
    """The built cockpit's sources and effects: the hardware map's Pi-side inputs and
    its NeoPixels and buzzer (panel.hardware), as one object on both sides of the seam,
    and the co-processor's link when the map has one.

    The map was checked against the layout by `resolve`; its warnings (controls left
    unwired) are logged here."""
    from panel.service.hardware_io import HardwareIO

    tr = system()  # the journal's reader: the system locale's language
    for p in r.map_warnings:
        log.warning("%s", _("warning: {warning}").format(warning=p.text(tr)))
    io = HardwareIO(r.hardware_map, r.layout, map_arg=r.hardware)
    for warning in io.warnings:
        warn(warning)
    sources: list = [io]
    if io.map.on_board():
        # The Pico's matrix, ADC and encoders arrive over the serial link, a source of its own.
        from panel.core.layout_file import load_layout
        from panel.service.link_io import LinkIO

        sources.append(LinkIO(io.map, load_layout(r.layout, expansion=True), state_dir=io.state_dir))
    return sources, [io]


def lan_address() -> str:
    hosts = machine_hosts()
    for h in sorted(hosts):
        if h.count(".") == 3 and not h.startswith("127."):
            return h
    return ""


def warn(warning: Any) -> None:
    """A warning at start, in the system locale's language (a Text or a Problem: also the
    game master's, in the cockpit's, on /admin)."""
    say(_("warning: {warning}").format(warning=text_of(warning, system())))


ANY_HOST = ("0.0.0.0", "::")  # a host that listens on every address


async def serve(r: Resolved, *, stop: asyncio.Event | None = None,
                clock: Callable[[], float] = time.monotonic, sources: list | None = None) -> None:
    """The service until `stop` (or SIGTERM/SIGINT). `clock` gives match time its pace (the
    soak benchmark runs a café day faster than real time); `sources`: inputs beside the
    simulator's (the soak's co-processor on an emulated board), else the hardware map's."""
    started = time.monotonic()
    stop = stop_on_signals(stop)
    quiet = guard_process()
    owner, sock, store, unsaved = take_database_and_port(r)
    with owner, sock, store, Notifier() as notifier:
        security = Security(store, allow_hosts=r.allow_hosts + ([r.host] if r.host not in ANY_HOST else []))
        first_pin(security, r.pin, N_("game master PIN"),
                  N_("a new one: penguin-panel service reset-pin, or pin = '...' in the settings file"))
        cockpit = await start_cockpit(r, store, clock=clock, sources=sources, unsaved=unsaved)
        preload_drawing()
        keep_start_out_of_collections()
        bridge = None
        if r.mqtt is not None:  # the venue's broker: beside the cockpit, never in its way
            from panel.mqtt import bridge as mqtt_bridge

            bridge = await mqtt_bridge.start(r.mqtt, cockpit)
        app = build_app(cockpit, security, sim=r.sim, sim_from_network=r.sim_from_network, quiet=quiet,
                        lan_host=lan_address() if r.host in ANY_HOST else "")
        runner = await start_serving(app, sock, ConnectionGuard(quiet=quiet))
        try:
            port = say_serving(r, sock, owner, started)
            pruner = asyncio.create_task(prune_every_day(r.db, r.retention))
            try:
                await until_stopped(stop, notifier, cockpit, port)
            finally:
                pruner.cancel()
        finally:
            await runner.cleanup()
            if bridge is not None:
                await bridge.close()
            await cockpit.close()


def take_database_and_port(r: Resolved) -> tuple[OwnerLock, Any, Store, Text | None]:
    """The order matters: own the database, then take the port, and only then read the
    database. A second play stops at the first step it cannot take, having written nothing."""
    try:
        owner = OwnerLock(r.db).acquire()
    except StoreError as e:
        raise ConfigError(Problem(None, "--db", e.args[0])) from None
    try:
        sock = bind_port(r.host, r.port)
    except ConfigError:
        owner.close()
        raise
    try:
        store, unsaved = open_store(r.db)
    except StoreError as e:
        sock.close()
        owner.close()
        raise ConfigError(Problem(None, "--db", e.args[0])) from None
    return owner, sock, store, unsaved


def open_store(db: Path) -> tuple[Store, Text | None]:
    """The cockpit's store, and why it saves nothing when it cannot (else None).

    A file that is no database it can use (damaged, not SQLite, a newer schema) does not
    stop the show: it is kept beside under a new name (said in the log and on /admin,
    through the store's warnings) and the cockpit plays on a new one. A full disk does not
    either: the cockpit plays on a copy in memory, saves nothing, and says so on /admin and
    the board. Any other failure (the rights, a failing card) is the caller's StoreError."""
    try:
        store = Store(db, scan_wal=True)
        damage = store.quick_check()  # a truncated file opens: its missing pages are found here
        if damage is None:
            return store, None
        store.close()
        raise DatabaseUnusable(damage, path=db)
    except DatabaseUnusable as e:
        kept = move_aside(db)
        store = Store(db, scan_wal=True)
        store.warnings.append(Text(N_("{why}: kept as {kept}; this cockpit plays on a new database (its earlier "
                                      "matches are in the kept file)"), why=e.args[0], kept=kept))
        return store, None
    except StoreError as e:
        if not disk_full(db):
            raise
        store = Store(copy_in_memory(db))
        unsaved = Text(N_("the disk is full ({db}): this cockpit plays without saving anything until it "
                          "restarts with space free"), db=db)
        store.warnings.append(Text(N_("{why}: {unsaved}"), why=e.args[0], unsaved=unsaved))
        return store, unsaved


FULL_BYTES = 1 << 20  # less free space than this on the database's file system: full


def disk_full(db: Path) -> bool:
    try:
        fs = os.statvfs(db.parent)
    except OSError:
        return False
    return fs.f_bavail * fs.f_frsize < FULL_BYTES


def copy_in_memory(db: Path) -> Path:
    """A copy of the database (its matches and settings) in RAM (/dev/shm, where the system
    has one), to play on while the disk is full; an empty one there if it cannot be copied."""
    import shutil
    import tempfile

    ram = Path("/dev/shm") if os.access("/dev/shm", os.W_OK) else Path(tempfile.gettempdir())
    folder = Path(tempfile.mkdtemp(prefix="penguin-panel-unsaved-", dir=ram))
    copy = folder / db.name
    try:
        for suffix in ("", "-wal"):
            if db.with_name(db.name + suffix).exists():
                shutil.copyfile(db.with_name(db.name + suffix), copy.with_name(copy.name + suffix))
    except OSError:
        for f in folder.iterdir():
            f.unlink()
    return copy


def start_warnings(store: Store, r: Resolved) -> tuple[list[Any], dict[str, Any]]:
    """What the start found wrong with the database and the saved defaults (said now, and
    to the game master on /admin), and the defaults for new matches."""
    warnings: list[Any] = list(store.warnings)  # a damaged file moved aside is among them (open_store)
    defaults, problem = stored_defaults(store, r.match_defaults)
    if problem:
        warnings.append(problem)
    for warning in warnings:
        warn(warning)
    return warnings, defaults


async def start_cockpit(r: Resolved, store: Store, *, clock: Callable[[], float], sources: list | None,
                        unsaved: Text | None = None) -> Cockpit:
    """The cockpit on `store`, its inputs and effects (the hardware map's, none in --sim
    beyond `sources`), each game's defaults from its own table, started."""
    warnings, defaults = start_warnings(store, r)
    # The pages' language: the game master's choice, else the system locale's.
    language = store.get_setting("language")
    if language not in languages():
        language = system_language()
    if sources is None:
        sources, effects = ([], []) if r.sim else hardware_io(r)
    else:
        effects = []
    # Each other game's defaults from its own table of the settings file (`Game.settings_table`);
    # its `walk_up` says whether its buttons set a match up at the panel.
    game_defaults = {g.id: dict(r.tables.get(g.settings_table, {})) for g in games() if g.id != DEFAULT}
    walk_up = {game: bool(table.pop("walk_up", False)) for game, table in game_defaults.items()}
    cockpit = Cockpit(store, layout_path=r.layout, sim=r.sim, sources=sources, effects=effects,
                      defaults=defaults, touch_sensors=r.touch_sensors, language=language,
                      game_defaults=game_defaults, walk_up=walk_up, warnings=warnings, clock=clock, unsaved=unsaved)
    await cockpit.start()
    return cockpit


def preload_drawing() -> None:
    """The drawing code (the tower's card, the join page's QR code) loaded now, before
    anyone is served: loaded by the first tower's request, on a worker thread, it held the
    interpreter for milliseconds while a turn may be running."""
    from panel.games.airlines import card_drawing  # noqa: F401
    from panel.service import drawing  # noqa: F401
    from panel.web import qr  # noqa: F401


def keep_start_out_of_collections() -> None:
    """What the start made (the modules, the layout, the restored match, the drawing code)
    lives as long as the process: collected once now, then frozen (gc.freeze), so that the
    collector's walks take only what was made since. A walk of all of it costs milliseconds
    at full speed, tens of them on a Pi Zero 2 W, and falls at any moment: in a press. From
    now on the owner makes the collections, between its turns (collections_off_press.py)."""
    gc.collect()
    gc.freeze()
    collections_off_press.hold()


def say_serving(r: Resolved, sock: Any, owner: OwnerLock, started: float) -> int:
    """Where the pages are served, said once (and noted in the owner lock); the port."""
    port = sock.getsockname()[1]  # the real one when --port 0
    shown = "127.0.0.1" if r.host in ANY_HOST else r.host
    shown = f"[{shown}]" if ":" in shown else shown
    owner.note(url=f"http://{shown}:{port}/")
    serving = (_("serving on {url}  (simulator, database {db}, ready in {seconds} s)") if r.sim else
               _("serving on {url}  (hardware, database {db}, ready in {seconds} s)"))
    say(serving.format(url=f"http://{shown}:{port}/", db=r.db, seconds=f"{time.monotonic() - started:.2f}"))
    lan = lan_address() if r.host in ANY_HOST else ""
    if lan:
        say(_("on the local network: {url}").format(url=f"http://{lan}:{port}/"))
    return port


PRUNE_FIRST = 600.0  # seconds after start: the start-up and the first match go first
PRUNE_EVERY = 86400.0


async def prune_every_day(db: Path, retention: Retention, *, first: float = PRUNE_FIRST,
                          every: float = PRUNE_EVERY) -> None:
    """The retention setting applied once a day (one timer: nothing wakes in between)."""
    await asyncio.sleep(first)
    while True:
        await prune_logs(db, retention)
        await asyncio.sleep(every)


async def prune_logs(db: Path, retention: Retention) -> int:
    """`penguin-panel matches prune` in a process of its own at a low priority: replaying old
    matches for their summaries is CPU work that must not take the event loop's turn (one
    process's threads share one interpreter lock). What it says goes to the service's log."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "panel", "matches", "prune", "--db", str(db), "--keep-days", str(retention.days or 0),
        "--keep-matches", str(retention.matches or 0), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, stdin=asyncio.subprocess.DEVNULL)
    try:
        os.setpriority(os.PRIO_PROCESS, proc.pid, 10)
    except OSError:
        pass
    out, _ = await proc.communicate()
    for line in out.decode("utf-8", "replace").splitlines():
        (log.info if proc.returncode == 0 else log.warning)("matches prune: %s", line.removeprefix("penguin-panel: "))
    return proc.returncode


def run(opts: Options) -> int:
    logging.basicConfig(level=logging.INFO, format="penguin-panel: %(message)s", stream=sys.stderr)
    r = resolve(opts)
    event_loop.run(serve(r))
    return 0
