"""Celery beat's scheduler (config/beat.py): how long a turn of its loop waits."""

from __future__ import annotations

import pytest
from celery.beat import Scheduler

from config.beat import NOT_YET_DUE_WAIT_SECONDS, HeartbeatScheduler
from config.celery import app


@pytest.mark.parametrize(
    ("celery_says", "beat_waits"),
    [
        # An entry due by celery's heap but not yet by its schedule: a short wait, not a spin.
        (-0.0032, NOT_YET_DUE_WAIT_SECONDS),
        (0, 0),  # a task was sent: the next may be due at once
        (0.4, 0.4),
        (300.0, 1.0),  # never longer than a tick, so the heartbeat stays fresh
    ],
)
def test_a_turn_of_beat_never_spins_nor_sleeps_past_a_tick(monkeypatch, celery_says, beat_waits):
    monkeypatch.setattr(Scheduler, "tick", lambda self, *args, **kwargs: celery_says)
    assert HeartbeatScheduler(app=app, lazy=True).tick() == beat_waits
