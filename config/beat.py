"""Celery beat's scheduler: django-celery-beat's database scheduler (staff see and can pause
the periodic tasks in the admin) plus a heartbeat on every turn of the loop, so /healthz can
tell that beat itself is alive, independently of the worker."""

from __future__ import annotations

import logging

from django_celery_beat.schedulers import DatabaseScheduler

from config import heartbeat

log = logging.getLogger(__name__)


class HeartbeatScheduler(DatabaseScheduler):
    def tick(self, *args, **kwargs):
        try:
            heartbeat.record(heartbeat.BEAT)
        except Exception:  # Redis briefly away: beat keeps scheduling, /healthz will say so
            log.warning("could not record beat heartbeat", exc_info=True)
        # Never sleep longer than a tick, so the heartbeat stays fresh.
        return min(super().tick(*args, **kwargs), 1.0)
