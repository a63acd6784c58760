"""The tournaments' Celery task: they run themselves from the tick (RULES 4.3-4.9).
Scheduled in config/celery.py."""

from __future__ import annotations

from celery import shared_task

from tournaments.running import tournaments_due_process


@shared_task(name="tournaments.due", ignore_result=True)
def due_process() -> None:
    tournaments_due_process()
