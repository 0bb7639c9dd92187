"""The venue's HTTP side: the board page for the TV, the admin page, the JSON API, the live socket.

The admin is the cockpit's: the same PIN, sessions, CSRF tokens, Origin and Host checks,
the same middleware, body reader, page serving and live sockets (the web-server kit,
panel/server), so a fix to one is a fix to both.

    GET  /                       the venue board (every cockpit side by side, the leaderboard)
    GET  /admin                  the venue's admin page (PIN): commands to the cockpits
    GET  /api/venue              {"venue", "broker", "cockpits": [...], "leaderboard": {day, week, all}}
    GET  /api/leaderboard?period=day|week|all
    POST /api/admin/login        {"pin"} -> {"csrf"} and the session cookie
    GET  /api/admin/status       the cockpits and the commands (PIN)
    POST /api/admin/command      {"cockpit", "action": start|pause|resume|end, "when"?: now|round} -> the reply
    GET  /api/i18n               the pages' texts in the venue computer's language (its system locale), or ?lang=
    GET  /ws                     the board's live socket
"""

from __future__ import annotations

import json
from pathlib import Path

from aiohttp import web

from panel.core.i18n import system_language
from panel.mqtt.protocol import COMMANDS
from panel.server.app import web_app
from panel.server.body import json_body
from panel.server.guard import Quiet
from panel.server.pages import catalog_response, serve_page, serve_static
from panel.server.peers import Peer, follow, going_away, open_socket
from panel.server.replies import error
from panel.server.security import Security
from panel.server.sessions import admin_login, require_admin
from panel.venue.store import PERIODS
from panel.venue.venue import CommandFailed, Venue

VENUE = web.AppKey("venue", Venue)
NAME = web.AppKey("venue_name", str)
MAX_BODY = 4096


async def board_page(request: web.Request) -> web.StreamResponse:
    return serve_page(request, "venue")


async def admin_page(request: web.Request) -> web.StreamResponse:
    return serve_page(request, "venue-admin")


async def get_venue(request: web.Request) -> web.Response:
    """What the TVs show. No login: it is the board on the wall, the same a passer-by reads
    there (no PIN, no join code, no card in play: the protocol never carries the card). It
    is served from the venue's snapshot, made once per change, never from the database."""
    text = request.app[VENUE].snapshot_text()
    return web.Response(text='{"venue": ' + json.dumps(request.app[NAME]) + ", " + text[1:],
                        content_type="application/json")


async def get_leaderboard(request: web.Request) -> web.Response:
    period = request.query.get("period", "day")
    if period not in PERIODS:
        return error(400, f"period: {period[:20]!r} is not a period (day, week or all)")
    return web.json_response(request.app[VENUE].leaderboard()[period])


async def get_i18n(request: web.Request) -> web.Response:
    """The venue has no game master's language menu: its pages speak the system locale's
    language (LANG=es_ES.UTF-8 in the venue's unit), as the command-line tools do."""
    return catalog_response(request, system_language())


async def admin_status(request: web.Request) -> web.Response:
    require_admin(request, changes_state=False)
    venue = request.app[VENUE]
    return web.json_response({"venue": request.app[NAME], "broker": venue.connected.is_set(),
                              "cockpits": [venue.cockpit_view(c) for c in sorted(venue.cockpits)],
                              "commands": list(COMMANDS)})


async def admin_command(request: web.Request) -> web.Response:
    require_admin(request)
    body = await json_body(request)
    extra = sorted(k for k in body if k not in ("cockpit", "action", "when"))
    if extra:
        return error(400, f"{extra[0]}: unknown field (expected cockpit, action, when)")
    cockpit, action, when = body.get("cockpit"), body.get("action"), body.get("when")
    if not isinstance(cockpit, str):
        return error(400, "cockpit: missing (the id of a cockpit on the board)")
    if not isinstance(action, str):
        return error(400, f"action: missing ({', '.join(COMMANDS)})")
    if when is not None and not isinstance(when, str):
        return error(400, "when: must be \"now\" or \"round\"")
    try:
        reply = await request.app[VENUE].command(cockpit, action, when=when)
    except CommandFailed as e:
        return error(e.status, str(e))
    if not reply["ok"]:
        return error(409, reply["error"] or "refused")
    return web.json_response({"ok": True})


async def websocket(request: web.Request) -> web.StreamResponse:
    ws = await open_socket(request)
    await follow(ws, Peer(ws, "venue"), request.app[VENUE])  # the board only listens
    return ws


async def close_sockets(app: web.Application) -> None:
    going_away(app[VENUE].peers)


def build_app(venue: Venue, security: Security, *, name: str = "Penguin Airlines",
              static_dir: Path | None = None, quiet: Quiet | None = None) -> web.Application:
    app = web_app(security, static_dir=static_dir, quiet=quiet, max_body=MAX_BODY)
    app[VENUE] = venue
    app[NAME] = name
    r = app.router
    r.add_get("/", board_page)
    r.add_get("/admin", admin_page)
    r.add_get("/api/venue", get_venue)
    r.add_get("/api/leaderboard", get_leaderboard)
    r.add_get("/api/i18n", get_i18n)
    r.add_post("/api/admin/login", admin_login)
    r.add_get("/api/admin/status", admin_status)
    r.add_post("/api/admin/command", admin_command)
    r.add_get("/ws", websocket)
    app.on_shutdown.append(close_sockets)
    serve_static(app)
    return app
