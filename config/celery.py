"""The Celery application, and every periodic schedule of the project, declared here in one
place (STYLE 5). Each app owns its tasks (`<app>/tasks.py`, found by autodiscovery); this file
schedules them by name and imports none of them.

Every scheduled task runs every TICK_SECONDS and is safe to run twice; expiring after a few
ticks keeps a stopped worker from finding a backlog of stale ticks when it comes back.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from celery import Celery, signals
from django.conf import settings
from kombu import Exchange, Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# `celery -A config` puts the working directory on the path only while it loads the app, and
# takes it off after: the apps beside this package must stay importable (celery's Django fix-up
# added the working directory for good; the project's own folder is what it meant). Appended
# even when present now, so that one entry stays when celery takes its own off.
sys.path.append(str(Path(__file__).resolve().parent.parent))

# Without celery's Django fix-up (`fixups=[]`, the constructor's documented argument): after
# every task it closed every database connection whatever CONN_MAX_AGE said, so the worker
# opened a PostgreSQL connection for each of the tick's five tasks a second (a third of their
# CPU). What the fix-up did that the site needs is done below through celery's signals and
# Django's public functions, and connections now live as long as CONN_MAX_AGE says, as a
# page's do (docs/architecture.md, "The worker's connections").
app = Celery("circolo", fixups=[])
app.config_from_object("django.conf:settings", namespace="CELERY")
# The app of every thread: tasks sent by name from a page's or a socket's thread
# (`current_app.tasks[...]`) go through it, not through celery's unconfigured fallback app.
app.set_default()
# Every app's `tasks` module, found when the worker (or beat) imports its task modules: Django
# is set up then, before any of them is imported.
app.autodiscover_tasks(lambda: [config.name for config in _app_configs()])


def _app_configs():
    import django
    from django.apps import apps

    if not apps.ready:
        django.setup()
    return apps.get_app_configs()


@signals.worker_init.connect(weak=False)
def _no_connection_across_fork(**_kwargs) -> None:
    """The worker's main process forks its children after this: none of them may share a
    connection it opened (a child closing it would close it for all)."""
    from django.db import connections

    connections.close_all()


@signals.task_prerun.connect(weak=False)
@signals.task_postrun.connect(weak=False)
def _connections_as_a_request_does(task=None, **_kwargs) -> None:
    """Before and after each task, what Django does around each request: a connection past
    CONN_MAX_AGE, broken, or left in a failed transaction is closed; any other is kept for the
    next task (CONN_HEALTH_CHECKS, on in config.env, checks it before it is used again)."""
    if task is not None and task.request.is_eager:
        return  # run inline by its caller (the tests): the caller's connection, in its transaction
    from django.db import close_old_connections

    close_old_connections()


# RULES 14.5, live play first: a computer analysis (minutes of an engine's CPU) goes to a queue
# of its own, which only the analysis worker takes (ANALYSIS_WORKER=1: its own unit,
# deploy/systemd/circolo-analysis.service, one process at the lowest CPU priority), so the tick's
# worker never waits behind an engine and the engine yields both cores to games.
app.conf.task_routes = {"analysis.*": {"queue": settings.ANALYSIS_QUEUE}}
_taken = settings.ANALYSIS_QUEUE if settings.ANALYSIS_WORKER else settings.CELERY_TASK_DEFAULT_QUEUE
# Declared as celery declares its default queue (an exchange of its name, routed by its name).
app.conf.task_queues = [Queue(_taken, Exchange(_taken), routing_key=_taken)]
if settings.ANALYSIS_WORKER:
    # One analysis at a time per process, acknowledged when it is done: a worker killed
    # mid-analysis leaves the task for the next (the analysis row says whether it is still due).
    app.conf.worker_prefetch_multiplier = 1
    app.conf.task_acks_late = True
    app.conf.task_reject_on_worker_lost = True


@signals.worker_process_init.connect(weak=False)
def _analysis_yields(**_kwargs) -> None:
    """The analysis worker's processes, and the engines they start, run at the lowest CPU
    priority (the unit's Nice= says the same under systemd; `make run` and the tests start the
    command alone)."""
    if settings.ANALYSIS_WORKER:
        os.nice(19 - os.nice(0))


TICK_SECONDS = settings.TICK_SECONDS


def _every_tick(task: str) -> dict:
    return {
        "task": task,
        "schedule": TICK_SECONDS,
        "options": {"expires": max(5.0, TICK_SECONDS * 5)},
    }


app.conf.beat_schedule = {
    # The worker's heartbeat for /healthz, and the sweep of presence rows of dead processes.
    "live.heartbeat": _every_tick("live.heartbeat"),
    # RULES 3: flags, abandonment, never-sat games; finished games not yet settled.
    "games.due": _every_tick("games.due"),
    # Quick pairing: the pools' passes, ranges widening with the wait.
    "games.pools": _every_tick("games.pools"),
    # RULES 4.3-4.9: tournaments start, pair their rounds and close by themselves.
    "tournaments.due": _every_tick("tournaments.due"),
    # RULES 8: arenas start, run the pairing passes whose task was lost, and end.
    "arena.due": _every_tick("arena.due"),
    # RULES 16.4, 16.8: team matches start by themselves; leagues start and move on.
    "teams.due": _every_tick("teams.due"),
    # Reminders before the events players joined (events/reminders.py).
    "events.reminders": {**_every_tick("events.reminders"), "schedule": max(TICK_SECONDS, 10.0)},
    # The outbox: mails whose task was lost, and the retries of those that failed.
    "mail.send": {**_every_tick("mail.send"), "schedule": max(TICK_SECONDS, 5.0)},
    # The data archives: a build whose chain of steps was lost (a worker killed) goes on.
    "accounts.archives": {**_every_tick("accounts.archives"), "schedule": max(TICK_SECONDS, 10.0)},
    # Archives past DATA_ARCHIVE_KEEP_HOURS lose their file (RULES 10.7).
    "accounts.archives_cleanup": {
        **_every_tick("accounts.archives_cleanup"),
        "schedule": max(TICK_SECONDS, 600.0),
    },
}
