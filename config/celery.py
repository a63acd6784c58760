"""The Celery application. Every periodic schedule of the project is declared here, in one
place (STYLE 5)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("circolo")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.conf.include = ["config.tasks"]  # config is not an app: name its tasks module

TICK_SECONDS = float(os.environ.get("TICK_SECONDS", "1.0"))

# The tick: later issues hang their due-work checks on it (starting tournaments, advancing
# rounds, flagging clocks). Expiring after a few ticks keeps a stopped worker from finding a
# backlog of stale ticks when it comes back.
app.conf.beat_schedule = {
    "tick": {
        "task": "config.tasks.tick",
        "schedule": TICK_SECONDS,
        "options": {"expires": max(5.0, TICK_SECONDS * 5)},
    },
}
