"""The admin's session over HTTP: the PIN's login, the session cookie, the CSRF token and
the same-origin check, for the cockpit's admin and the venue's alike (the rules themselves,
PIN hashing, lockouts, tokens, are panel/server/security.py's)."""

from __future__ import annotations

import json

from aiohttp import web

from panel.core.errors import StoreError
from panel.core.i18n import N_, render
from panel.server.body import json_body
from panel.server.replies import error, said
from panel.server.security import LoginRefused, Security

COOKIE = "pp_session"
DEVICE = "pp_device"  # a browser a game master signed in with: its way in when the network's logins close
PAIRED_COOKIE_SECONDS = 400 * 24 * 3600  # a paired browser's cookie: the longest a browser keeps one
SECURITY = web.AppKey("security", Security)


def check_same_origin(request: web.Request) -> None:
    if not Security.same_origin(request.headers.get("Origin"), request.headers.get("Referer"),
                                request.headers.get("Host")):
        raise web.HTTPForbidden(text=N_("cross-site request refused (Origin or Referer is not this host)"))


def signed_out(request: web.Request, message: str) -> web.HTTPForbidden:
    """403 with {"error": one line, "signed_out": true}: the page shows its sign-in form by
    the flag, whatever language the line is in."""
    body = {"error": render(said(request), message, {}), "signed_out": True}
    return web.HTTPForbidden(text=json.dumps(body), content_type="application/json")


def require_admin(request: web.Request, *, changes_state: bool = True):
    security = request.app[SECURITY]
    session = security.session(request.cookies.get(COOKIE))
    if session is None:  # never signed in, expired, or ended by a new PIN
        raise signed_out(request, N_("log in with the game master's PIN first"))
    if changes_state:
        check_same_origin(request)
        if not security.check_csrf(session, request.headers.get("X-CSRF-Token")):  # a sign-in elsewhere replaced it
            raise signed_out(request, N_("missing or wrong X-CSRF-Token header"))
    return session


async def admin_login(request: web.Request) -> web.Response:
    check_same_origin(request)
    body = await json_body(request)
    if "pin" not in body:
        return error(400, N_("pin: missing"), request)
    client = request.remote or "?"
    security = request.app[SECURITY]
    device = request.cookies.get(DEVICE)
    try:
        session = await security.login(body["pin"], client, device=device)
    except LoginRefused as e:
        return error(e.status, e.args[0].text(said(request)))
    resp = web.json_response({"csrf": session.csrf})
    resp.set_cookie(COOKIE, session.token, httponly=True, samesite="Strict", path="/")
    if not security.device_ok(device):  # paired now: it gets in when the network's logins are closed
        try:
            token = security.pair_device()
        except StoreError:  # a full disk: signed in all the same, paired at a later sign-in
            token = None
        if token is not None:
            resp.set_cookie(DEVICE, token, httponly=True, samesite="Strict", path="/", max_age=PAIRED_COOKIE_SECONDS)
    return resp
