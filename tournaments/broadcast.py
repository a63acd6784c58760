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


# What a player's site-wide socket (`/ws/me/`, games.consumers.UserConsumer) is told when their
# tournament game opens or ends, or their tournament cancels itself: the banner re-fetches.
PLAYER_WHAT = "mytournament"


def _send_players(user_ids: list[int]) -> None:
    from games.services import user_group

    layer = get_channel_layer()
    if layer is None:
        return
    for user_id in user_ids:
        try:
            async_to_sync(layer.group_send)(
                user_group(user_id), {"type": "user.changed", "what": PLAYER_WHAT}
            )
        except Exception:  # a banner a little late (the fragment also polls), never a failure
            log.exception("player %s: push failed", user_id)


def players_changed_on_commit(user_ids) -> None:
    """After commit, tell these players' pages that their tournament game changed."""
    targets = sorted(set(user_ids))
    if targets:
        transaction.on_commit(lambda: _send_players(targets))
