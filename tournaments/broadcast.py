"""Tournament page pushes: a short "changed" message; the page re-fetches its fragment
(STYLE 4, 7). Only services call this, and only through `transaction.on_commit`."""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import transaction

log = logging.getLogger(__name__)


def group_name(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"


def _send(tournament_id: int, round_number: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(
            group_name(tournament_id),
            {"type": "tournament.changed", "round": round_number},
        )
    except Exception:  # a push lost is a page a little late, never a failed write
        log.exception("tournament %s: push failed", tournament_id)


def changed_on_commit(tournament_id: int, round_number: int = 0) -> None:
    """Announce after commit; every message carries the round (0 before the start, STYLE 4)."""
    transaction.on_commit(lambda: _send(tournament_id, round_number))
