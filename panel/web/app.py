"""The HTTP side of the service: pages, the JSON API and the live sockets (aiohttp).

Routes follow the contract the pages are written against (the pages: the guide's
docs/pages.md). Every error is a 4xx/5xx with {"error": "one clear line"}, never a traceback.
Handlers never touch the match: they read snapshots and hand requests to the cockpit's
owner (`Cockpit.call`), which carries them out in order with every press.
"""

from __future__ import annotations

import asyncio
import gettext
import json
import logging
from collections import OrderedDict
from pathlib import Path
from typing import Any

from aiohttp import web

from panel import __version__
from panel.games.tables import csv_text
from panel.games.airlines.engine import SETTINGS, MatchSettings, default_teams, names
from panel.core.errors import ConfigError, Refused
from panel.core.i18n import MODULE_NAME, N_, NOT_A_LANGUAGE, Either, Word, language_name, languages, translations
from panel.games.registry import DEFAULT, UnknownGame, game_named, game_of, games, named_in
from panel.server.app import web_app
from panel.server.body import json_body
from panel.server.guard import Quiet
from panel.server.pages import catalog_response, serve_help, serve_page, serve_static
from panel.server.peers import REVOKED, Peer, follow, from_this_computer, going_away, open_socket
from panel.server.replies import error, refused, said
from panel.server.security import PinError, Security, is_loopback, split_host
from panel.server.sessions import (COOKIE, PAIRED_COOKIE_SECONDS, SECURITY, admin_login, check_same_origin,
                                   require_admin)
from panel.service.cockpit import Cockpit
from panel.service.history import CannotRebuild, NotStored, debrief_json, outcome_of, record as history_record
from panel.web.drawing import qr_svg

log = logging.getLogger("penguin-panel")

PAGES = ("tower", "board", "admin", "sim", "join", "debrief")
VIEWS = ("board", "sim", "tower")
SCREEN = "pp_screen"  # a paired room screen's cookie (shows the join code)
TOWER_CLOSE = REVOKED  # a tower without the right join code
COCKPIT = web.AppKey("cockpit", Cockpit)
SIM = web.AppKey("sim", bool)
SIM_FROM_NETWORK = web.AppKey("sim_from_network", bool)
LAN_HOST = web.AppKey("lan_host", str)
QR_CODES = web.AppKey("qr_codes", OrderedDict)
QR_KEPT = 4  # join addresses whose QR code is kept drawn (this match's and the next one's)
MATCHES_PAGE = 50  # matches per page of the debrief's list
SIM_ONLY = N_("the simulator runs only with penguin-panel play --sim")


# ---------------------------------------------------------------------------- helpers

def join_url(request: web.Request, code: str) -> str:
    """The tower's address as a phone in the room can reach it (not 'localhost')."""
    host = request.host
    loopback = is_loopback(split_host(host))
    lan = request.app[LAN_HOST]
    if loopback and lan:
        port = host.rsplit(":", 1)[1] if host.count(":") == 1 or host.startswith("[") and "]:" in host else None
        host = f"{lan}:{port}" if port else lan
    return f"http://{host}/tower?code={code}"


# ---------------------------------------------------------------------------- pages

def page_handler(name: str):
    async def page(request: web.Request) -> web.StreamResponse:
        if name == "sim" and not request.app[SIM]:
            raise web.HTTPNotFound(text=SIM_ONLY)
        return serve_page(request, name)
    return page


# ---------------------------------------------------------------------------- public API

async def get_layout(request: web.Request) -> web.Response:
    layout = request.app[COCKPIT].any_layout()
    tr = said(request)
    controls = []
    for c in layout.controls():
        d = c.as_dict()
        if c.id in layout.cockpit:
            d["section"], d["module"] = "cockpit", None
        d["at"] = list(c.at)
        d["plain"] = layout.plain_name(c.id, tr)  # what a person calls it: the pages show this, never the id
        controls.append(d)
    return web.json_response({
        "name": layout.name, "side": layout.side, "expansion": layout.expansion,
        "modules": [{"id": m.id, "name": tr.pgettext(MODULE_NAME, m.name), "expansion": m.expansion, "at": list(m.at),
                     "sections": list(m.sections)} for m in layout.modules.values()],
        "sections": [{"id": s.id, "module": s.module, "kind": s.kind, "label": s.label,
                      "controls": list(s.controls)} for s in layout.sections.values()],
        "controls": controls,
        "start_words": layout.start_words(tr),  # where the crew puts the tokens back between turns
    })


