"""Presence: which users have a socket open on which topic (`live.models.Connection`).

Apps record what a connection means for them (a player *sat* at a game, RULES 3; a player
waiting in an arena, RULES 8) under their own locks; this module only keeps the rows: opened,
closed, counted, refreshed by the serving process, and swept when that process died.
"""

from __future__ import annotations

import asyncio
import logging
import time

from django.conf import settings
from django.db import IntegrityError, connections, router, transaction

from live.models import Connection
from live.threads import database_sync_to_async

logger = logging.getLogger(__name__)

# Each process refreshes its sockets' rows every HEARTBEAT_SECONDS; rows older than STALE_MS
# belong to a dead process (three missed heartbeats).
HEARTBEAT_SECONDS = settings.GAME_PRESENCE_HEARTBEAT_SECONDS
STALE_MS = int(settings.GAME_PRESENCE_STALE_SECONDS * 1000)


def now_ms() -> int:
    return time.time_ns() // 1_000_000


def opened(*, key: str, topic: str, user_id: int, at_ms: int) -> None:
    """Record the socket `key` as open on `topic` for `user_id` (idempotent). One statement, an
    insert that updates the row of a key already recorded: every page opens a socket or two
    that records its presence, and a round start opens all of its players' at once
    (bench/round_start.py); `update_or_create` was a transaction of two or three."""
    Connection.objects.bulk_create(
        [Connection(key=key, topic=topic, user_id=user_id, seen_ms=at_ms)],
        update_conflicts=True,
        unique_fields=["key"],
        update_fields=["topic", "user", "seen_ms"],
    )


def closed(*, key: str) -> bool:
    """Forget the socket `key`; returns whether it was recorded."""
    deleted, _rows = Connection.objects.filter(key=key).delete()
    return bool(deleted)


# Keys of the rows `left` keeps for a user between two pages (no socket has such a key).
LINGER_PREFIX = "left:"


def left(*, key: str, topic: str, user_id: int, at_ms: int) -> None:
    """Forget the socket `key` but keep its user on `topic` for one stale window: a player who
    goes from one page to the next closes a socket before opening the next, and the page in
    between must still show them online. One lingering row per user and topic, never refreshed
    by a heartbeat, so it ages out like a dead process's rows (and `sweep` deletes it).

    The socket's own row becomes the lingering one (an UPDATE of its key and time, after the
    user's previous lingering row is deleted): no row is inserted, so closing a socket locks
    nothing but this table — an INSERT's foreign-key check would also lock the user's row, and
    a socket closing while the whole database is being emptied (the tests' flush) deadlocked."""
    linger = f"{LINGER_PREFIX}{topic}:{user_id}"
    with transaction.atomic():
        Connection.objects.filter(key=linger).delete()
        try:
            with transaction.atomic():
                Connection.objects.filter(key=key, topic=topic, user_id=user_id).update(
                    key=linger, seen_ms=at_ms
                )
        except IntegrityError:
            # Another socket of the same user on this topic closed at the same moment (tabs
            # closed together) and its row became the lingering one first: that row keeps the
            # user online for both, and this one goes.
            Connection.objects.filter(key=key).delete()


def count(*, topic: str, user_id: int) -> int:
    """Open sockets of `user_id` on `topic`, stale ones included (the app sweeps those)."""
    return Connection.objects.filter(topic=topic, user_id=user_id).count()


def fresh(*, topics: list[str], at_ms: int) -> set[tuple[str, int]]:
    """The (topic, user id) pairs with a socket refreshed within the stale window."""
    rows = Connection.objects.filter(topic__in=topics, seen_ms__gte=at_ms - STALE_MS)
    return set(rows.values_list("topic", "user_id"))


def refresh(*, keys: list[str], at_ms: int) -> int:
    """Vouch for the sockets `keys` (all the open sockets of one process): one query.

    On PostgreSQL the keys go as one array parameter: the ORM's `key__in` compiles a
    placeholder per key, and a busy process's heartbeat (a thousand sockets) spent more on
    building that statement than PostgreSQL on running it (bench/live.py)."""
    if not keys:
        return 0
    connection = connections[router.db_for_write(Connection)]
    if connection.vendor != "postgresql":
        return Connection.objects.filter(key__in=keys).update(seen_ms=at_ms)
    table, key, seen = (
        connection.ops.quote_name(name)
        for name in (
            Connection._meta.db_table,
            Connection._meta.get_field("key").column,
            Connection._meta.get_field("seen_ms").column,
        )
    )
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET {seen} = %s WHERE {key} = ANY(%s)", [at_ms, list(keys)])
        return cursor.rowcount


def stale_topics(*, prefix: str, before_ms: int) -> set[str]:
    """Topics starting with `prefix` that have a row not refreshed since `before_ms`."""
    rows = Connection.objects.filter(topic__startswith=prefix, seen_ms__lt=before_ms)
    return set(rows.values_list("topic", flat=True))


def drop_stale(*, topic: str, before_ms: int) -> dict[int, int]:
    """Delete the rows of `topic` not refreshed since `before_ms`; returns, per user, the last
    instant a dead process vouched for them (their absence counts from then)."""
    stale = Connection.objects.filter(topic=topic, seen_ms__lt=before_ms)
    last_seen: dict[int, int] = {}
    for user_id, seen in stale.values_list("user_id", "seen_ms"):
        last_seen[user_id] = max(seen, last_seen.get(user_id, seen))
    if last_seen:
        stale.delete()
    return last_seen


def sweep(*, at_ms: int | None = None) -> int:
    """Delete rows of any topic stale for twice the window (the apps that keep bookkeeping on
    their rows sweep them earlier, under their own locks). Safe to run twice."""
    at = now_ms() if at_ms is None else at_ms
    deleted, _rows = Connection.objects.filter(seen_ms__lt=at - 2 * STALE_MS).delete()
    return deleted


class ProcessConnections:
    """This process's recorded sockets, vouched for in one query every few seconds.

    If the process dies, the rows stop being refreshed and are swept: nobody stays "connected"
    through a dead server. A key is added when its row is written and discarded when the socket
    closes, however it closes (`live.sockets.LiveConsumer`)."""

    keys: set[str] = set()
    task: asyncio.Task | None = None

    @classmethod
    def add(cls, key: str) -> None:
        cls.keys.add(key)
        loop = asyncio.get_running_loop()
        if cls.task is None or cls.task.done() or cls.task.get_loop() is not loop:
            cls.task = loop.create_task(cls.run())

    @classmethod
    def discard(cls, key: str) -> None:
        cls.keys.discard(key)
        if not cls.keys and cls.task is not None:
            cls.task.cancel()
            cls.task = None

    @classmethod
    async def run(cls) -> None:
        while cls.keys:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            try:
                keys = sorted(cls.keys)
                await database_sync_to_async(refresh)(keys=keys, at_ms=now_ms())
            except Exception:  # the next beat tries again; the rows go stale only after three
                logger.exception("presence heartbeat failed")


def online(*, topic: str, user_ids, at_ms: int | None = None) -> set[int]:
    """Which of `user_ids` have a fresh socket on `topic` now (one query)."""
    at = now_ms() if at_ms is None else at_ms
    rows = Connection.objects.filter(
        topic=topic, user_id__in=list(user_ids), seen_ms__gte=at - STALE_MS
    )
    return set(rows.values_list("user_id", flat=True))
