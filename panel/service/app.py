"""The HTTP side of the service: pages, the JSON API and the live sockets (aiohttp).

Routes follow the contract the pages are written against (docs in README, "The service's
HTTP API"). Every error is a 4xx/5xx with {"error": "one clear line"}, never a traceback.
Handlers never touch the match: they read snapshots and hand requests to the cockpit's
owner task (`Cockpit.call`), which carries them out in order with every press.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from collections import OrderedDict
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, web

from .. import __version__
from ..debrief import COLUMNS, csv_text, debrief
from ..engine import CARDS_PER_TURN, MISTAKES_PER_TURN, SETTINGS, MatchSettings, names
from ..engine.kaboom import KaboomMatch
from ..errors import ConfigError
from ..events import ACTIONS, KABOOM_ACTIONS
from ..i18n import catalog, language_name, languages
from ..kaboom import debrief as kaboom_debrief
from ..kaboom.build import declaration as kaboom_declaration
from ..scenario import contract_events
from .cockpit import Cockpit, Refused
from .drawing import qr_svg
from .guard import Quiet, out_of_fds
from .replay import replay_events
from .security import LoginRefused, PinError, Security, split_host
from .store import MatchRecord, StoreError, StoreWriteError

log = logging.getLogger("penguin-panel")

PAGES = ("tower", "board", "admin", "sim", "join", "debrief")
VIEWS = ("board", "sim", "tower")
COOKIE = "pp_session"
SCREEN = "pp_screen"  # a paired room screen's cookie (shows the join code)
SCREEN_COOKIE_SECONDS = 400 * 24 * 3600  # the longest a browser keeps a cookie
MAX_BODY = 64 * 1024
MAX_DEPTH = 16  # levels of JSON nesting in a body (a match's teams and players need 4)
MAX_NUMBER_CHARS = 40  # characters of one number in a body: seeds, seconds and indexes need far fewer
BODY_SECONDS = 10.0  # to receive a whole body once its headers are in
TOWER_CLOSE = 4403  # "forbidden", in the private range of WebSocket close codes
COCKPIT = web.AppKey("cockpit", Cockpit)
SECURITY = web.AppKey("security", Security)
SIM = web.AppKey("sim", bool)
SIM_FROM_NETWORK = web.AppKey("sim_from_network", bool)
STATIC = web.AppKey("static", Path)
LAN_HOST = web.AppKey("lan_host", str)
DEBRIEFS = web.AppKey("debriefs", OrderedDict)
QUIET = web.AppKey("quiet", Quiet)
SHARED_QUIET = Quiet()  # for an app built without one of its own (the venue's)
# A cockpit serving the network counts a browser on the Pi itself (the kiosk's, on the
# room's TV) as a room screen: it connects from 127.0.0.1. Listening on 127.0.0.1 only
# (--sim on a laptop), every browser is on this machine, so none is special.
OWN_SCREEN = web.AppKey("own_screen", bool)
OWN_SCREEN_ADDRESSES = ("127.0.0.1", "::1")
DEBRIEF_CACHE = 8  # rebuilt debriefs kept: a class flicking between the last few matches


def default_static_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "web" / "static"


def error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


# ---------------------------------------------------------------------------- middleware

@web.middleware
async def errors_as_json(request: web.Request, handler):
    try:
        return await handler(request)
    except web.HTTPException as e:
        if e.content_type == "application/json" or e.status < 400:
            raise
        reason = e.text if e.text and not e.text.startswith(f"{e.status}:") else e.reason
        return error(e.status, reason or "error")
    except asyncio.CancelledError:
        raise
    except StoreWriteError as e:  # a setting or a PIN the full or failing disk did not take
        return error(503, f"the cockpit cannot save ({e}): nothing was changed, try again when it can")
    except Exception as e:  # the last resort: a line for the page, the details for the log
        if out_of_fds(e):  # a flood of connections: said once a minute, not a traceback each
            request.app.get(QUIET, SHARED_QUIET).warn("fds", f"too many open files while serving {request.path}")
            return error(503, "the cockpit is out of file descriptors (too many connections): try again")
        log.exception("error while serving %s %s", request.method, request.path)
        return error(500, f"internal error ({type(e).__name__}); see the service log")


@web.middleware
async def host_allow_list(request: web.Request, handler):
    """Refuse requests for a host name that is not this machine (DNS rebinding)."""
    host = request.headers.get("Host")
    if not host:
        return error(400, "the request has no Host header")
    if not request.app[SECURITY].host_allowed(host):
        return error(421, f"host {split_host(host)!r} is not one of this machine's names "
                          "(start with --allow-host NAME to add it)")
    return await handler(request)


# ---------------------------------------------------------------------------- helpers

async def json_body(request: web.Request) -> dict[str, Any]:
    ctype = request.content_type
    if ctype != "application/json":
        # A cross-site HTML form cannot send application/json: one more guard against forgery.
        raise web.HTTPUnsupportedMediaType(text="send the body as JSON with Content-Type: application/json")
    try:
        async with asyncio.timeout(BODY_SECONDS):  # a body sent a byte at a time holds nothing for long
            raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        raise web.HTTPRequestEntityTooLarge(max_size=MAX_BODY, actual_size=request.content_length or 0,
                                            text=f"the body is larger than {MAX_BODY} bytes") from None
    except TimeoutError:
        raise web.HTTPRequestTimeout(text=f"the body did not arrive within {BODY_SECONDS:g} s") from None
    try:
        return parse_body(raw)
    except BodyError as e:
        raise web.HTTPBadRequest(text=str(e)) from None


class BodyError(ValueError):
    """A request body that is not a JSON object the service will read: one line why."""


def _number(text: str, kind: type) -> int | float:
    if len(text) > MAX_NUMBER_CHARS:
        raise BodyError(f"the body has a number of {len(text)} characters (at most {MAX_NUMBER_CHARS})")
    value = kind(text)
    if value in (float("inf"), float("-inf")):
        raise BodyError(f"the body has a number out of range ({text})")
    return value


def _constant(name: str):
    raise BodyError(f"the body has {name}, which is not a JSON number")


def parse_body(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object, or BodyError. Bounded in what it builds: numbers of at
    most MAX_NUMBER_CHARS characters, nesting at most MAX_DEPTH deep (no field of the API
    goes deeper than 4), so no body reaches Python's digit or recursion limits."""
    try:
        body = json.loads(raw.decode("utf-8"), parse_int=lambda t: _number(t, int),
                          parse_float=lambda t: _number(t, float), parse_constant=_constant)
    except RecursionError:
        raise BodyError(f"the body is nested deeper than {MAX_DEPTH} levels") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BodyError(f"the body is not valid JSON ({e})") from None
    if not isinstance(body, dict):
        raise BodyError("the body must be a JSON object")
    level = [body]
    for _ in range(MAX_DEPTH):  # after the n-th round, `level` holds the containers n+1 deep
        level = [v for item in level for v in (item.values() if isinstance(item, dict) else item)
                 if isinstance(v, (dict, list))]
        if not level:
            return body
    raise BodyError(f"the body is nested deeper than {MAX_DEPTH} levels")