async def get_state(request: web.Request) -> web.Response:
    return web.json_response(request.app[COCKPIT].public_state())


async def get_tower(request: web.Request) -> web.Response:
    cockpit = request.app[COCKPIT]
    if not cockpit.code_ok(request.query.get("code")):
        return error(403, N_("wrong or missing join code: scan the code on the join page"), request)
    return web.json_response(await cockpit.tower_view())


async def get_completed(request: web.Request) -> web.Response:
    """The cards completed in the turn in progress, or between turns in the last turn, drawn:
    the rulebook lays them face up for the other teams to check. Never the card in play."""
    return web.json_response(await request.app[COCKPIT].completed_view())


async def get_sounds(request: web.Request) -> web.Response:
    """The buzzer's cues for the board to play in the room as well (Web Audio): its tunes
    (frequency in Hz, or null for a rest, and seconds), which cuts which, and for each game
    which event plays which tune and how many last seconds of a running clock tick. Declared
    once, in each game's show (panel/games/<game>/show.py), which the buzzer plays."""
    from panel.games.lights import TICK
    from panel.games.registry import games

    tunes: dict[str, list] = {}
    priority: dict[str, int] = {}
    shows = {}
    for game in games():
        show = game.show
        tunes.update({k: [list(step) for step in v] for k, v in show.TUNES.items()})
        priority.update(show.PRIORITY)
        shows[game.id] = {"events": {event: tune for event, (tune, _who) in show.SOUNDS.items()},
                          "last_seconds": show.LAST_SECONDS}
    return web.json_response({"tunes": tunes, "priority": priority, "games": shows, "tick": TICK})


async def get_join(request: web.Request) -> web.Response:
    """The tower's join code, address and QR code (the match's, or while none runs the next
    one's): for a game master's session or a room screen only (see security.py). The code
    opens the tower's card, so nobody gets it just by asking the network. A page of this
    computer is the room's own screen (the kiosk on the Pi; every window of the quickest
    game on a laptop, which is served to this computer only): nobody types a PIN there."""
    security = request.app[SECURITY]
    if (not from_this_computer(request) and security.session(request.cookies.get(COOKIE)) is None
            and not security.screen_ok(request.cookies.get(SCREEN))):
        return error(403, N_("the join code shows only on the room's screen and the game master's page: "
                             "pair this screen with the game master's PIN"), request)
    code = request.app[COCKPIT].join_code()
    url = join_url(request, code)
    codes = request.app[QR_CODES]
    svg = codes.get(url)
    if svg is None:  # drawn off the loop, once per address
        svg = codes[url] = await asyncio.get_running_loop().run_in_executor(None, qr_svg, url)
        while len(codes) > QR_KEPT:
            codes.popitem(last=False)
    # loopback: the QR code leads to this machine only (the page says so); sim_from_network:
    # with the simulator, whether other devices may press its buttons (None without it).
    return web.json_response({"code": code, "url": url, "qr_svg": svg,
                              "loopback": is_loopback(split_host(url.split("/")[2])),
                              "sim_from_network": request.app[SIM_FROM_NETWORK] if request.app[SIM] else None})


async def get_i18n(request: web.Request) -> web.Response:
    """The catalog in the cockpit's language (chosen on /admin), or ?lang=."""
    return catalog_response(request, request.app[COCKPIT].language)


async def get_games(request: web.Request) -> web.Response:
    """What every page shows of each game that is not in a snapshot (GET /api/games, for
    every page: nothing secret): its title, the names of the ids its snapshots carry, its
    colours, its debrief's tables, in the pages' language (or ?lang=); and the game a page
    shows while no match is set up. The pages word a game from here, never from a copy."""
    lang = request.query.get("lang") or request.app[COCKPIT].language
    if lang not in languages():
        return error(400, NOT_A_LANGUAGE, request, param="lang", value=repr(lang[:20]), languages=", ".join(languages()))
    tr = translations(lang)
    return web.json_response({"default": DEFAULT, "games": {g.id: g.pages(tr) for g in games()}})


