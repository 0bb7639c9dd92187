"""Serving the pages: the HTML files (never cached stale, never framed, the join code kept
on this host), the static files beside them, the guide (/help/, the built site shipped with
the package) and the pages' texts (GET /api/i18n)."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from panel.core.errors import Refused
from panel.core.i18n import N_, NOT_A_LANGUAGE, catalog, languages
from panel.server.replies import error

STATIC = web.AppKey("static", Path)
HELP = web.AppKey("help", Path)
# The guide's assets carry their content's hash in their names (Material's
# assets/stylesheets/main.<hash>.min.css...), the pages and the search index do not: pages
# are revalidated each time (a new install's guide shows at once), assets kept a day.
ASSET_CACHE = "public, max-age=86400"


def default_static_dir() -> Path:
    """The pages shipped with the package (the cockpit's and the venue's: panel/web/static)."""
    return Path(__file__).resolve().parent.parent / "web" / "static"


def default_help_dir() -> Path:
    """The guide built into the package (panel/web/help: setup.py's build step runs MkDocs
    there when a wheel or an editable install is built)."""
    return Path(__file__).resolve().parent.parent / "web" / "help"


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


def serve_help(app: web.Application, help_dir: Path | None = None) -> None:
    """The guide at /help/: its pages and assets, a folder's index.html, never a listing."""
    app[HELP] = help_dir or default_help_dir()
    app.router.add_get("/help", help_root)
    app.router.add_get("/help/{path:.*}", help_file)


async def help_root(request: web.Request) -> web.StreamResponse:
    raise web.HTTPPermanentRedirect("/help/")  # the guide's links are relative to /help/


async def help_file(request: web.Request) -> web.StreamResponse:
    root = request.app[HELP]
    if not (root / "index.html").is_file():
        raise Refused(404, N_("the guide is not built into this install (reinstall the package: "
                              "pip install . builds it)"))
    rel = request.match_info["path"]
    try:
        path = (root / rel).resolve()
        if path.is_dir():
            path = path / "index.html"
        # resolve() follows links and "..": whatever lands outside the guide's folder is not in it
        found = path.is_relative_to(root.resolve()) and path.is_file()
    except (OSError, ValueError):  # a name no file can have (a NUL, too long)
        found = False
    if not found:
        raise Refused(404, N_("the guide has no page {path}"), path=rel[:80])
    resp = web.FileResponse(path)
    resp.headers["Cache-Control"] = "no-cache" if path.suffix in (".html", ".json", ".xml") else ASSET_CACHE
    resp.headers["Referrer-Policy"] = "same-origin"
    return resp


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
