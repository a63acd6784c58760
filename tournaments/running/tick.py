"""The periodic tick: every tournament due now is started or advanced, each in its own
transaction."""

from __future__ import annotations

import logging
from datetime import datetime

from django.utils import timezone

from tournaments.models import Tournament

from .advance import tournament_advance
from .start import tournament_start

log = logging.getLogger(__name__)


def tournaments_due_process(*, now: datetime | None = None) -> list[int]:
    """Start or advance every tournament that is due (the periodic tick).

    Only tournaments whose `next_due_at` has come are read (one indexed query), so a tick with
    hundreds of running tournaments and nothing due costs one query. Each is handled in its own
    transaction, so one failure does not stop the others (it stays due: the next tick retries).
    Returns the ids of the tournaments whose state changed.
    """
    now = now or timezone.now()
    changed: list[int] = []
    due = Tournament.objects.due(now).order_by("next_due_at", "pk").values_list("pk", "status")
    for tournament_id, status in list(due):
        step = tournament_start if status == Tournament.Status.SCHEDULED else tournament_advance
        try:
            if step(tournament_id=tournament_id, now=now):
                changed.append(tournament_id)
        except Exception:
            log.exception("tournament %s: %s failed", tournament_id, step.__name__)
    return changed