def check_same_origin(request: web.Request) -> None:
    if not Security.same_origin(request.headers.get("Origin"), request.headers.get("Referer"),
                                request.headers.get("Host")):
        raise web.HTTPForbidden(text="cross-site request refused (Origin or Referer is not this host)")


def require_admin(request: web.Request, *, changes_state: bool = True):
    security = request.app[SECURITY]
    session = security.session(request.cookies.get(COOKIE))
    if session is None:
        raise web.HTTPForbidden(text="log in with the game master's PIN first")
    if changes_state:
        check_same_origin(request)
        if not security.check_csrf(session, request.headers.get("X-CSRF-Token")):
            raise web.HTTPForbidden(text="missing or wrong X-CSRF-Token header")
    return session


def refused(e: Refused) -> web.Response:
    return error(e.status, str(e))


def is_loopback(name: str | None) -> bool:
    """'localhost', 127.x.x.x or ::1: this machine only, out of a phone's reach."""
    if not name:
        return False
    try:
        return name == "localhost" or ipaddress.ip_address(name.split("%")[0]).is_loopback
    except ValueError:
        return False


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
        return serve_page(request, name)
    return page


def serve_page(request: web.Request, name: str) -> web.StreamResponse:
    if name == "sim" and not request.app[SIM]:
        raise web.HTTPNotFound(text="the simulator runs only with penguin-panel play --sim")
    path = request.app[STATIC] / f"{name}.html"
    if not path.is_file():
        raise web.HTTPNotFound(text=f"page {name} is not installed ({path.name} missing)")
    resp = web.FileResponse(path)
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Frame-Options"] = "DENY"  # nobody frames the admin page to click for us
    resp.headers["Referrer-Policy"] = "same-origin"  # the tower's join code stays on this host
    return resp


