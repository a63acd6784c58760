"""Throttled pushes (a busy arena): at most one at once per window, and the last never lost."""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache

from live import pushes, tasks


def test_a_burst_gives_one_push_at_once_and_one_at_the_end_of_the_window(monkeypatch):
    """Counted in the real Redis; fails if every push goes out (no throttle) or if the pushes
    after the first are dropped (no trailing push)."""
    cache.clear()
    group = f"throttle-test-{time.time_ns()}"
    sent, scheduled = [], []
    monkeypatch.setattr(pushes, "group_send", lambda g, m: sent.append(g))
    monkeypatch.setattr(
        tasks.push,
        "apply_async",
        lambda args, countdown, retry: scheduled.append((args, countdown)),
    )
    for _ in range(10):
        pushes._send_throttled(group, {"type": "x.changed"}, 200)
    assert sent == [group]  # the first at once
    # Every change is counted, pushed at once or not (events/shared_part.py).
    assert pushes.pushes_so_far(group) == 10
    assert scheduled == [([group, {"type": "x.changed"}], 0.2)]  # one trailing, at the window end
    time.sleep(0.25)  # the window (a Redis expiry) passes: the next push goes at once again
    pushes._send_throttled(group, {"type": "x.changed"}, 200)
    assert sent == [group, group]
    assert pushes.pushes_so_far(group) == 11


@pytest.mark.django_db
def test_the_trailing_task_pushes(monkeypatch):
    sent = []
    group = f"trailing-test-{time.time_ns()}"
    monkeypatch.setattr(pushes, "group_send", lambda g, m: sent.append((g, m)))
    tasks.push(group=group, message={"type": "x.changed"})
    assert sent == [(group, {"type": "x.changed"})]
    assert pushes.pushes_so_far(group) == 0  # its changes were counted when they came


def test_with_redis_away_a_count_is_unknown_and_the_push_still_goes(monkeypatch, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    sent = []
    monkeypatch.setattr(pushes, "group_send", lambda g, m: sent.append(g))
    pushes.group_send_counted("g", {"type": "x.changed"})
    assert sent == ["g"] and pushes.pushes_so_far("g") is None
