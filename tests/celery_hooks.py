"""Loaded into the suite's Celery worker (`tests.processes.Processes.start_worker`, with
`--include`), never in production.

Between transactional tests pytest-django flushes the database, and the flush's post_migrate
recreates the content types with new ids; the worker lives through the whole session, so its
ContentType cache would keep the old ids, and the next game it opens for an event would point
at a content type that no longer exists. Each task starts with the cache empty instead.
"""

from __future__ import annotations

import os
import time

from celery.signals import task_postrun, task_prerun


@task_prerun.connect(weak=False)
def _fresh_content_types(**_kwargs) -> None:
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()


# A test that counts the worker's tasks names a file here (TASKS_DONE_FILE): each task that
# ends adds a line with its name (the worker's own log says nothing below WARNING).
@task_postrun.connect(weak=False)
def _count_done(sender=None, **_kwargs) -> None:
    path = os.environ.get("TASKS_DONE_FILE")
    if path and sender is not None:
        with open(path, "a") as done:
            done.write(f"{sender.name} {time.time():.3f}\n")