# ---------------------------------------------------------------------------- public API

async def get_layout(request: web.Request) -> web.Response:
    layout = request.app[COCKPIT].any_layout()
    controls = []
    for c in layout.controls():
        d = c.as_dict()
        if c.id in layout.cockpit:
            d["section"], d["module"] = "cockpit", None
        d["at"] = list(c.at)
        d["plain"] = layout.plain_name(c.id)  # what a person calls it: the pages show this, never the id
        controls.append(d)
    return web.json_response({
        "name": layout.name, "side": layout.side, "expansion": layout.expansion,
        "modules": [{"id": m.id, "name": m.name, "expansion": m.expansion, "at": list(m.at),
                     "sections": list(m.sections)} for m in layout.modules.values()],
        "sections": [{"id": s.id, "module": s.module, "kind": s.kind, "label": s.label,
                      "controls": list(s.controls)} for s in layout.sections.values()],
        "controls": controls,
    })


async def get_state(request: web.Request) -> web.Response:
    return web.json_response(request.app[COCKPIT].public_state())


async def get_tower(request: web.Request) -> web.Response:
    cockpit = request.app[COCKPIT]
    if not cockpit.code_ok(request.query.get("code")):
        return error(403, "wrong or missing join code: scan the code on the join page")
    return web.json_response(cockpit.tower_view())


async def get_completed(request: web.Request) -> web.Response:
    """The cards completed in the turn in progress, or between turns in the last turn, drawn:
    the rulebook lays them face up for the other teams to check. Never the card in play."""
    cockpit = request.app[COCKPIT]
    return web.json_response(await cockpit.call(cockpit.completed_view))


async def get_sounds(request: web.Request) -> web.Response:
    """The buzzer's cues for the board to play in the room as well (Web Audio): its tunes
    (frequency in Hz, or null for a rest, and seconds), which cuts which, and for each game
    which event plays which tune and how many last seconds of a running clock tick. Declared
    once, in panel/hardware (the buzzer and each game's lights and sounds)."""
    from ..hardware import kaboom_patterns, patterns
    from ..hardware.buzzer import PRIORITY, TUNES

    games = {game: {"events": {event: tune for event, (tune, _who) in show.SOUNDS.items()},
                    "last_seconds": show.LAST_SECONDS}
             for game, show in (("airlines", patterns), ("kaboom", kaboom_patterns))}
    return web.json_response({"tunes": {k: [list(step) for step in v] for k, v in TUNES.items()},
                              "priority": PRIORITY, "games": games, "tick": "tick"})


