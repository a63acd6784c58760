"""The Celery application, and every periodic schedule of the project, declared here in one
place (STYLE 5). Each app owns its tasks (`<app>/tasks.py`, found by autodiscovery); this file
schedules them by name and imports none of them.

Every scheduled task runs every TICK_SECONDS and is safe to run twice; expiring after a few
ticks keeps a stopped worker from finding a backlog of stale ticks when it comes back.
"""

from __future__ import annotations

import os

from celery import Celery
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("circolo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

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
    # Reminders before the events players joined (events/reminders.py).
    "events.reminders": {**_every_tick("events.reminders"), "schedule": max(TICK_SECONDS, 10.0)},
    # The outbox: mails whose task was lost, and the retries of those that failed.
    "mail.send": {**_every_tick("mail.send"), "schedule": max(TICK_SECONDS, 5.0)},
}
