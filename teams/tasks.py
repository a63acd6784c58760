"""The team matches' Celery tasks (scheduled in config/celery.py): adapters that call one
service and are safe to run twice."""

from __future__ import annotations

from celery import shared_task

from teams import leagues, services


@shared_task(name="teams.due", ignore_result=True)
def due_process() -> None:
    """Every tick: start the matches whose start has come (RULES 16.4); start the leagues whose
    start has come, pair a Swiss's next round, end the leagues played out (RULES 16.8). The
    leagues first: a round they make may be due at once."""
    try:
        leagues.leagues_due_process()
    finally:  # the matches start whatever happened to the leagues
        services.matches_due_process()