async def get_join(request: web.Request) -> web.Response:
    """The tower's join code, address and QR code (the match's, or while none runs the next
    one's): for a game master's session or a room screen only (see security.py). The code
    opens the tower's card, so nobody gets it just by asking the network."""
    security = request.app[SECURITY]
    own_screen = request.app[OWN_SCREEN] and request.remote in OWN_SCREEN_ADDRESSES
    if (not own_screen and security.session(request.cookies.get(COOKIE)) is None
            and not security.screen_ok(request.cookies.get(SCREEN))):
        return error(403, "the join code shows only on the room's screen and the game master's page: "
                          "pair this screen with the game master's PIN")
    code = request.app[COCKPIT].join_code()
    url = join_url(request, code)
    # loopback: the QR code leads to this machine only (the page says so); sim_from_network:
    # with the simulator, whether other devices may press its buttons (None without it).
    return web.json_response({"code": code, "url": url, "qr_svg": qr_svg(url),
                              "loopback": is_loopback(split_host(url.split("/")[2])),
                              "sim_from_network": request.app[SIM_FROM_NETWORK] if request.app[SIM] else None})


def catalog_response(request: web.Request, lang: str) -> web.Response:
    """The compiled catalog the pages translate with (GET /api/i18n): ?lang=, else `lang`.
    The venue's pages get theirs the same way (panel/venue/app.py)."""
    lang = request.query.get("lang") or lang
    if lang not in languages():
        return error(400, f"lang: {lang[:20]!r} is not one of this cockpit's languages ({', '.join(languages())})")
    resp = web.json_response(catalog(lang))
    resp.headers["Cache-Control"] = "no-cache"
    return resp


async def get_i18n(request: web.Request) -> web.Response:
    """The catalog in the cockpit's language (chosen on /admin), or ?lang=."""
    return catalog_response(request, request.app[COCKPIT].language)


async def sim_input(request: web.Request) -> web.Response:
    check_same_origin(request)
    if not request.app[SIM_FROM_NETWORK] and not is_loopback(request.remote):
        # Anyone on the network could otherwise play the panel without the PIN.
        return error(403, "the simulated panel takes presses only on the computer running the cockpit, opened at "
                          "127.0.0.1 (sim_from_network = true in the settings file's [service] table lets other "
                          "devices in)")
    body = await json_body(request)
    cockpit = request.app[COCKPIT]
    control, value = body.get("control"), body.get("value")
    extra = sorted(k for k in body if k not in ("control", "value"))
    if extra:
        return error(400, f"{extra[0]}: unknown field (expected control, value)")
    if not isinstance(control, str):
        return error(400, "control: must be a control id such as \"grid.r1c1\"")
    layout = cockpit.any_layout()
    if control not in layout:
        return error(400, f"control: {control!r} is not a control of the {layout.side} side panel")
    if control in layout.tokens:
        positions = layout.tokens[control].positions
        if not isinstance(value, str) or value not in positions:
            return error(400, f"value: {control} has positions {', '.join(positions)}, not {value!r}")
    elif not isinstance(value, bool):
        return error(400, f"value: {control} is a button: true (pressed) or false (released), not {value!r}")
    try:
        logged = await cockpit.input(control, value)
    except Refused as e:
        return refused(e)
    return web.json_response({"ok": True, "logged": logged})


# ---------------------------------------------------------------------------- admin API

async def admin_login(request: web.Request) -> web.Response:
    check_same_origin(request)
    body = await json_body(request)
    if "pin" not in body:
        return error(400, "pin: missing")
    client = request.remote or "?"
    try:
        session = await request.app[SECURITY].login(body["pin"], client)
    except LoginRefused as e:
        return error(e.status, str(e))
    resp = web.json_response({"csrf": session.csrf})
    resp.set_cookie(COOKIE, session.token, httponly=True, samesite="Strict", path="/")
    return resp


async def admin_screen(request: web.Request) -> web.Response:
    """Pair this browser as a room screen: it may show the join code from now on, across
    restarts, until the PIN changes. The game master's session that paired it ends: a
    screen in the room is not a game master's page."""
    require_admin(request)
    security = request.app[SECURITY]
    token = security.pair_screen()
    security.end_session(request.cookies.get(COOKIE))
    resp = web.json_response({"ok": True})
    resp.set_cookie(SCREEN, token, httponly=True, samesite="Strict", path="/", max_age=SCREEN_COOKIE_SECONDS)
    resp.del_cookie(COOKIE, path="/")
    return resp


