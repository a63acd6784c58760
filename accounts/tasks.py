"""The accounts' Celery tasks (STYLE 5: adapters that call one service and are safe to run
twice); scheduled in config/celery.py."""

from __future__ import annotations

from celery import shared_task

from accounts import archive


@shared_task(name="accounts.archives", ignore_result=True)
def archives_build(chain: bool = False) -> None:
    """One step of the data archives (a page of games at most), the next queued while work is
    left; from beat, it starts again a build whose chain of runs was lost."""
    archive.archives_build(chain=chain)


@shared_task(name="accounts.archives_cleanup", ignore_result=True)
def archives_cleanup() -> None:
    """Archives kept past DATA_ARCHIVE_KEEP_HOURS lose their file."""
    archive.archives_cleanup()
