"""Fair play's writes (STYLE 2): a focus lost during one's own turn (RULES 15.2), the staff's
"under review" mark (RULES 15.4) and their annulment of a player's results (RULES 15.5).

Locking contract: neither write locks a row. A focus loss is one INSERT … ON CONFLICT DO
NOTHING on (game, player, ply) decided from one plain read of the game: a move played between
the read and the insert at worst files the loss under the ply the player saw, which is what it
was. A mark is one upsert on (kind, event, player); two staff at once leave the last one's.
An annulment is the kind's, under its event row's lock (`review_annul`).
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import throttle
from events import kinds
from events.services import EventError
from fairplay.models import FocusLoss, Review
from fairplay.selectors import event_player_ids
from games.models import Game
from games.models import Status as GameStatus
from live import locks

logger = logging.getLogger(__name__)

# RULES 15.2: what one player's pages may report, all games together. A page sends at most one
# report every few seconds (static/js/focus-watch.js); more is a broken or hostile client.
FOCUS_REPORTS = 30
FOCUS_WINDOW_SECONDS = 60


def focus_lost_record(*, game_id: int, user: Any) -> bool:
    """The page of `user` lost the focus in game `game_id`. Stored only if the game is live,
    of an event, `user` plays it and it is their turn (their clock runs); once per turn.
    Returns whether it was their turn (stored now or before). Over the rate bound, or with
    the counter unreachable, nothing is stored (fails closed: a weak signal is not worth a
    write the site cannot bound)."""
    if not getattr(user, "is_authenticated", False):
        return False
    try:
        wait, _counter = throttle.count_in_order(
            [throttle.Counter(f"fairplay:focus:{user.pk}", FOCUS_REPORTS, FOCUS_WINDOW_SECONDS)]
        )
    except throttle.ThrottleUnavailable:
        return False
    if wait:
        return False
    row = (
        Game.objects.filter(pk=game_id)
        .values("white_id", "black_id", "status", "event_type_id", "clock_running", "ply")
        .first()
    )
    if row is None or row["status"] != GameStatus.LIVE or row["event_type_id"] is None:
        return False
    if user.pk == row["white_id"]:
        colour = "white"
    elif user.pk == row["black_id"]:
        colour = "black"
    else:
        return False
    if row["clock_running"] != colour:
        return False  # RULES 15.2: only during one's own turn
    FocusLoss.objects.bulk_create(
        [FocusLoss(game_id=game_id, player_id=user.pk, ply=row["ply"])], ignore_conflicts=True
    )
    return True


def review_set(*, kind: str, event: Any, player_id: int, under_review: bool, by: Any) -> Review:
    """RULES 15.4: the staff mark a player of `event` "under review", or take the mark off.
    Only staff (PermissionDenied otherwise); only a player of one of the event's games
    (ValueError otherwise)."""
    if not getattr(by, "is_staff", False):
        raise PermissionDenied("only the staff mark a player under review")
    if player_id not in event_player_ids(event):
        raise ValueError("not a player of this event")
    with locks.atomic():
        review, _created = Review.objects.update_or_create(
            kind=kind,
            event_id=event.pk,
            player_id=player_id,
            defaults={"under_review": under_review, "changed_by": by},
        )
    logger.info(
        "fair play: player %s of %s %s %s by %s",
        player_id,
        kind,
        event.pk,
        "under review" if under_review else "no longer under review",
        by.pk,
    )
    return review


def review_annul(*, kind: str, event: Any, player_id: int, by: Any) -> Review:
    """RULES 15.5: the staff annul a player's results in `event`, before it is rated. The kind
    of event does it (`events.kinds.EventKind.annul`, under its event's row lock, which comes
    first in the site's order), then the review row records when and by whom, in the same
    transaction: both or neither. Raises PermissionDenied for anyone but the staff, EventError
    when the kind cannot (an arena, a tournament not running, not a player of it)."""
    if not getattr(by, "is_staff", False):
        raise PermissionDenied("only the staff annul results")
    event_kind = kinds.by_code(kind)
    if event_kind is None or event_kind.annul is None:
        raise EventError("no_annul", _("In questo tipo di evento i risultati non si annullano."))
    with locks.atomic():
        event_kind.annul(event_id=event.pk, player_id=player_id)
        review, _created = Review.objects.get_or_create(
            kind=kind, event_id=event.pk, player_id=player_id
        )
        if review.annulled_at is None:
            review.annulled_at = timezone.now()
            review.changed_by = by
            review.save(update_fields=["annulled_at", "changed_by", "changed_at"])
    logger.info(
        "fair play: results of %s in %s %s annulled by %s", player_id, kind, event.pk, by.pk
    )
    return review
