"""The threads where socket handlers, and the presence heartbeat of a socket process, do their
database work: a plain executor with a persistent connection per thread, below the socket
helpers (`live.sockets`) and presence (`live.presence`), which both use it."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, close_old_connections, connections

# With persistent connections, each pool thread checks its connection at most this often.
CONNECTION_CHECK_SECONDS = 5.0
_checked = threading.local()


def _close_old_connections() -> None:
    """channels' per-call `close_old_connections`, spaced out when connections persist.

    With CONN_MAX_AGE > 0, checking on every message costs a database round trip per move
    (CONN_HEALTH_CHECKS runs `SELECT 1` after each check), so a thread checks every few seconds,
    or at once after a database error. So it does with a pool (DATABASE_URL's `pool`): a check
    hands the connection back and the next call takes one, checked, from the pool; a socket
    thread keeps one between checks. With neither it checks every time, as channels does
    (each call then opens its own connection)."""
    now = time.monotonic()
    connection = connections[DEFAULT_DB_ALIAS]
    if (
        (connection.settings_dict.get("CONN_MAX_AGE") == 0 and not pooled(connection))
        or connection.errors_occurred
        or now - getattr(_checked, "at", -CONNECTION_CHECK_SECONDS) >= CONNECTION_CHECK_SECONDS
    ):
        close_old_connections()
        _checked.at = now


def pooled(connection) -> bool:
    """Whether this database's connections come from Django's pool (`OPTIONS["pool"]`)."""
    return bool(connection.settings_dict.get("OPTIONS", {}).get("pool"))


# The threads socket handlers run their database work in. Each keeps its own persistent database
# connection. A plain executor, not asgiref's SyncToAsync: that one copies the context and
# checks thread-sensitivity on every call, a measurable part of a move's CPU (bench/live.py).
SOCKET_DB_THREADS = settings.SOCKET_DB_THREADS
_pool = ThreadPoolExecutor(max_workers=SOCKET_DB_THREADS, thread_name_prefix="socket-db")
# The players' own actions in their games (a move, a draw offer, a resignation) have threads of
# their own: when a round opens, hundreds of sockets connect at once, each reading its game and
# recording its presence, and a move queued behind all of that waited hundreds of milliseconds
# (bench/evening.py). SOCKET_PLAY_THREADS of them, each with its own connection.
_play_pool = ThreadPoolExecutor(
    max_workers=settings.SOCKET_PLAY_THREADS, thread_name_prefix="socket-play"
)


LANES = ("db", "play")


def _executor(lane: str) -> ThreadPoolExecutor:
    return _play_pool if lane == "play" else _pool


def _in_pool(func: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    _close_old_connections()
    try:
        return func(*args, **kwargs)
    finally:
        _close_old_connections()


def database_sync_to_async(func: Callable[..., Any], lane: str = "db") -> Callable[..., Any]:
    """Database work off the event loop, in a pool of threads (`lane`: "db", or "play" for a
    player's action in a game): the services lock the rows they change, so games need not
    queue behind one another in a single thread (channels' default)."""
    if lane not in LANES:
        raise ValueError(f"no such lane: {lane}")

    async def run(*args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_executor(lane), _in_pool, func, args, kwargs)

    return run