async def admin_match(request: web.Request) -> web.Response:
    require_admin(request)
    body = await json_body(request)
    try:
        return web.json_response(await request.app[COCKPIT].create_match(body))
    except Refused as e:
        return refused(e)


async def admin_action(request: web.Request) -> web.Response:
    require_admin(request)
    body = await json_body(request)
    name = body.pop("action", None)
    if not isinstance(name, str):
        actions = KABOOM_ACTIONS if isinstance(request.app[COCKPIT].match, KaboomMatch) else ACTIONS
        return error(400, f"action: missing (one of: {', '.join(a for a in actions if a != 'new_match')})")
    try:
        events = await request.app[COCKPIT].action(name, body)
    except Refused as e:
        return refused(e)
    return web.json_response({"ok": True, "events": events})


async def admin_settings(request: web.Request) -> web.Response:
    require_admin(request)
    body = await json_body(request)
    if not body:  # a page that sent nothing has a bug to be told about, not a silent 200
        return error(400, f"nothing to change: send pin, language or one of: {', '.join(names('defaults'))}")
    cockpit = request.app[COCKPIT]
    security = request.app[SECURITY]
    if "language" in body and body["language"] not in languages():  # checked before anything changes
        return error(400, f"language: {str(body['language'])[:20]!r} is not one of this cockpit's languages "
                          f"({', '.join(languages())})")
    defaults = {k: v for k, v in body.items() if k not in ("pin", "language")}
    try:  # the defaults as a whole, with the same checks and messages as the settings file's
        MatchSettings.check_defaults({**cockpit.defaults, **defaults}, "defaults", key="", also=("pin", "language"))
    except ConfigError as e:
        return error(400, "; ".join(str(p) for p in e.problems))
    if "pin" in body:
        try:
            await security.change_pin(body["pin"])
        except PinError as e:
            return error(400, f"pin: {e}")
    if defaults:  # saved first: nothing changes that the store did not take
        merged = {**cockpit.defaults, **defaults}
        cockpit.store.set_setting("match_defaults", json.dumps(merged, sort_keys=True))
        cockpit.defaults.update(defaults)
    if "language" in body:
        await cockpit.call(lambda: cockpit.set_language(body["language"]))
    resp = web.json_response({"ok": True, "defaults": cockpit.defaults, "language": cockpit.language})
    if "pin" in body:  # a new PIN logs everybody out, this browser too: log in again
        resp.del_cookie(COOKIE, path="/")
    return resp


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
                              "defaults": cockpit.defaults, "settings": [st.as_dict() for st in SETTINGS],
                              "kaboom": kaboom_declaration(cockpit.layout_path, cockpit.kaboom_defaults),
                              "language": cockpit.language, "warnings": cockpit.problems(),
                              "languages": [{"code": lang, "name": language_name(lang)} for lang in languages()]})


async def admin_matches(request: web.Request) -> web.Response:
    """The stored matches, newest first, for the debrief page's picker."""
    require_admin(request, changes_state=False)
    records = request.app[COCKPIT].store.matches()
    return web.json_response({"matches": [
        {"id": r.id, "created": r.created, "status": r.status, "mode": r.settings.get("mode"),
         "teams": [t.get("name") for t in r.settings.get("teams", []) if isinstance(t, dict)]
         or [p.get("name") or p.get("colour") for p in r.settings.get("players", []) if isinstance(p, dict)]}
        for r in reversed(records)]})


