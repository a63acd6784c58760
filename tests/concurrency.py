"""The one concurrency helper of the suite: jobs released together in threads, each with its
own database connection (real PostgreSQL row locks), results in order."""

from __future__ import annotations

import threading
from collections.abc import Callable

from django.db import connection


class Raised:
    """What a job raised, in place of its result (`run_at_once(..., errors=True)`)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __repr__(self) -> str:
        return f"Raised({self.error!r})"


def run_at_once(
    *jobs: Callable[[], object], errors: bool = False, timeout: float = 60
) -> list[object]:
    """Run the jobs in parallel threads released by one barrier. By default the first error is
    re-raised; with `errors=True` each failed job's result is a `Raised`."""
    barrier = threading.Barrier(len(jobs))
    results: list[object] = [None] * len(jobs)
    failures: list[BaseException] = []

    def worker(index: int, job: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = job()
        except BaseException as error:  # reported below
            results[index] = Raised(error)
            failures.append(error)
        finally:
            connection.close()  # each thread opened its own connection

    threads = [threading.Thread(target=worker, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(thread.is_alive() for thread in threads), "a job hung (deadlock?)"
    if failures and not errors:
        raise failures[0]
    return results


class RowHeld:
    """A row locked by another transaction, in a thread with its own connection, until
    `release()`: what a stuck transaction looks like to the code under test."""

    def __init__(self, queryset) -> None:
        self.queryset = queryset
        self.holding, self.released = threading.Event(), threading.Event()
        self.thread = threading.Thread(target=self._hold)

    def _hold(self) -> None:
        from django.db import transaction

        try:
            with transaction.atomic():
                list(self.queryset.select_for_update())
                self.holding.set()
                self.released.wait(10)
        finally:
            connection.close()

    def start(self) -> RowHeld:
        self.thread.start()
        assert self.holding.wait(10), "the row could not be locked"
        return self

    def release(self) -> None:
        self.released.set()
        self.thread.join(10)
