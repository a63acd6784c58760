"""The events' Celery task (STYLE 5); scheduled in config/celery.py."""

from __future__ import annotations

from celery import shared_task

from events import reminders


@shared_task(name="events.reminders", ignore_result=True)
def reminders_send() -> None:
    """Every few seconds: remind the players of the events about to start (safe to run twice)."""
    reminders.reminders_due()
