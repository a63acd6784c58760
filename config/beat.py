"""Celery beat's scheduler: celery's own in-memory scheduler over the schedule declared in
config/celery.py (the one place for schedules; nothing of it lives in the database), plus a
heartbeat on every turn of the loop, so /healthz can tell that beat itself is alive,
independently of the worker. Every scheduled task runs every tick, so nothing needs to
survive a restart of beat."""

from __future__ import annotations

import logging

from celery.beat import Scheduler

from live import heartbeat
from live.outages import is_outage

log = logging.getLogger(__name__)


class HeartbeatScheduler(Scheduler):
    def apply_entry(self, entry, producer=None):
        """As celery's, but a task that cannot be sent (the broker away) is one warning line:
        the next tick sends it again, and /healthz says Redis is down."""
        try:
            self.apply_async(entry, producer=producer, advance=False)
        except Exception as error:
            if not is_outage(error):
                raise
            log.warning("could not send %s: %s", entry.task, error)

    def tick(self, *args, **kwargs):
        try:
            heartbeat.record(heartbeat.BEAT)
        except Exception:  # Redis briefly away: beat keeps scheduling, /healthz will say so
            log.warning("could not record beat heartbeat (Redis away?)")
        # Never sleep longer than a tick, so the heartbeat stays fresh.
        return min(super().tick(*args, **kwargs), 1.0)
