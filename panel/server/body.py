"""A request's JSON body, bounded: in size (the app's client_max_size), in time to arrive,
in how deep it nests and how long its numbers are, so that no body reaches Python's digit
or recursion limits. Whatever is wrong with it is a Refused with one line why."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from aiohttp import web

from panel.core.errors import Refused
from panel.core.i18n import N_, Text
from panel.server.guard import guarded_connection

MAX_BODY = 64 * 1024
MAX_DEPTH = 16  # levels of JSON nesting in a body (a match's teams and players need 4)
MAX_NUMBER_CHARS = 40  # characters of one number in a body: seeds, seconds and indexes need far fewer
BODY_SECONDS = 10.0  # to receive a whole body once its headers are in
BODY_LIMIT = web.AppKey("body_limit", int)  # the app's client_max_size, to say it (the venue's is smaller)


async def json_body(request: web.Request) -> dict[str, Any]:
    ctype = request.content_type
    if ctype != "application/json":
        # A cross-site HTML form cannot send application/json: one more guard against forgery.
        raise web.HTTPUnsupportedMediaType(text=N_("send the body as JSON with Content-Type: application/json"))
    try:
        async with asyncio.timeout(BODY_SECONDS):  # a body sent a byte at a time holds nothing for long
            raw = await request.read()
    except web.HTTPRequestEntityTooLarge:
        conn = guarded_connection(request)
        if conn is not None:  # nothing more of it is read: a 1 GB body stops here, not once all read
            conn.read_no_more()
        raise Refused(413, N_("the body is larger than {size} bytes"), size=request.app.get(BODY_LIMIT, MAX_BODY)) \
            from None
    except RuntimeError as e:  # aiohttp's "Connection closed.": the client went before its body was read
        raise ConnectionResetError(str(e)) from None
    except TimeoutError:
        raise Refused(408, N_("the body did not arrive within {seconds} s"), seconds=f"{BODY_SECONDS:g}") from None
    try:
        return parse_body(raw)
    except BodyError as e:
        raise Refused(400, e.args[0]) from None


class BodyError(ValueError):
    """A request body that is not a JSON object the service will read: one line why (a Text)."""

    def __init__(self, message: str, **values: Any):
        super().__init__(Text(message, **values))


def _number(text: str, kind: type) -> int | float:
    if len(text) > MAX_NUMBER_CHARS:
        raise BodyError(N_("the body has a number of {n} characters (at most {most})"), n=len(text),
                        most=MAX_NUMBER_CHARS)
    value = kind(text)
    if value in (float("inf"), float("-inf")):
        raise BodyError(N_("the body has a number out of range ({text})"), text=text)
    return value


def _constant(name: str):
    raise BodyError(N_("the body has {name}, which is not a JSON number"), name=name)


def parse_body(raw: bytes) -> dict[str, Any]:
    """A request body as a JSON object, or BodyError. Bounded in what it builds: numbers of at
    most MAX_NUMBER_CHARS characters, nesting at most MAX_DEPTH deep (no field of the API
    goes deeper than 4), so no body reaches Python's digit or recursion limits."""
    try:
        body = json.loads(raw.decode("utf-8"), parse_int=lambda t: _number(t, int),
                          parse_float=lambda t: _number(t, float), parse_constant=_constant)
    except RecursionError:
        raise BodyError(N_("the body is nested deeper than {most} levels"), most=MAX_DEPTH) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BodyError(N_("the body is not valid JSON ({error})"), error=e) from None
    if not isinstance(body, dict):
        raise BodyError(N_("the body must be a JSON object"))
    level = [body]
    for _ in range(MAX_DEPTH):  # after the n-th round, `level` holds the containers n+1 deep
        level = [v for item in level for v in (item.values() if isinstance(item, dict) else item)
                 if isinstance(v, (dict, list))]
        if not level:
            return body
    raise BodyError(N_("the body is nested deeper than {most} levels"), most=MAX_DEPTH)
