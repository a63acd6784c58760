"""Heartbeats of the background processes, kept in Redis.

The Celery worker records one each time it runs the tick task; Celery beat records one each
time its scheduler loop turns (config/beat.py). /healthz reads their ages: a process whose
heartbeat is older than HEARTBEAT_STALE_SECONDS is reported down.
"""

from __future__ import annotations

import time
from functools import lru_cache

import redis
from django.conf import settings

WORKER = "worker"
BEAT = "beat"


@lru_cache(maxsize=4)
def _client(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)


def client() -> redis.Redis:
    return _client(settings.REDIS_URL)


def prefixed(name: str) -> str:
    """A Redis key of this install (CACHE_PREFIX, so several installs can share one Redis)."""
    return f"{settings.CACHES['default']['KEY_PREFIX']}:{name}"


def key(name: str) -> str:
    return prefixed(f"heartbeat:{name}")


def record(name: str, now: float | None = None) -> None:
    client().set(key(name), repr(now if now is not None else time.time()), ex=3600)


def age(name: str, now: float | None = None) -> float | None:
    """Seconds since the last heartbeat, or None if there never was one (or it expired)."""
    raw = client().get(key(name))
    if raw is None:
        return None
    return max(0.0, (now if now is not None else time.time()) - float(raw))
