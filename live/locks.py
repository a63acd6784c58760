"""Row locks, in one place (STYLE 3: one writer per row).

The lock order of the whole site, written once
----------------------------------------------
A transaction that locks rows of several kinds takes them in this order, and rows of one kind
in ascending primary key:

0. ``LEAGUE``: a league of team matches (its teams, rosters, rounds, pairings, withdrawals:
   RULES 16.8), above the matches it creates and forfeits;
1. ``EVENT``: a tournament, an arena or a team match row (its steps, joins, edits, the end);
2. ``PAIR``: two players, as a pair (`lock_pair`: what either of them may offer the other, a
   rematch or a challenge, is decided one at a time, so two offers crossing become one game);
3. ``CHALLENGE``: a challenge row (accepting, cancelling);
4. ``CLUB``: a club row (`clubs.services`: its members joining, leaving and changing roles,
   its dissolution, and an event opened for it, RULES 12);
5. ``USER``: user rows (opening a game checks one board at a time, RULES 1; opening an event
   checks one live event per person);
6. ``GAME``: game rows (every move, flag, draw offer, presence change, end by the event);
7. ``RATING``: rating rows (`ratings.services`, ascending player id within a pool).

Deleting an account (`accounts.services.user_delete`) keeps the same order: the rows of a lower
rank its erasers change (the player's open challenges, CHALLENGE) first, then the player's user
row (USER), so a deletion and an accept, a join, an entry or a chat line at once queue on one row
and one of them wins. Every action that adds something of a player's (a registration, an entry,
a game, a challenge, a chat line) locks the player's row (USER) and checks, under it, that the
account is open (neither deleted nor deactivated): whichever locks it second sees the other's
commit.

Two transactions that keep the order queue on their first shared row and never deadlock. A
lock of a lower rank after a higher one in the same transaction raises `LockOrderError` (a
programming error, caught by the tests), and locking outside a transaction raises at once
(a lock that ends with its statement protects nothing). A transaction that locks is opened
with this module's `atomic`, which keeps the order in a context variable: Django offers no
public way to ask which `atomic` block is the code's outermost, and reading its connection's
private state is what this module must not do.

A row held longer than ``LOCK_TIMEOUT_MS`` (a stuck transaction) makes the waiter fail with
`LockTimeout` instead of queueing forever: PostgreSQL's ``lock_timeout``, set once per
connection when it opens (not ``SET LOCAL`` per transaction, which would add a round trip to
every move). Behind PgBouncer in transaction mode set it on the role instead
(``ALTER ROLE … SET lock_timeout = '5s'``). SQLite locks the whole database and waits at most
its own busy timeout.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from django.conf import settings
from django.db import DatabaseError, models, transaction
from django.db.backends.signals import connection_created
from django.dispatch import receiver

LOCK_TIMEOUT_MS = settings.LOCK_TIMEOUT_MS


class Rank(IntEnum):
    LEAGUE = 0
    EVENT = 1
    PAIR = 2
    CHALLENGE = 3
    CLUB = 4
    USER = 5
    GAME = 6
    RATING = 7


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


@dataclass
class _Frame:
    """One `atomic` block of the code: the highest rank locked in it and the blocks around it."""

    rank: int = 0


# The innermost `atomic` block of the code in this context (thread or task): set by `atomic`,
# read by every lock. A test case's own wrapping blocks (Django's, each test inside one that
# never commits) are not the code's, so they set nothing here.
_current: ContextVar[_Frame | None] = ContextVar("live.locks.current", default=None)


def atomic(using: Any = None):
    """See `_block`; `@atomic` bare decorates a function, as Django's does."""
    if callable(using):
        func = using

        @functools.wraps(func)
        def inner(*args: Any, **kwargs: Any) -> Any:
            with _block(None):
                return func(*args, **kwargs)

        return inner
    return _block(using)


@contextmanager
def _block(using: str | None = None) -> Iterator[None]:
    """`transaction.atomic` that keeps the lock order (the model: pretix's `lock_objects`):
    every transaction that locks rows is opened with it, and locks taken in it are checked
    against those taken before in the same transaction. An inner block starts from the rank of
    the block around it; when it ends, its locks stay with the transaction (its rank passes to
    the outer block), unless it rolled back (its savepoint's locks went with it). Usable as a
    decorator too."""
    parent = _current.get()
    frame = _Frame(rank=parent.rank if parent is not None else 0)
    with transaction.atomic(using=using):
        # Set inside Django's block and reset before it ends: the commit's on_commit callbacks
        # (a settle task run inline, a push) are outside this transaction and must see so.
        token = _current.set(frame)
        try:
            yield
        finally:
            _current.reset(token)
    # Reached only when the block did not roll back: its locks stay with the transaction.
    if parent is not None:
        parent.rank = max(parent.rank, frame.rank)


def entering(rank: Rank, using: str | None = None) -> Any:
    """Check that a lock of `rank` may be taken now; returns the connection.

    Raises LockOrderError outside the code's `atomic` or after a lock of a higher rank."""
    frame = _current.get()
    if frame is None:
        raise LockOrderError(f"a {rank.name} lock outside live.locks.atomic protects nothing")
    if rank < frame.rank:
        raise LockOrderError(
            f"a {rank.name} lock after a {Rank(frame.rank).name} lock (live.locks)"
        )
    frame.rank = rank
    return transaction.get_connection(using)


def in_code_transaction(using: str | None = None) -> bool:
    """Whether the code opened a transaction (`atomic` of this module) that is still open: a
    test case's own wrapping blocks do not count."""
    return _current.get() is not None


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


def lock_rows_free(queryset: models.QuerySet) -> list:
    """Lock the rows of `queryset` that no other transaction holds, without waiting for any
    (`SELECT … FOR UPDATE SKIP LOCKED`), and return them; rows this transaction holds already
    are among them. It never waits, so it cannot deadlock whatever was locked before it: a
    caller compares what it got with what it needed and refuses when another transaction is
    changing one of them (the rank order is not checked, only that a transaction is open)."""
    if _current.get() is None:
        raise LockOrderError("a lock outside live.locks.atomic protects nothing")
    return list(queryset.select_for_update(skip_locked=True, of=("self",)).order_by("pk"))
