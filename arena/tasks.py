"""The arenas' Celery tasks (scheduled in config/celery.py): adapters that take ids, call one
service, and are safe to run twice."""

from __future__ import annotations

from celery import shared_task

from arena import running


@shared_task(name="arena.due", ignore_result=True)
def due_process() -> None:
    """Every tick: start, pair (a pass whose task was lost) or end the arenas that are due."""
    running.arenas_due_process()


@shared_task(name="arena.pair", ignore_result=True)
def pair(arena_id: int) -> None:
    """A coalesced pairing pass, sent for the instant it is due (RULES 8)."""
    running.arena_pair(arena_id=arena_id)
