"""The middleware every app of the project runs: any error is one line of JSON in the
app's language (never a traceback), and a request for a host name that is not this
machine's is refused (DNS rebinding)."""

from __future__ import annotations

import asyncio
import logging

from aiohttp import web

from panel.core.errors import UNSAVED, Refused, StoreUnavailable, StoreWriteError
from panel.core.i18n import N_, Word
from panel.server.guard import CLIENT_LOG, Quiet, out_of_fds
from panel.server.replies import error, refused
from panel.server.security import split_host
from panel.server.sessions import SECURITY

log = logging.getLogger(CLIENT_LOG)  # a line per request: held to a few a minute (guard.LogBudget)

QUIET = web.AppKey("quiet", Quiet)


@web.middleware
async def errors_as_json(request: web.Request, handler):
    try:
        return await handler(request)
    except web.HTTPException as e:
        if e.content_type == "application/json" or e.status < 400:
            raise
        reason = e.text if e.text and not e.text.startswith(f"{e.status}:") else e.reason
        return error(e.status, reason or "error", request)  # a text marked N_() where raised is translated
    except StoreUnavailable as e:  # done, and its entry waits in memory: it cannot be promised kept
        return error(503, N_("the cockpit cannot save right now ({reason}): this was done but is not saved yet; "
                             "the cockpit keeps trying"), request, reason=Word(str(e)))
    except asyncio.CancelledError:
        raise
    except Refused as e:
        return refused(e, request)
    except StoreWriteError as e:  # a setting or a PIN the full or failing disk did not take
        return error(503, UNSAVED, request, reason=Word(str(e)))
    except ConnectionError as e:  # the client went away mid-request (a body cut short): nobody to answer
        request.app[QUIET].warn("gone", f"a client ({request.remote}) went away during {request.method} "
                                        f"{request.path[:80]} ({e})")
        return error(400, N_("the connection was lost before the request was whole"), request)
    except Exception as e:  # the last resort: a line for the page, the details for the log
        if out_of_fds(e):  # a flood of connections: said once a minute, not a traceback each
            request.app[QUIET].warn("fds", f"too many open files while serving {request.path}")
            return error(503, N_("the cockpit is out of file descriptors (too many connections): try again"), request)
        log.exception("error while serving %s %s", request.method, request.path)
        return error(500, N_("internal error ({error}); see the service log"), request, error=type(e).__name__)


@web.middleware
async def host_allow_list(request: web.Request, handler):
    """Refuse requests for a host name that is not this machine (DNS rebinding)."""
    host = request.headers.get("Host")
    if not host:
        return error(400, N_("the request has no Host header"), request)
    if not request.app[SECURITY].host_allowed(host):
        return error(421, N_("host {host} is not one of this machine's names "
                             "(start with --allow-host NAME to add it)"),
                     request, host=repr(split_host(host)))
    return await handler(request)
