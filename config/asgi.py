"""ASGI entry point, served by daphne: HTTP through Django, websockets through Channels."""

from __future__ import annotations

import asyncio
import gc
import math
import os
import sys
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from config.routing import websocket_urlpatterns  # noqa: E402
from live.auth import SocketAuthMiddleware  # noqa: E402
from live.sockets import SameOriginValidator  # noqa: E402


class Pace:
    """A token bucket of BURST tokens filled at RATE a second, kept as the time the bucket is
    full again (the generic cell rate algorithm): `wait(now)` says how long a request must wait
    for its token, and takes it, or says None without taking one when that wait would pass
    `most` seconds. Requests are served in their order of arrival."""

    def __init__(self, burst: float, rate: float, most: float) -> None:
        self.interval = 1.0 / rate
        self.tolerance = (burst - 1) * self.interval
        self.most = most
        self.full_at = -math.inf  # the moment the last token taken has been made again

    def wait(self, now: float) -> float | None:
        due = max(self.full_at, now)
        delay = max(0.0, due - self.tolerance - now)
        if delay > self.most:
            return None
        self.full_at = due + self.interval
        return delay


TOO_MANY = (
    b'<!DOCTYPE html><html lang="it"><meta charset="utf-8"><title>429</title>'
    b"<p>Troppe richieste di account in questo momento: riprova tra un minuto.</p>"
    b'<p lang="en">Too many account requests right now: try again in a minute.</p></html>'
)


class PageGate:
    """At most `limit` pages of this process in progress at once; the others wait their turn on
    the event loop, where waiting costs nothing.

    Django runs each page's view in a thread of its own, and every such thread competes with
    the event loop for the GIL: when a "changed" push sent a hundred players to re-fetch an
    event page at once, a hundred threads took turns with the loop, and every move on that
    process waited behind them (bench/evening.py, moves p99 in seconds). Pages take the same
    CPU either way; queued, they leave the loop its share, and a page waits its turn instead of
    a move. HTTP_CONCURRENCY sets the limit (0: none).

    Static files (`free`, STATIC_URL) pass: whitenoise answers them from memory, and a page
    whose dozen scripts and style sheets queued two at a time came alive late (a button pressed
    before its script was in did nothing)."""

    def __init__(
        self,
        app,
        limit: int,
        free: str = "",
        lane: tuple[str, ...] = (),
        lane_limit: int = 1,
        lane_pace: Pace | None = None,
    ) -> None:
        self.app, self.limit, self.free = app, limit, free
        self.lane, self.lane_limit, self.lane_pace = lane, lane_limit, lane_pace
        self.gate: asyncio.Semaphore | None = None  # made in the loop that serves
        self.lane_gate: asyncio.Semaphore | None = None

    async def __call__(self, scope, receive, send):
        path = scope.get("path", "")
        if self.limit <= 0 or (self.free and path.startswith(self.free)):
            return await self.app(scope, receive, send)
        # The account forms' POSTs (a password hashed, a mail counted: the forms a flood of
        # sign-ups, resets or deletions hits) take turns in a lane of their own, so however many
        # come at once they never hold the pages' turns (make attack, the mail and deletion
        # scenarios: another visitor's page waited behind them).
        if self.lane and scope.get("method") == "POST" and path.startswith(self.lane):
            # And at a pace (ACCOUNT_FORM_RATE): one at a time still let a flood from many
            # addresses keep a core of each daphne busy, and every other visitor's page waited
            # for a core. Past the pace the posts wait on the loop, where waiting is free; one
            # that would wait over ACCOUNT_FORM_WAIT is told to try again (429), changing nothing.
            if self.lane_pace is not None:
                delay = self.lane_pace.wait(time.monotonic())
                if delay is None:
                    return await self._too_many(send)
                if delay > 0:
                    await asyncio.sleep(delay)
            if self.lane_gate is None:
                self.lane_gate = asyncio.Semaphore(self.lane_limit)
            async with self.lane_gate:
                return await self.app(scope, receive, send)
        if self.gate is None:
            self.gate = asyncio.Semaphore(self.limit)
        async with self.gate:
            return await self.app(scope, receive, send)

    async def _too_many(self, send) -> None:
        headers = [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"retry-after", b"60"),
            (b"cache-control", b"no-store"),
        ]
        await send({"type": "http.response.start", "status": 429, "headers": headers})
        await send({"type": "http.response.body", "body": TOO_MANY})


application = ProtocolTypeRouter(
    {
        "http": PageGate(
            django_asgi_app,
            settings.HTTP_CONCURRENCY,
            free=settings.STATIC_URL,
            lane=settings.ACCOUNT_FORM_PATHS,
            lane_pace=Pace(*settings.ACCOUNT_FORM_RATE, most=settings.ACCOUNT_FORM_WAIT),
        ),
        # The full origin (scheme, host and port), not only the host: another port or scheme on
        # the same host is another site (live/sockets.py, SameOriginValidator).
        # The socket's user from its session cookie, once at the handshake (live/auth.py).
        "websocket": SameOriginValidator(SocketAuthMiddleware(URLRouter(websocket_urlpatterns))),
    }
)


# Everything loaded so far (Django, the apps, the URL and template machinery) lives as long as
# the process: moved out of the collector's sight, a full collection no longer walks it. On a
# busy server those walks were pauses of 100-160 ms (bench/live.py) on every socket at once.
gc.freeze()
# And what is made after the start is collected in fewer, larger young passes: with Python's
# thresholds (700, 10, 10) a busy evening's pages pushed so many objects into the old
# generation that each daphne ran a full collection every 7 s, each a pause of up to 300 ms on
# every socket (bench/evening.py, a collector callback's timings); with a young generation of
# 20,000 objects it ran two in two minutes.
gc.set_threshold(20_000, 10, 10)


# The socket threads (live.sockets) give up the GIL at every database round trip and must win it
# back from the event loop, which keeps it up to the switch interval (5 ms by default) while it
# frames and forwards messages: with four round trips per move, a busy process made each move wait
# for the GIL several times over (bench/live.py, 1,250 games). A shorter interval hands it back
# sooner; ASGI_SWITCH_INTERVAL_MS sets it (0 keeps Python's default).
_switch_ms = settings.ASGI_SWITCH_INTERVAL_MS
if _switch_ms > 0:
    sys.setswitchinterval(_switch_ms / 1000)
