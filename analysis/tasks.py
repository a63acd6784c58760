"""The analysis's Celery tasks (STYLE 5), routed to the analysis worker's own queue
(config/celery.py: `analysis.*`), never taken by the tick's worker."""

from __future__ import annotations

from celery import shared_task

from analysis import services


@shared_task(name="analysis.run", ignore_result=True)
def run(analysis_id: int) -> None:
    """A requested game analysis: the engine over every position (safe to run twice)."""
    services.analysis_run(analysis_id=analysis_id)


@shared_task(name="analysis.position", ignore_result=True)
def position(token: str, fen: str) -> None:
    """The free analysis board's question about one position: the answer waits in the cache
    under `token` for the page that asked (analysis/board.py)."""
    services.position_evaluate(token=token, fen=fen)
