"""/healthz against the real services: PostgreSQL, Redis, a Celery worker and beat."""

from __future__ import annotations

import time

import pytest
from django.test import override_settings

from harness import free_port, wait_until
from live import heartbeat

pytestmark = pytest.mark.django_db


def test_healthz_all_up_with_real_worker_and_beat(client, background):
    response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert body["database"] == {"up": True, "vendor": "postgresql"}
    assert body["redis"]["up"] and body["worker"]["up"] and body["beat"]["up"]
    assert body["worker"]["seconds_ago"] < 5 and body["beat"]["seconds_ago"] < 5


def test_worker_heartbeat_comes_from_the_tick_task(background):
    """Stop the worker: beat keeps beating, the worker's heartbeat goes stale."""
    assert heartbeat.age(heartbeat.WORKER) < 5
    background.stop("worker")
    try:
        wait_until(lambda: heartbeat.age(heartbeat.WORKER) > 2, timeout=10, what="a stale worker")
        assert heartbeat.age(heartbeat.BEAT) < 2  # beat beats on
    finally:
        background.start_worker()
        wait_until(
            lambda: (heartbeat.age(heartbeat.WORKER) or 99) < 2, timeout=60, what="the worker back"
        )


def test_beat_records_its_heartbeat_at_most_twice_a_second_not_at_every_turn(background):
    """config/beat.py: the loop turns dozens of times a second around the tasks' due times;
    a write of the heartbeat at each turn would be dozens of Redis writes a second."""
    seen = set()
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        seen.add(heartbeat.client().get(heartbeat.key(heartbeat.BEAT)))
        time.sleep(0.01)
    # Every 0.5 s at most, at the first turn after it (a turn waits up to a second): two to
    # six values in 3 s, where every turn's write gave dozens.
    assert 2 <= len(seen) <= 7, len(seen)


def test_healthz_redis_down_is_503(client):
    with override_settings(REDIS_URL=f"redis://127.0.0.1:{free_port()}/0"):
        response = client.get("/healthz")
    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "down"
    assert body["redis"]["up"] is False and "error" in body["redis"]
    assert body["worker"]["up"] is False and body["beat"]["up"] is False
    assert body["database"]["up"] is True


def test_healthz_stale_heartbeats_are_503(client, settings):
    # A key prefix of our own, so the session's live worker and beat do not refresh it.
    settings.CACHES = {
        "default": {**settings.CACHES["default"], "KEY_PREFIX": "healthz-stale-test"}
    }
    heartbeat.record(heartbeat.WORKER, now=time.time() - 60)
    heartbeat.record(heartbeat.BEAT, now=time.time())
    body = client.get("/healthz").json()
    assert body["worker"] == {"up": False, "seconds_ago": 60.0} or (
        body["worker"]["up"] is False and body["worker"]["seconds_ago"] >= 60
    )
    assert body["beat"]["up"] is True
    assert client.get("/healthz").status_code == 503
    heartbeat.client().delete(heartbeat.key(heartbeat.BEAT))
    assert client.get("/healthz").json()["beat"] == {"up": False, "error": "no heartbeat yet"}
