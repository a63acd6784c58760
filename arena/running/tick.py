"""The periodic tick: every arena due now is started, paired or ended, each in its own
transaction."""

from __future__ import annotations

import logging
from datetime import datetime

from django.utils import timezone

from arena.models import Arena

from .advance import arena_advance

log = logging.getLogger(__name__)


def arenas_due_process(*, now: datetime | None = None) -> list[int]:
    """Start, pair or end every arena that is due (one indexed query for what is due)."""
    now = now or timezone.now()
    changed = []
    due = Arena.objects.due(now).order_by("next_due_at", "pk").values_list("pk", flat=True)
    for arena_id in list(due):
        try:
            if arena_advance(arena_id=arena_id, now=now):
                changed.append(arena_id)
        except Exception:
            log.exception("arena %s: advance failed", arena_id)
    return changed
