"""The threads where socket handlers, and the presence heartbeat of a socket process, do their
database work: a plain executor with a persistent connection per thread, below the socket
helpers (`live.sockets`) and presence (`live.presence`), which both use it.

A client's message is answered in a bounded time, the database there or not (`answering`,
SOCKET_ANSWER_SECONDS; docs/protocol.md, "Answered in time"): work still waiting for a thread or a
connection when its time is up is never started, and its caller is answered `unavailable`."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, close_old_connections, connections
from django.db.backends.signals import connection_created

log = logging.getLogger(__name__)

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


# A socket's handshake and the reads and writes of its opening (its user, its game, its presence,
# what it is told as it opens) take turns in a few threads of their own: a round start opens three
# sockets for each of its players at the same instant, and in the other threads they all
# contended for the process's one GIL with the moves' threads and the event loop that frames
# every move (bench/round_start.py). SOCKET_CONNECT_THREADS of them; the lane's queue is bounded
# by each handshake's answer time like any other.
_connect_pool = ThreadPoolExecutor(
    max_workers=settings.SOCKET_CONNECT_THREADS, thread_name_prefix="socket-connect"
)


LANES = ("db", "play", "connect")


def _executor(lane: str) -> ThreadPoolExecutor:
    if lane == "play":
        return _play_pool
    return _connect_pool if lane == "connect" else _pool


class NoAnswerInTime(TimeoutError):
    """The database work of a client's message could not be done in the time the message is
    answered in (`answering`): PostgreSQL away or out of reach, or every connection and thread
    busy that long. An outage (`live.outages`): the client is answered `unavailable`."""


@dataclass
class _Answer:
    by: float  # time.monotonic()
    pending: bool = True


# The client's message being handled, and by when it is answered. A context variable, so every
# consumer's calls share the bound without passing it; a task started while a message is handled
# (the presence heartbeat) inherits it, but not beyond its answer (`pending`).
_answer: contextvars.ContextVar[_Answer | None] = contextvars.ContextVar("answer", default=None)


# Of a message's SOCKET_ANSWER_SECONDS, what is kept for its reply once its database work is
# given up: sending it, the trip to the client, a busy loop.
REPLY_SECONDS = 0.5


def answer_due(came: float) -> float:
    """By when (`time.monotonic()`) the database work of a message that came at `came` is
    done, for it to be answered within SOCKET_ANSWER_SECONDS (config/settings.py)."""
    return came + settings.SOCKET_ANSWER_SECONDS - REPLY_SECONDS


@contextmanager
def answering(by: float) -> Iterator[None]:
    """The database work done within, in these threads, is done by `by` (`time.monotonic()`) or
    not at all: the caller is told NoAnswerInTime then (`database_sync_to_async`)."""
    answer = _Answer(by)
    token = _answer.set(answer)
    try:
        yield
    finally:
        answer.pending = False
        _answer.reset(token)


def _deadline() -> float | None:
    answer = _answer.get()
    return answer.by if answer is not None and answer.pending else None


# By when the work this socket thread is doing must have its connection (`_in_pool`).
_due = threading.local()


def _connected(sender: Any, connection: Any, **kwargs: Any) -> None:
    """Django's `connection_created`, in any thread: in a socket thread whose work's caller has
    been answered meanwhile (the pool's wait, a connect), the work stops before its first
    statement. The connection is given back first: the receivers after this one (the lock
    timeout, live.locks) did not run on it, and the next work connects afresh."""
    by = getattr(_due, "by", None)
    if by is not None and time.monotonic() >= by:
        connection.close()
        raise NoAnswerInTime("the message was answered before a connection came")


connection_created.connect(_connected, dispatch_uid="live.threads.connected")


def _in_pool(func: Callable[..., Any], args: tuple, kwargs: dict, by: float | None) -> Any:
    # Work whose caller has been answered is not started: a move answered `unavailable` must
    # not be played after all (the queue behind threads stuck on an unreachable database, a
    # connection that came too late: `_connected`).
    if by is not None and time.monotonic() >= by:
        raise NoAnswerInTime("the message was answered before a thread was free")
    _due.by = by
    try:
        _close_old_connections()
        return func(*args, **kwargs)
    finally:
        _due.by = None
        _close_old_connections()


# Work that outlived its answer, followed to its end (`late`), held until then.
_late: set[asyncio.Future] = set()


def database_sync_to_async(
    func: Callable[..., Any],
    lane: str = "db",
    late: Callable[[Any], Awaitable[None]] | None = None,
) -> Callable[..., Any]:
    """Database work off the event loop, in a pool of threads (`lane`: "db", "play" for a
    player's action in a game, or "connect" for a socket's handshake and opening): the services lock the rows they change, so games need not
    queue behind one another in a single thread (channels' default).

    Within `answering`, the call raises NoAnswerInTime once the time is up; work that had
    started by then runs to its end in its thread, and `late(result)` is then awaited on the
    loop (what it committed still has to be pushed: `live.sockets.call`)."""
    if lane not in LANES:
        raise ValueError(f"no such lane: {lane}")

    async def run(*args: Any, **kwargs: Any) -> Any:
        loop = asyncio.get_running_loop()
        by = _deadline()
        job = loop.run_in_executor(_executor(lane), _in_pool, func, args, kwargs, by)
        if by is None:
            return await job
        try:
            await asyncio.wait([job], timeout=max(by - time.monotonic(), 0.0))
        except asyncio.CancelledError:
            job.cancel()
            raise
        if job.done():
            return job.result()
        _late.add(job)
        # In a context of its own: nothing that follows is bound by this answer.
        job.add_done_callback(lambda done: _ended_late(done, late), context=contextvars.Context())
        raise NoAnswerInTime(
            f"no answer from the database in time ({getattr(func, '__name__', 'work')})"
        )

    return run


def _ended_late(job: asyncio.Future, late: Callable[[Any], Awaitable[None]] | None) -> None:
    _late.discard(job)
    if job.cancelled():
        return
    error = job.exception()
    if error is not None:  # the client was answered `unavailable` already
        log.info("socket database work ended after its answer: %s", error)
        return
    if late is not None:
        follow = asyncio.ensure_future(late(job.result()))
        _late.add(follow)
        follow.add_done_callback(_followed)


def _followed(follow: asyncio.Future) -> None:
    _late.discard(follow)
    if not follow.cancelled() and follow.exception() is not None:
        log.warning("following up late socket work failed: %s", follow.exception())
