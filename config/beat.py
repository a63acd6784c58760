"""Celery beat's scheduler: celery's own in-memory scheduler over the schedule declared in
config/celery.py (the one place for schedules; nothing of it lives in the database), plus a
heartbeat on every turn of the loop, so /healthz can tell that beat itself is alive,
independently of the worker. Every scheduled task runs every tick, so nothing needs to
survive a restart of beat."""

from __future__ import annotations

import logging
import time

from celery.beat import Scheduler

from live import heartbeat
from live.outages import is_outage

log = logging.getLogger(__name__)

# How often beat records its heartbeat at most. The loop turns far more often than once a
# tick: around each task's due time celery's tick says the entry is due in a few negative
# milliseconds and the loop turns again at once until it is, which was 80 Redis writes a
# second for one heartbeat. Twice a second keeps its age under 1.5 s (a turn waits at most a
# second), far inside HEARTBEAT_STALE_SECONDS.
HEARTBEAT_EVERY_SECONDS = 0.5

# What a turn waits when celery's tick asks for a negative delay. Its heap and an entry's
# schedule disagree by a few milliseconds about when the entry is due (the heap says due, the
# schedule not yet); the negative delay makes its loop turn again at once, some twenty turns
# for each such moment, several times a second: about half of an idle beat's CPU. Waiting
# 5 ms instead costs the task at most those 5 ms.
NOT_YET_DUE_WAIT_SECONDS = 0.005


class HeartbeatScheduler(Scheduler):
    _heartbeat_at = float("-inf")  # time.monotonic() of the last try

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
        now = time.monotonic()
        if now - self._heartbeat_at >= HEARTBEAT_EVERY_SECONDS:
            # Set before the write: with Redis away, one try (and one warning) per interval.
            self._heartbeat_at = now
            try:
                heartbeat.record(heartbeat.BEAT)
            except Exception:  # Redis briefly away: beat keeps scheduling, /healthz will say so
                log.warning("could not record beat heartbeat (Redis away?)")
        interval = super().tick(*args, **kwargs)
        if interval < 0:
            return NOT_YET_DUE_WAIT_SECONDS
        # Never sleep longer than a tick, so the heartbeat stays fresh.
        return min(interval, 1.0)
