"""Project-wide periodic tasks."""

from __future__ import annotations

from celery import shared_task

from config import heartbeat


@shared_task(name="config.tasks.tick", ignore_result=True)
def tick() -> None:
    """The periodic tick (every TICK_SECONDS, config/celery.py).

    For now it only records the worker's heartbeat; later issues hang their due-work checks
    here. Each check reads its state from the database and is safe to run twice.
    """
    heartbeat.record(heartbeat.WORKER)
    from games.services import games_due_process  # flags, abandonment, never-sat

    games_due_process()
    from tournaments.running import tournaments_due_process  # RULES 4.3-4.9

    tournaments_due_process()
