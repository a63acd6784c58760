"""GET /healthz: is every part of the site up?

JSON with the status of the database, Redis, the Celery worker and Celery beat (the latter two
from their heartbeats, live/heartbeat.py); HTTP 200 when all are up, 503 when one is down.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from live import heartbeat


def _check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any failure means "down", and says why
        return {"up": False, "error": str(error).splitlines()[0][:200]}
    return {"up": True, "vendor": connection.vendor}


def _check_redis() -> dict:
    try:
        heartbeat.client().ping()
    except Exception as error:
        return {"up": False, "error": str(error)[:200]}
    return {"up": True}


def _check_heartbeat(name: str, redis_up: bool) -> dict:
    if not redis_up:
        return {"up": False, "error": "redis is down, heartbeat unknown"}
    try:
        age = heartbeat.age(name)
    except Exception as error:
        return {"up": False, "error": str(error)[:200]}
    if age is None:
        return {"up": False, "error": "no heartbeat yet"}
    return {"up": age <= settings.HEARTBEAT_STALE_SECONDS, "seconds_ago": round(age, 1)}


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    redis_status = _check_redis()
    checks = {
        "database": _check_database(),
        "redis": redis_status,
        "worker": _check_heartbeat(heartbeat.WORKER, redis_status["up"]),
        "beat": _check_heartbeat(heartbeat.BEAT, redis_status["up"]),
    }
    healthy = all(check["up"] for check in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "down", **checks}, status=200 if healthy else 503
    )
