"""The Celery worker keeps its PostgreSQL connections across tasks, as `CONN_MAX_AGE` or the
pool says (docs/architecture.md, "The worker's connections"): celery's own Django fix-up closed
every connection after every task, so the worker opened one for each tick's task, a third of their
CPU. On a real worker (two processes, the deployment's command) on the test database."""

from __future__ import annotations

import os
import threading
import uuid

import pytest
from django.db import connection

from config.celery import app
from tests import processes
from tests.processes import Processes, environment, process_env

pytestmark = [
    pytest.mark.django_db(transaction=True),
    # The suite runs its own tasks inline; these are sent to the real worker on purpose.
    pytest.mark.filterwarnings("ignore::celery.exceptions.AlwaysEagerIgnored"),
]


def worker_connections(name: str) -> set[tuple[int, object]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, backend_start FROM pg_stat_activity WHERE application_name = %s",
            [name],
        )
        return set(cursor.fetchall())


@pytest.mark.parametrize(
    ("kept_by", "most"),
    [
        ("conn_max_age=600", 2),  # one per process that ran a task
        ("pool=4", 8),  # each process its pool: two open, more while the first ones connect
    ],
)
def test_the_worker_keeps_its_connections_across_tasks(tmp_path, kept_by, most):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's own view of its connections")
    name = f"worker-{uuid.uuid4().hex[:8]}"
    # Its own queue, which the suite's worker does not read (named as config.env names a
    # pytest-xdist worker's own, or the worker started here would listen to another name).
    xdist = os.environ.get("PYTEST_XDIST_WORKER")
    queue = f"connections-{name}" + (f"-{xdist}" if xdist else "")
    url = f"{processes.test_database_url()}?{kept_by}&application_name={name}"
    done_file = tmp_path / "done.txt"
    env = environment(
        process_env(), DATABASE_URL=url, CELERY_QUEUE=queue, TASKS_DONE_FILE=str(done_file)
    )
    with Processes(tmp_path, env) as procs:
        procs.start_worker()

        def run(count: int, done_before: int) -> int:
            for _n in range(count):
                app.send_task("games.due", queue=queue)  # reads and writes the database
            done = done_before + count
            procs.wait_for(
                lambda: done_file.exists() and done_file.read_text().count("games.due") >= done,
                60,
                f"{done} tasks done",
                "worker",
            )
            return done

        done = run(10, 0)
        kept = worker_connections(name)
        assert 1 <= len(kept) <= most, kept  # still open
        run(30, done)
        assert worker_connections(name) == kept  # the same connections: none opened since


def test_a_task_sent_from_any_thread_goes_through_the_sites_app():
    """A page's or a socket's thread sends tasks by name (`current_app.tasks[...]`): celery's
    current app is per thread, and without the site's app as the default one such a thread got
    celery's unconfigured fallback app, whose broker is nowhere (a sign-up waited 6 s for it)."""
    from celery import current_app
    from django.conf import settings

    seen = []
    thread = threading.Thread(
        target=lambda: seen.append((current_app.main, current_app.conf.broker_url))
    )
    thread.start()
    thread.join()
    assert seen == [(app.main, settings.CELERY_BROKER_URL)]
