"""What every socket consumer of the site shares: database calls off the event loop, in a pool
of threads, with pushes sent from the loop (`config.pushes`), and no per-message connection
check on the loop.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import SyncToAsync
from channels.consumer import AsyncConsumer, get_handler_name
from channels.layers import get_channel_layer
from django.db import DEFAULT_DB_ALIAS, close_old_connections, connections

from config import pushes

# With persistent connections, each pool thread checks its connection at most this often.
CONNECTION_CHECK_SECONDS = 5.0
_checked = threading.local()


def _close_old_connections() -> None:
    """channels' per-call `close_old_connections`, spaced out when connections persist.

    With CONN_MAX_AGE > 0, checking on every message costs a database round trip per move
    (CONN_HEALTH_CHECKS runs `SELECT 1` after each check), so a thread checks every few seconds,
    or at once after a database error. With CONN_MAX_AGE 0 it checks every time, as channels
    does (each call then opens its own connection)."""
    now = time.monotonic()
    connection = connections[DEFAULT_DB_ALIAS]
    if (
        connection.settings_dict.get("CONN_MAX_AGE") == 0
        or connection.errors_occurred
        or now - getattr(_checked, "at", -CONNECTION_CHECK_SECONDS) >= CONNECTION_CHECK_SECONDS
    ):
        close_old_connections()
        _checked.at = now


class PooledDatabaseSyncToAsync(SyncToAsync):
    def thread_handler(self, loop, *args: Any, **kwargs: Any) -> Any:
        _close_old_connections()
        try:
            return super().thread_handler(loop, *args, **kwargs)
        finally:
            _close_old_connections()


def database_sync_to_async(func: Callable[..., Any]) -> Callable[..., Any]:
    """Database work off the event loop, in a pool of threads: the services lock the rows they
    change, so games need not queue behind one another in a single thread (channels' default)."""
    return PooledDatabaseSyncToAsync(func, thread_sensitive=False)


def _collecting(
    func: Callable[..., Any], *args: Any, **kwargs: Any
) -> tuple[list[pushes.Push], Any, BaseException | None]:
    with pushes.collected() as outbox:
        try:
            return outbox, func(*args, **kwargs), None
        except Exception as error:  # re-raised on the loop once the pushes are out
            return outbox, None, error


# One wrapper for every call (building a SyncToAsync per message is measurable on a move).
_pooled_collecting = database_sync_to_async(_collecting)


async def call(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run `func` in the pool; send, from the loop, whatever it committed; return its result or
    raise its error. Pushes go out first, so a client told "error" already has the new state."""
    outbox, result, error = await _pooled_collecting(func, *args, **kwargs)
    if outbox:
        await pushes.send_collected(get_channel_layer(), outbox)
    if error is not None:
        raise error
    return result


class SiteConsumerMixin:
    """Dispatch without channels' `aclose_old_connections` before every handler.

    That call runs `close_old_connections` through `sync_to_async` in its default thread-
    sensitive mode: every message of every socket of the process queued behind one thread.
    Our handlers touch the database only through `call` / `database_sync_to_async` above,
    whose threads check their own connections."""

    async def dispatch(self: AsyncConsumer, message: dict[str, Any]) -> None:
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
