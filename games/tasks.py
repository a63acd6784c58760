"""The games' Celery tasks (STYLE 5: adapters that take ids, call one service, and are safe to
run twice). Their schedule is declared in config/celery.py, the one place for schedules."""

from __future__ import annotations

from celery import shared_task

from games.services import due, pools


@shared_task(name="games.due", ignore_result=True)
def due_process() -> None:
    """Every tick: flags, abandonment and never-sat games (RULES 3), then finished games whose
    settle task was lost."""
    due.games_due_process()
    due.games_settle_due()


@shared_task(name="games.settle", ignore_result=True)
def settle(game_id: int) -> None:
    """Sent after the commit that ended a game: `game_finished` for its events and ratings."""
    due.game_settle(game_id=game_id)


@shared_task(name="games.pools", ignore_result=True)
def pools_pair() -> None:
    """Every tick: a quick-pairing pass over every pool where two or more wait (their rating
    ranges widen with the wait), and waits of players gone for good dropped."""
    pools.pools_pair_due()
