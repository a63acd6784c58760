"""The site's ASGI application as the suite's daphne serves it (`tests.processes`), never in
production: `config.asgi:application`, with the content types' cache emptied as each request
starts.

Between transactional tests pytest-django flushes the database, and the flush's post_migrate
recreates the content types with new ids; daphne lives through the whole session, so its
ContentType cache would keep the old ids, and a write that names one (the admin's log of a
change, a game opened for an event) would point at a content type that no longer exists. The
Celery worker has the same hook per task (tests/celery_hooks.py).
"""

from __future__ import annotations

from django.core.signals import request_started

from config.asgi import application  # noqa: F401  (what daphne serves)


def _fresh_content_types(**_kwargs) -> None:
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()


request_started.connect(_fresh_content_types, weak=False)
