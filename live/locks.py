"""Row locks, in one place (STYLE 3: one writer per row).

The lock order of the whole site, written once
----------------------------------------------
A transaction that locks rows of several kinds takes them in this order, and rows of one kind
in ascending primary key:

1. ``EVENT``: a tournament or an arena row (its steps, joins, edits, the end);
2. ``PAIR``: two players, as a pair (`lock_pair`: what either of them may offer the other, a
   rematch or a challenge, is decided one at a time, so two offers crossing become one game);
3. ``CHALLENGE``: a challenge row (accepting, cancelling);
4. ``USER``: user rows (opening a game checks one board at a time, RULES 1; opening an event
   checks one live event per person);
5. ``GAME``: game rows (every move, flag, draw offer, presence change, end by the event);
6. ``RATING``: rating rows (`ratings.services`, ascending player id within a pool).

Two transactions that keep the order queue on their first shared row and never deadlock. A
lock of a lower rank after a higher one in the same transaction raises `LockOrderError` (a
programming error, caught by the tests), and locking outside a transaction raises at once
(a lock that ends with its statement protects nothing).

A row held longer than ``LOCK_TIMEOUT_MS`` (a stuck transaction) makes the waiter fail with
`LockTimeout` instead of queueing forever: PostgreSQL's ``lock_timeout``, set once per
connection when it opens (not ``SET LOCAL`` per transaction, which would add a round trip to
every move). Behind PgBouncer in transaction mode set it on the role instead
(``ALTER ROLE … SET lock_timeout = '5s'``). SQLite locks the whole database and waits at most
its own busy timeout.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from django.conf import settings
from django.db import DatabaseError, models, transaction
from django.db.backends.signals import connection_created
from django.dispatch import receiver

LOCK_TIMEOUT_MS = settings.LOCK_TIMEOUT_MS


class Rank(IntEnum):
    EVENT = 1
    PAIR = 2
    CHALLENGE = 3
    USER = 4
    GAME = 5
    RATING = 6


class LockOrderError(RuntimeError):
    """Rows locked against the documented order, or outside a transaction."""


class LockTimeout(Exception):
    """A row stayed locked by another transaction longer than LOCK_TIMEOUT_MS."""

    code = "busy"


@receiver(connection_created, dispatch_uid="live.locks.lock_timeout")
def _set_lock_timeout(sender, connection, **kwargs) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, false)", [f"{LOCK_TIMEOUT_MS}ms"])


class _Held:
    """The highest rank locked so far in one transaction. It is registered as a no-op commit
    callback: Django drops those when the transaction ends (commit or rollback) or when the
    savepoint it was registered in rolls back, which is exactly when its locks go."""

    def __init__(self, token: Any) -> None:
        self.token = token
        self.rank = 0

    def __call__(self) -> None:
        pass


def entering(rank: Rank, using: str | None = None) -> Any:
    """Check that a lock of `rank` may be taken now; returns the connection.

    Raises LockOrderError outside a transaction or after a lock of a higher rank."""
    connection = transaction.get_connection(using)
    # The transaction is the outermost `atomic` block of the code; a test case's own wrapping
    # blocks are not the code's (each test runs inside one that never commits), so there the
    # code's transaction is a savepoint, told apart by its id.
    index = next(
        (i for i, block in enumerate(connection.atomic_blocks) if not block._from_testcase), None
    )
    if not connection.in_atomic_block or index is None:
        raise LockOrderError(f"a {rank.name} lock outside a transaction protects nothing")
    token = connection.savepoint_ids[index - 1] if index > 0 else None
    held = getattr(connection, "_locks_held", None)
    if (
        held is None
        or held.token != token
        or not any(entry[1] is held for entry in connection.run_on_commit)
    ):
        held = connection._locks_held = _Held(token)
        transaction.on_commit(held, using=connection.alias)
    if rank < held.rank:
        raise LockOrderError(f"a {rank.name} lock after a {Rank(held.rank).name} lock (live.locks)")
    held.rank = rank
    return connection


def in_code_transaction(using: str | None = None) -> bool:
    """Whether the code opened a transaction (`atomic`) that is still open: a test case's own
    wrapping blocks do not count (see `entering`)."""
    connection = transaction.get_connection(using)
    return connection.in_atomic_block and any(
        not block._from_testcase for block in connection.atomic_blocks
    )


def is_lock_timeout(error: BaseException) -> bool:
    cause = error.__cause__ or error
    return getattr(cause, "sqlstate", None) == "55P03"  # lock_not_available


def lock_rows(queryset: models.QuerySet, rank: Rank) -> list:
    """Lock and return the rows of `queryset`, in ascending primary key (`SELECT … FOR UPDATE`,
    of the queryset's own table only)."""
    entering(rank, queryset.db)
    try:
        return list(queryset.select_for_update(of=("self",)).order_by("pk"))
    except DatabaseError as error:
        if is_lock_timeout(error):
            raise LockTimeout(str(error)) from error
        raise


def lock_one(queryset: models.QuerySet | type[models.Model], pk: Any, rank: Rank):
    """The row `pk`, locked until the end of the transaction; Model.DoesNotExist if absent."""
    if isinstance(queryset, type):
        queryset = queryset._default_manager.all()
    rows = lock_rows(queryset.filter(pk=pk), rank)
    if not rows:
        raise queryset.model.DoesNotExist(f"no {queryset.model.__name__} {pk!r}")
    return rows[0]


def lock_pair(first_id: int, second_id: int) -> None:
    """Two players, as a pair, until the end of the transaction (PAIR rank): a PostgreSQL
    advisory transaction lock on the two ids, lower first, in the two-key space no other lock
    of the site uses. No row stands for a pair, and the users' rows come later in the order
    (USER rank). SQLite locks the whole database for every transaction already."""
    connection = entering(Rank.PAIR)
    if connection.vendor != "postgresql":
        return
    low, high = sorted((int(first_id), int(second_id)))
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [low, high])
    except DatabaseError as error:
        if is_lock_timeout(error):
            raise LockTimeout(str(error)) from error
        raise