def debrief_record(request: web.Request) -> MatchRecord:
    """The match named by ?match=ID, or the latest one; 400/404 with a line otherwise."""
    store = request.app[COCKPIT].store
    raw = request.query.get("match", "").strip()
    if not raw:
        record = store.latest_match()
        if record is None:
            raise web.HTTPNotFound(text="no match stored yet: play one first (set it up on /admin)")
        return record
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 12:
        raise web.HTTPBadRequest(text=f"match: {raw[:40]!r} is not a match id (a whole number, see /api/admin/matches)")
    record = store.match(int(raw))
    if record is None:
        raise web.HTTPNotFound(text=f"match: no match {int(raw)} is stored (see /api/admin/matches)")
    return record


async def match_debrief(request: web.Request) -> dict[str, Any]:
    """The debrief of the requested match, rebuilt from its log (cached while the log is unchanged)."""
    record = debrief_record(request)
    if record.problem:
        raise web.HTTPUnprocessableEntity(text=f"match {record.id} cannot be read from the store ({record.problem})")
    try:
        entries = request.app[COCKPIT].store.entries(record.id)
    except StoreError as e:
        raise web.HTTPUnprocessableEntity(text=f"match {record.id} cannot be read from the store ({e})") from None
    key = (record.id, record.status, len(entries), entries[-1].seq if entries else 0)
    cache = request.app[DEBRIEFS]
    if key in cache:
        cache.move_to_end(key)
        return cache[key]

    def rebuild() -> dict[str, Any]:
        # Off the event loop: replaying a long match must not hold up the presses of the
        # one being played. The engine is pure and this Match is private to the thread.
        match, events = replay_events(record, entries)
        if isinstance(match, KaboomMatch):
            return {"game": "kaboom", "match_id": record.id, "created": record.created, "status": record.status,
                    "settings": record.settings, "finished": match.finished, "outcome": match.outcome,
                    "reason": match.reason, "failed_colour": match.failed_colour,
                    "time_left": {c: match.time_left(c) for c in match.colours},
                    "tables": kaboom_debrief.debrief([e.as_dict() for e in events])}
        return {"game": "airlines", "match_id": record.id, "created": record.created, "status": record.status,
                "settings": record.settings, "scores": dict(match.scores), "round": match.round,
                "finished": match.finished, "winner": match.winner, "tier": match.tier,
                "outcome": match.outcome, "ended_by": match.ended_by, "unscored": match.unscored,
                "turns_played": match.turns_played(), "cards_per_turn": CARDS_PER_TURN, "mistakes_per_turn": MISTAKES_PER_TURN,
                "tables": debrief(contract_events(events))}

    try:
        result = await asyncio.get_running_loop().run_in_executor(None, rebuild)
    except (ConfigError, ValueError, KeyError, TypeError) as e:
        message = "; ".join(str(p) for p in e.problems) if isinstance(e, ConfigError) else f"{type(e).__name__}: {e}"
        raise web.HTTPUnprocessableEntity(text=f"match {record.id} cannot be rebuilt from its log ({message})") from None
    cache[key] = result
    while len(cache) > DEBRIEF_CACHE:
        cache.popitem(last=False)
    return result


async def admin_debrief(request: web.Request) -> web.Response:
    require_admin(request, changes_state=False)
    return web.json_response(await match_debrief(request))


async def admin_debrief_csv(request: web.Request) -> web.Response:
    require_admin(request, changes_state=False)
    table = request.query.get("table", "")
    result = await match_debrief(request)
    columns = kaboom_debrief.COLUMNS if result["game"] == "kaboom" else COLUMNS
    if table not in columns:
        return error(400, f"table: {table[:40]!r} is not a table of this match ({' or '.join(columns)})")
    text = csv_text(result["tables"][table], columns[table])
    return web.Response(text=text, content_type="text/csv", charset="utf-8", headers={
        "Content-Disposition": f'attachment; filename="match-{result["match_id"]}-{table}.csv"',
        "Cache-Control": "no-store"})


# ---------------------------------------------------------------------------- live sockets

