"""Serving the pages: the HTML files (never cached stale, never framed, the join code kept
on this host), the static files beside them, and the pages' texts (GET /api/i18n)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from panel.core.errors import Refused
from panel.core.i18n import N_, NOT_A_LANGUAGE, catalog, languages
from panel.server.replies import error

STATIC = web.AppKey("static", Path)


def default_static_dir() -> Path:
    """The pages shipped with the package (the cockpit's and the venue's: panel/web/static)."""
    return Path(__file__).resolve().parent.parent / "web" / "static"


def security_headers(resp: web.StreamResponse) -> web.StreamResponse:
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Frame-Options"] = "DENY"  # nobody frames the admin page to click for us
    resp.headers["Referrer-Policy"] = "same-origin"  # the tower's join code stays on this host
    return resp


def serve_page(request: web.Request, name: str) -> web.StreamResponse:
    path = request.app[STATIC] / f"{name}.html"
    if not path.is_file():
        raise Refused(404, N_("page {name} is not installed ({file} missing)"), name=name, file=path.name)
    return security_headers(web.FileResponse(path))


def serve_static(app: web.Application) -> None:
    """The files the pages load (/static/...), once the app's own routes are in."""
    if app[STATIC].is_dir():
        app.router.add_static("/static/", app[STATIC], follow_symlinks=False)


def catalog_response(request: web.Request, lang: str) -> web.Response:
    """The compiled catalog the pages translate with (GET /api/i18n): ?lang=, else `lang`.
    The venue's pages get theirs the same way (panel/venue/app.py)."""
    lang = request.query.get("lang") or lang
    if lang not in languages():
        return error(400, NOT_A_LANGUAGE, request, param="lang", value=repr(lang[:20]),
                     languages=", ".join(languages()))
    resp = web.json_response(catalog(lang))
    resp.headers["Cache-Control"] = "no-cache"
    return resp
