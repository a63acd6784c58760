"""Loaded into the suite's Celery worker (`tests.processes.Processes.start_worker`, with
`--include`), never in production.

Between transactional tests pytest-django flushes the database, and the flush's post_migrate
recreates the content types with new ids; the worker lives through the whole session, so its
ContentType cache would keep the old ids, and the next game it opens for an event would point
at a content type that no longer exists. Each task starts with the cache empty instead.
"""

from __future__ import annotations

from celery.signals import task_prerun


@task_prerun.connect(weak=False)
def _fresh_content_types(**_kwargs) -> None:
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()
