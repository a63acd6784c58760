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
    # Every change is counted, pushed at once or not, and the first marked pushed
    # (events/shared_part.py).
    assert pushes.pushes_so_far(group) == 10
    assert pushes.pushes_so_far(group, pushed=True) == 1
    assert scheduled == [([group, {"type": "x.changed"}], 0.2)]  # one trailing, at the window end
    time.sleep(0.25)  # the window (a Redis expiry) passes: the next push goes at once again
    pushes._send_throttled(group, {"type": "x.changed"}, 200)
    assert sent == [group, group]
    assert pushes.pushes_so_far(group) == pushes.pushes_so_far(group, pushed=True) == 11


@pytest.mark.django_db
def test_the_trailing_task_pushes(monkeypatch):
    sent = []
    group = f"trailing-test-{time.time_ns()}"
    monkeypatch.setattr(pushes, "group_send", lambda g, m: sent.append((g, m)))
    for _ in range(3):  # changes counted inside the window, not pushed at once
        pushes.count_push(group)
    assert pushes.pushes_so_far(group, pushed=True) == 0
    tasks.push(group=group, message={"type": "x.changed"})
    assert sent == [(group, {"type": "x.changed"})]
    # It carries them all and counts none more.
    assert pushes.pushes_so_far(group) == pushes.pushes_so_far(group, pushed=True) == 3


def test_the_pushed_count_never_goes_back():
    """Two processes marking out of order (the later count marked first) leave the larger."""
    group = f"marks-test-{time.time_ns()}"
    pushes.count_push(group)
    pushes.mark_pushed(group, more=1)
    assert pushes.pushes_so_far(group, pushed=True) == 2
    pushes.count_push(group)
    pushes.mark_pushed(group)
    assert pushes.pushes_so_far(group, pushed=True) == 3


def test_with_redis_away_a_count_is_unknown_and_the_push_still_goes(monkeypatch, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    sent = []
    monkeypatch.setattr(pushes, "group_send", lambda g, m: sent.append(g))
    pushes.group_send_counted("g", {"type": "x.changed"})
    assert sent == ["g"] and pushes.pushes_so_far("g") is None
    assert pushes.pushes_so_far("g", pushed=True) is None
