"""Throttling of failed log-ins.

After LOGIN_FAILURE_LIMIT failures within LOGIN_FAILURE_WINDOW seconds, further attempts for
that username — or from that address, whatever the username — are refused until the window
passes. Counters live in the cache (Redis), so every daphne process sees the same ones.
"""

from __future__ import annotations

import hashlib
import time

from django.conf import settings
from django.core.cache import cache


def _keys(username: str, address: str) -> list[str]:
    name = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
    return [f"login-fail:user:{name}", f"login-fail:addr:{address}"]


def seconds_blocked(username: str, address: str) -> int:
    """How long this attempt must wait (0: it may go ahead)."""
    now = time.time()
    wait = 0.0
    for key in _keys(username, address):
        entry = cache.get(key)
        if entry and entry["count"] >= settings.LOGIN_FAILURE_LIMIT:
            wait = max(wait, entry["since"] + settings.LOGIN_FAILURE_WINDOW - now)
    return max(0, int(wait + 0.999))


def record_failure(username: str, address: str) -> None:
    now = time.time()
    for key in _keys(username, address):
        entry = cache.get(key)
        if not entry or entry["since"] + settings.LOGIN_FAILURE_WINDOW < now:
            entry = {"count": 0, "since": now}
        entry["count"] += 1
        cache.set(key, entry, timeout=settings.LOGIN_FAILURE_WINDOW)


def record_success(username: str) -> None:
    cache.delete(_keys(username, "")[0])
