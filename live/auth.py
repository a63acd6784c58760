"""Who a websocket belongs to: the signed-in user of its session cookie, read once at the
handshake and put in the scope (`scope["user"]`, `scope["session"]`), the way Django's
log-in left it.

This takes the place of channels' `AuthMiddlewareStack` for the site's sockets: its session
layer wraps the socket's `send` to save the session when an HTTP response starts, which a
websocket never does, yet every frame sent went through that wrapper and a look at the lazy
session (bench/live.py: a measurable part of a move's CPU). Here the session is read with
Django's own session engine and the user with `django.contrib.auth.get_user`, both public, in
the socket process's database threads; the socket's `send` is the server's own.
"""

from __future__ import annotations

import logging
import time
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.http.cookie import parse_cookie

from live.outages import CLOSE_UNAVAILABLE, is_outage
from live.threads import answer_due, answering, database_sync_to_async

log = logging.getLogger(__name__)


def _cookies(scope: dict[str, Any]) -> dict[str, str]:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            return parse_cookie(value.decode("latin-1"))
    return {}


def _user_of(session) -> Any:
    # Django's `get_user` asks only for the request's session.
    return get_user(SimpleNamespace(session=session))


class SocketAuthMiddleware:
    """ASGI middleware for websockets: `scope["session"]` and `scope["user"]` (an
    AnonymousUser for a guest or a session that is gone or no longer valid)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.store = import_module(settings.SESSION_ENGINE).SessionStore

    async def __call__(self, scope, receive, send):
        session = self.store(_cookies(scope).get(settings.SESSION_COOKIE_NAME))
        try:
            # The handshake is answered in time too (SOCKET_ANSWER_SECONDS, live.threads).
            with answering(answer_due(time.monotonic())):
                user = await database_sync_to_async(_user_of, "connect")(session)
        except Exception as error:
            if not is_outage(error):
                raise
            # PostgreSQL away: who it is cannot be known, so it is not taken for a guest. Closed
            # "try again later", as a consumer's own handshake that cannot be completed
            # (live.sockets), which the page's socket client retries.
            log.warning("a socket's handshake not handled, a service is away: %s", error)
            return await _try_again_later(receive, send)
        return await self.inner({**scope, "session": session, "user": user}, receive, send)


async def _try_again_later(receive, send) -> None:
    """Accept the handshake, then close with CLOSE_UNAVAILABLE (a bare refusal would be an
    HTTP 403, which a browser cannot tell from any other)."""
    if (await receive())["type"] == "websocket.connect":
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.close", "code": CLOSE_UNAVAILABLE})
