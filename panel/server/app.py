"""What every web app of the project starts from (the cockpit's, panel/web/app.py, and the
venue's, panel/venue/app.py): the middleware, the bounded body, the admin's security, the
pages' folder and the repeated failures' one line a minute, so a fix to one is a fix to both."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from aiohttp import web

from panel.server.body import BODY_LIMIT, MAX_BODY
from panel.server.guard import Quiet, serving
from panel.server.middleware import QUIET, errors_as_json, host_allow_list
from panel.server.pages import STATIC, default_static_dir
from panel.server.replies import LANGUAGE
from panel.server.security import Security
from panel.server.sessions import SECURITY


def web_app(security: Security, *, static_dir: Path | None = None, quiet: Quiet | None = None,
            max_body: int = MAX_BODY, language: Callable[[], str] | None = None) -> web.Application:
    """An app with the project's middleware; `language`: the language its lines are said in
    (English without it)."""
    # `serving` first: it tells the connection guard what each connection does, whatever the answer.
    app = web.Application(middlewares=[serving, errors_as_json, host_allow_list], client_max_size=max_body)
    app[SECURITY] = security
    app[BODY_LIMIT] = max_body
    app[STATIC] = static_dir or default_static_dir()
    app[QUIET] = quiet or Quiet()  # the repeated failures' one line a minute, shared with the guard
    if language is not None:
        app[LANGUAGE] = language
    return app