async def sim_input(request: web.Request) -> web.Response:
    check_same_origin(request)
    if not request.app[SIM_FROM_NETWORK] and not from_this_computer(request):
        # Anyone on the network could otherwise play the panel without the PIN.
        return error(403, N_("the simulated panel takes presses only on the computer running the cockpit, opened at "
                             "127.0.0.1 (sim_from_network = true in the settings file's [service] table lets other "
                             "devices in)"), request)
    body = await json_body(request)
    cockpit = request.app[COCKPIT]
    control, value = body.get("control"), body.get("value")
    extra = sorted(k for k in body if k not in ("control", "value"))
    if extra:
        return error(400, N_("{field}: unknown field (expected control, value)"), request, field=extra[0])
    if not isinstance(control, str):
        return error(400, N_("control: must be a control id such as \"grid.r1c1\""), request)
    layout = cockpit.any_layout()
    if control not in layout:
        return error(400, N_("control: {control} is not a control of the {side} side panel"), request,
                     control=repr(control), side=Word(layout.side))
    if control in layout.tokens:
        positions = layout.tokens[control].positions
        if not isinstance(value, str) or value not in positions:
            return error(400, N_("value: {control} has positions {positions}, not {value}"), request,
                         control=control, positions=", ".join(positions), value=repr(value))
    elif not isinstance(value, bool):
        return error(400, N_("value: {control} is a button: true (pressed) or false (released), not {value}"),
                     request, control=control, value=repr(value))
    try:
        logged = await cockpit.input(control, value)
    except Refused as e:
        return refused(e, request)
    return web.json_response({"ok": True, "logged": logged})


# ---------------------------------------------------------------------------- admin API

async def admin_screen(request: web.Request) -> web.Response:
    """Pair this browser as a room screen: it may show the join code from now on, across
    restarts, until the PIN changes. The game master's session that paired it ends: a
    screen in the room is not a game master's page."""
    require_admin(request)
    security = request.app[SECURITY]
    store = request.app[COCKPIT].store
    await store.writable()
    token = security.pair_screen()
    await store.flushed()  # the screen keeps its pairing across a power cut
    security.end_session(request.cookies.get(COOKIE))
    resp = web.json_response({"ok": True})
    resp.set_cookie(SCREEN, token, httponly=True, samesite="Strict", path="/", max_age=PAIRED_COOKIE_SECONDS)
    resp.del_cookie(COOKIE, path="/")
    return resp


async def admin_match(request: web.Request) -> web.Response:
    require_admin(request)
    body = await json_body(request)
    try:
        return web.json_response(await request.app[COCKPIT].create_match(body))
    except Refused as e:
        return refused(e, request)


async def admin_action(request: web.Request) -> web.Response:
    require_admin(request)
    body = await json_body(request)
    name = body.pop("action", None)
    if not isinstance(name, str):
        game = request.app[COCKPIT].game or game_named(DEFAULT)
        actions = game.actions
        return error(400, N_("action: missing (one of: {actions})"), request,
                     actions=", ".join(a for a in actions if a != "new_match"))
    try:
        events = await request.app[COCKPIT].action(name, body)
    except Refused as e:
        return refused(e, request)
    return web.json_response({"ok": True, "events": events})


async def admin_settings(request: web.Request) -> web.Response:
    require_admin(request)
    body = await json_body(request)
    if not body:  # a page that sent nothing has a bug to be told about, not a silent 200
        return error(400, N_("nothing to change: send pin, language or one of: {names}"), request,
                     names=", ".join(names("defaults")))
    cockpit = request.app[COCKPIT]
    security = request.app[SECURITY]
    if "language" in body and body["language"] not in languages():  # checked before anything changes
        return error(400, NOT_A_LANGUAGE, request, param="language", value=repr(str(body["language"])[:20]),
                     languages=", ".join(languages()))
    defaults = {k: v for k, v in body.items() if k not in ("pin", "language")}
    try:  # the defaults as a whole, with the same checks and messages as the settings file's
        MatchSettings.check_defaults({**cockpit.defaults, **defaults}, "defaults", key="", also=("pin", "language"))
    except ConfigError as e:
        return error(400, "; ".join(p.text(said(request)) for p in e.problems))
    await cockpit.store.writable()  # while the card cannot be written: a new try, or 503 with nothing changed
    if "pin" in body:
        try:
            await security.change_pin(body["pin"])
        except PinError as e:
            return error(400, N_("pin: {why}"), request, why=e.args[0])
    if defaults:  # saved first: nothing changes that the store did not take
        merged = {**cockpit.defaults, **defaults}
        cockpit.store.set_setting("match_defaults", json.dumps(merged, sort_keys=True))
        cockpit.defaults.update(defaults)
    if "language" in body:
        await cockpit.call(lambda: cockpit.set_language(body["language"]))
    await cockpit.store.flushed()  # the answer says "saved": it is, power cut or not
    resp = web.json_response({"ok": True, "defaults": cockpit.defaults, "language": cockpit.language})
    if "pin" in body:  # a new PIN logs everybody out, this browser too: log in again
        resp.del_cookie(COOKIE, path="/")
    return resp