class Peer:
    """One page's socket: a bounded queue and a writer task, so a slow phone never holds
    up the cockpit (its messages are dropped and it is disconnected instead)."""

    QUEUE = 512

    def __init__(self, ws: web.WebSocketResponse, view: str, code: str | None = None):
        self.ws = ws
        self.view = view
        self.code = code  # a tower's join code: a new match with another one closes it
        self.queue: asyncio.Queue = asyncio.Queue(self.QUEUE)
        self.closing: int | None = None

    def send(self, message: dict[str, Any]) -> None:
        if self.closing is not None:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.close(WSCloseCode.TRY_AGAIN_LATER)

    def revoke(self) -> None:
        """The join code changed: this tower must scan the new one."""
        self.close(TOWER_CLOSE)

    def close(self, code: int) -> None:
        if self.closing is None:
            self.closing = code
            while True:  # wake the writer, dropping what it has not sent yet if need be
                try:
                    self.queue.put_nowait(None)
                    return
                except asyncio.QueueFull:
                    self.queue.get_nowait()

    async def writer(self) -> None:
        while True:
            message = await self.queue.get()
            if message is None:
                await self.ws.close(code=self.closing or WSCloseCode.OK)
                return
            await self.ws.send_str(json.dumps(message))


async def websocket(request: web.Request) -> web.StreamResponse:
    view = request.query.get("view", "board")
    if view not in VIEWS:
        return error(400, f"view: {view!r} is not a view (board, sim or tower)")
    if view == "sim" and not request.app[SIM]:
        return error(404, "the simulator runs only with penguin-panel play --sim")
    cockpit = request.app[COCKPIT]
    ws = web.WebSocketResponse(heartbeat=20, max_msg_size=4096)
    await ws.prepare(request)
    if view == "tower" and not cockpit.code_ok(request.query.get("code")):
        await ws.close(code=TOWER_CLOSE, message=b"wrong or missing join code")
        return ws
    peer = Peer(ws, view, request.query.get("code", "").strip().upper() if view == "tower" else None)
    await follow(ws, peer, cockpit)
    return ws


async def follow(ws: web.WebSocketResponse, peer: Peer, hub: Any) -> None:
    """Give a page's socket to what it follows (the cockpit, the venue: anything with
    subscribe/unsubscribe) and send it what comes until the page goes away."""
    hub.subscribe(peer)
    writer = asyncio.create_task(peer.writer())
    try:
        async for _ in ws:  # pages only listen; anything they send is ignored
            if writer.done():
                break
    finally:
        hub.unsubscribe(peer)
        if not writer.done():
            peer.close(WSCloseCode.GOING_AWAY)
            try:
                await asyncio.wait_for(writer, 1.0)
            except (asyncio.TimeoutError, ConnectionError):
                writer.cancel()


async def close_sockets(app: web.Application) -> None:
    """On stop, tell every page "going away" at once: an open socket otherwise holds the
    shutdown until aiohttp's own timeout, and systemd's restart waits for it."""
    for peer in list(app[COCKPIT].subscribers):
        peer.close(WSCloseCode.GOING_AWAY)


# ---------------------------------------------------------------------------- the app

def build_app(cockpit: Cockpit, security: Security, *, sim: bool = False, static_dir: Path | None = None,
              lan_host: str = "", sim_from_network: bool = False, quiet: Quiet | None = None,
              own_screen: bool = False) -> web.Application:
    app = web.Application(middlewares=[errors_as_json, host_allow_list], client_max_size=MAX_BODY)
    app[COCKPIT] = cockpit
    app[SECURITY] = security
    app[SIM] = sim
    app[SIM_FROM_NETWORK] = sim_from_network
    app[STATIC] = static_dir or default_static_dir()
    app[LAN_HOST] = lan_host
    app[DEBRIEFS] = OrderedDict()
    app[QUIET] = quiet or Quiet()
    app[OWN_SCREEN] = own_screen
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
    r.add_get("/api/admin/debrief.csv", admin_debrief_csv)
    r.add_get("/ws", websocket)
    app.on_shutdown.append(close_sockets)
    if app[STATIC].is_dir():
        r.add_static("/static/", app[STATIC], follow_symlinks=False)
    return app
