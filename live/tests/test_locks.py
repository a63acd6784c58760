"""The row-lock helper (`live.locks`) on real PostgreSQL: order, transactions, timeout."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction

from accounts.models import User
from accounts.tests.factories import UserFactory
from live import locks
from tests.concurrency import run_at_once
from tournaments.models import Tournament
from tournaments.tests.factories import TournamentFactory


@pytest.mark.django_db
def test_a_lock_outside_a_transaction_is_refused():
    user = UserFactory()
    with pytest.raises(locks.LockOrderError):
        locks.lock_one(User, user.pk, locks.Rank.USER)


@pytest.mark.django_db
def test_a_lock_in_a_transaction_not_opened_by_locks_atomic_is_refused():
    """Only the code's own `atomic` keeps the order: a lock in Django's bare `atomic` (or in a
    test case's wrapping block alone) is a programming error, said at once."""
    user = UserFactory()
    with transaction.atomic(), pytest.raises(locks.LockOrderError, match="outside"):
        locks.lock_one(User, user.pk, locks.Rank.USER)


@pytest.mark.django_db
def test_a_rolled_back_inner_block_gives_its_locks_back_to_the_order():
    user, tournament = UserFactory(), TournamentFactory()
    with locks.atomic():
        with pytest.raises(RuntimeError), locks.atomic():
            locks.lock_one(User, user.pk, locks.Rank.USER)
            raise RuntimeError("the savepoint rolls back, and its row locks with it")
        locks.lock_one(Tournament, tournament.pk, locks.Rank.EVENT)  # allowed again
        with locks.atomic():
            locks.lock_one(User, user.pk, locks.Rank.USER)
        with pytest.raises(locks.LockOrderError):  # the inner block's lock stays held
            locks.lock_one(Tournament, tournament.pk, locks.Rank.EVENT)


@pytest.mark.django_db
def test_the_order_is_enforced_within_one_transaction_only():
    user, tournament = UserFactory(), TournamentFactory()
    with locks.atomic():
        locks.lock_one(Tournament, tournament.pk, locks.Rank.EVENT)
        locks.lock_one(User, user.pk, locks.Rank.USER)
        locks.lock_one(User, user.pk, locks.Rank.USER)  # the same rank again is fine
        with pytest.raises(locks.LockOrderError):
            locks.lock_one(Tournament, tournament.pk, locks.Rank.EVENT)
    # A new transaction starts from nothing, even through the same decorated function.

    @locks.atomic
    def user_then_event() -> None:
        locks.lock_one(User, user.pk, locks.Rank.USER)

    @locks.atomic
    def event() -> None:
        locks.lock_one(Tournament, tournament.pk, locks.Rank.EVENT)

    user_then_event()
    event()
    user_then_event()


@pytest.mark.django_db
def test_lock_one_of_a_missing_row_says_so():
    with locks.atomic(), pytest.raises(User.DoesNotExist):
        locks.lock_one(User, 10**9, locks.Rank.USER)


@pytest.mark.django_db(transaction=True)
def test_a_row_held_too_long_fails_the_waiter_with_lock_timeout():
    user = UserFactory()
    held, release = threading.Event(), threading.Event()

    def holder() -> str:
        with locks.atomic():
            locks.lock_one(User, user.pk, locks.Rank.USER)
            held.set()
            release.wait(10)
        return "held"

    def waiter() -> str:
        held.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '200ms'")
        try:
            with locks.atomic():
                locks.lock_one(User, user.pk, locks.Rank.USER)
            return "locked"
        except locks.LockTimeout:
            return "timed out"
        finally:
            release.set()

    assert run_at_once(holder, waiter) == ["held", "timed out"]


@pytest.mark.django_db(transaction=True)
def test_every_connection_has_a_lock_timeout():
    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == f"{locks.LOCK_TIMEOUT_MS // 1000}s"


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_lock_rows_free_takes_what_nobody_else_holds_and_never_waits():
    from tests.concurrency import RowHeld

    mine, theirs = UserFactory(), UserFactory()
    with pytest.raises(locks.LockOrderError):
        locks.lock_rows_free(User.objects.all())
    held = RowHeld(User.objects.filter(pk=theirs.pk)).start()
    try:
        with locks.atomic():
            locks.lock_one(User, mine.pk, locks.Rank.USER)
            # After a higher rank too: it cannot deadlock, so the order is not asked.
            got = locks.lock_rows_free(User.objects.filter(pk__in=[mine.pk, theirs.pk]))
            assert [user.pk for user in got] == [mine.pk]  # its own row is its own
    finally:
        held.release()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL")
def test_the_deletion_never_waits_for_a_challenge_it_did_not_lock_first():
    """A challenge posted between the deletion's challenge locks and its user row's, and being
    accepted (held) meanwhile: waiting for it under the user's row would deadlock with the
    accept, so the deletion is refused, to be tried again."""
    from django.core.exceptions import ValidationError

    from games import personal
    from games.models import Challenge
    from games.services import challenge_create
    from tests.concurrency import RowHeld

    leaving = UserFactory()
    challenge = challenge_create(
        challenger_id=leaving.pk,
        variant_code="chess",
        base_seconds=60,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    held = RowHeld(Challenge.objects.filter(pk=challenge.pk)).start()
    try:
        with locks.atomic():
            user = locks.lock_one(User, leaving.pk, locks.Rank.USER)
            with pytest.raises(ValidationError, match="riprova"):
                personal.erase(user)
    finally:
        held.release()