def declared_settings(tr: gettext.NullTranslations) -> list[dict[str, Any]]:
    """The engine's declaration of the match settings with its words (labels, help, the
    choices' names) in the pages' language."""
    out = []
    for st in SETTINGS:
        d = st.as_dict()
        d["label"], d["help"] = tr.gettext(d["label"]), tr.gettext(d["help"]) if d["help"] else ""
        d["choice_names"] = [tr.pgettext("a setting's choice", n) for n in d["choice_names"]]
        if st.kind == "teams":
            d["default"] = default_teams(tr)
        out.append(d)
    return out


async def admin_status(request: web.Request) -> web.Response:
    require_admin(request, changes_state=False)
    cockpit = request.app[COCKPIT]
    match = None
    if cockpit.record is not None:
        r = cockpit.record
        match = {"id": r.id, "created": r.created, "status": r.status, "code": r.code, "settings": r.settings,
                 "state": cockpit.public_state()}
    # The match settings as declared by the engine (labels, defaults, limits, where each may
    # be set): the page builds its forms from them.
    return web.json_response({"link": cockpit.link_status(), "match": match, "version": __version__,
                              "defaults": cockpit.defaults, "settings": declared_settings(said(request)),
                              "games": {g.id: {**g.pages(said(request)), **g.form(cockpit.build, said(request))}
                                        for g in games()},
                              "language": cockpit.language, "warnings": cockpit.problems(),
                              "languages": [{"code": lang, "name": language_name(lang)} for lang in languages()]})


async def admin_matches(request: web.Request) -> web.Response:
    """The stored matches, newest first, a page at a time (?before=ID for the next page),
    for the debrief page's picker. Read on the store's reader thread."""
    require_admin(request, changes_state=False)
    before = optional_id(request, "before")
    store = request.app[COCKPIT].store
    def page() -> tuple[list[tuple[Any, str | None]], bool]:
        records = store.matches_page(before=before, limit=MATCHES_PAGE + 1)
        # How each came out (a mission: accomplished, failed), from its summary.
        return [(r, outcome_of(store, r)) for r in records[:MATCHES_PAGE]], len(records) > MATCHES_PAGE

    listed, more = await store.run(page)
    return web.json_response({"more": more, "matches": [
        {"id": r.id, "created": r.created, "status": r.status, "game": named_in(r.settings), "outcome": outcome,
         **_listing(r.settings), "log_removed": r.pruned is not None}
        for r, outcome in listed]})


def _listing(settings: dict[str, Any]) -> dict[str, Any]:
    """A stored match in the debrief's picker: its game's words for its sides and mode."""
    try:
        return game_of(settings).listing(settings)
    except UnknownGame:  # a match of a game this cockpit no longer has
        return {"mode": None, "teams": []}


def optional_id(request: web.Request, name: str) -> int | None:
    raw = request.query.get(name, "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        raise Refused(400, N_("{name}: {raw} is not a match id (a whole number, see /api/admin/matches)"),
                      name=Word(name), raw=repr(raw[:40]))
    return int(raw)


async def match_debrief(request: web.Request) -> str:
    """The debrief of the requested match (?match=ID, else the latest) as JSON text: its
    stored summary, made again from the log on the store's reader thread only when the log
    has changed since (panel.service.history), its words in the pages' language."""
    match_id = optional_id(request, "match")
    cockpit = request.app[COCKPIT]
    store = cockpit.store
    try:
        return await store.run(debrief_json, store, match_id, cockpit.language)
    except NotStored as e:
        raise Refused(404, e.said) from None
    except CannotRebuild as e:
        raise Refused(422, e.said) from None


