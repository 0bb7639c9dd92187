"""One clear line for whoever asked: {"error": "..."} in the language the pages are spoken to.

An app that speaks a language of its own (the cockpit: the one its game master chose)
gives it as `app[LANGUAGE]`, a function returning the language's code; without one (the
venue) the lines are English, as the texts are written.
"""

from __future__ import annotations

import gettext
from typing import Any, Callable

from aiohttp import web

from panel.core.errors import Refused
from panel.core.i18n import SOURCE, render, translations

LANGUAGE = web.AppKey("language", Callable[[], str])


def said(request: web.Request | None) -> gettext.NullTranslations:
    """The language the pages are spoken to in: the app's (English without one, the venue's)."""
    language = request.app.get(LANGUAGE) if request is not None else None
    return translations(language() if language is not None else SOURCE)


def error(status: int, message: str, request: web.Request | None = None, **values: Any) -> web.Response:
    """{"error": one line}: `message` is marked N_() with its named `values`; given the
    request, it is said in the app's language."""
    return web.json_response({"error": render(said(request) if request is not None else None, message, values)},
                             status=status)


def refused(e: Refused, request: web.Request) -> web.Response:
    return error(e.status, e.text(said(request)))