async def admin_record(request: web.Request) -> web.Response:
    """GET /api/admin/record?game=ID: the cockpit's record of a game over its stored matches
    (panel.service.history.record), read on the store's reader thread; 404 for a game that
    keeps none."""
    require_admin(request, changes_state=False)
    name = request.query.get("game", "")
    try:
        game = game_named(name)
    except UnknownGame:
        return error(400, N_("game: {value} is not a game of this cockpit ({games})"), request, value=repr(name[:40]),
                     games=", ".join(g.id for g in games()))
    store = request.app[COCKPIT].store
    kept = await store.run(history_record, store, game)
    if kept is None:
        return error(404, N_("{game} keeps no record of its matches"), request, game=game.id)
    return web.json_response({"game": game.id, **kept})


async def admin_debrief(request: web.Request) -> web.Response:
    require_admin(request, changes_state=False)
    return web.Response(text=await match_debrief(request), content_type="application/json")


async def admin_debrief_csv(request: web.Request) -> web.Response:
    require_admin(request, changes_state=False)
    table = request.query.get("table", "")
    result = json.loads(await match_debrief(request))
    columns = game_of(result).columns
    if table not in columns:
        return error(400, N_("table: {table} is not a table of this match ({tables})"), request, table=repr(table[:40]),
                     tables=Either(columns))
    text = csv_text(result["tables"][table], columns[table])
    return web.Response(text=text, content_type="text/csv", charset="utf-8", headers={
        "Content-Disposition": f'attachment; filename="match-{result["match_id"]}-{table}.csv"',
        "Cache-Control": "no-store"})


# ---------------------------------------------------------------------------- live sockets

async def websocket(request: web.Request) -> web.StreamResponse:
    view = request.query.get("view", "board")
    if view not in VIEWS:
        return error(400, N_("view: {view} is not a view ({views})"), request, view=repr(view), views=Either(VIEWS))
    if view == "sim" and not request.app[SIM]:
        return error(404, SIM_ONLY, request)
    cockpit = request.app[COCKPIT]
    ws = await open_socket(request)
    if view == "tower" and not cockpit.code_ok(request.query.get("code")):
        await ws.close(code=TOWER_CLOSE, message=b"wrong or missing join code")
        return ws
    peer = Peer(ws, view, request.query.get("code", "").strip().upper() if view == "tower" else None)
    await follow(ws, peer, cockpit)
    return ws


async def close_sockets(app: web.Application) -> None:
    going_away(app[COCKPIT].subscribers)


# ---------------------------------------------------------------------------- the app

def build_app(cockpit: Cockpit, security: Security, *, sim: bool = False, static_dir: Path | None = None,
              lan_host: str = "", sim_from_network: bool = False, quiet: Quiet | None = None,
              help_dir: Path | None = None) -> web.Application:
    """help_dir: the built guide served at /help/ (the one shipped with the package without it)."""
    app = web_app(security, static_dir=static_dir, quiet=quiet, language=lambda: cockpit.language)
    app[COCKPIT] = cockpit
    app[SIM] = sim
    app[SIM_FROM_NETWORK] = sim_from_network
    app[LAN_HOST] = lan_host
    app[QR_CODES] = OrderedDict()
    r = app.router
    r.add_get("/", page_handler("index"))
    for name in PAGES:
        r.add_get(f"/{name}", page_handler(name))
    r.add_get("/api/layout", get_layout)
    r.add_get("/api/state", get_state)
    r.add_get("/api/tower", get_tower)
    r.add_get("/api/join", get_join)
    r.add_get("/api/completed", get_completed)
    r.add_get("/api/sounds", get_sounds)
    r.add_get("/api/games", get_games)
    r.add_get("/api/i18n", get_i18n)
    if sim:
        r.add_post("/api/sim/input", sim_input)
    r.add_post("/api/admin/login", admin_login)
    r.add_post("/api/admin/screen", admin_screen)
    r.add_post("/api/admin/match", admin_match)
    r.add_post("/api/admin/action", admin_action)
    r.add_post("/api/admin/settings", admin_settings)
    r.add_get("/api/admin/status", admin_status)
    r.add_get("/api/admin/matches", admin_matches)
    r.add_get("/api/admin/debrief", admin_debrief)
    r.add_get("/api/admin/record", admin_record)
    r.add_get("/api/admin/debrief.csv", admin_debrief_csv)
    r.add_get("/ws", websocket)
    app.on_shutdown.append(close_sockets)
    serve_static(app)
    serve_help(app, help_dir)
    return app
