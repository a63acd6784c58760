"""The end of an event (RULES 4.9, 8): the grace, and ending the games still open."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.contrib.contenttypes.models import ContentType

from games import services as games
from games.models import Game, Status

# RULES 4.9 (and §8 for arenas): after the announced end, games still open get ten minutes.
GRACE = timedelta(minutes=10)


def ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def grace_over(announced_end: datetime, now: datetime) -> bool:
    return now >= announced_end + GRACE


def live_game_ids(event) -> list[int]:
    """The event's games still being played, in id order (the lock order of games)."""
    content_type = ContentType.objects.get_for_model(event)
    rows = Game.objects.filter(event_type=content_type, event_id=event.pk, status=Status.LIVE)
    return list(rows.order_by("pk").values_list("pk", flat=True))


def end_live_games(event, *, now: datetime, rated: bool | None = None) -> list[int]:
    """End every game of the event still being played (`games.game_end_by_event`: a flag
    already fallen is judged first, a game nobody sat at closes 0–0, the rest are drawn);
    `rated=False` when the event is cancelled (nothing rated). Safe to run twice. Called under
    the event's row lock, which comes before the games' in the lock order (`live.locks`)."""
    ended = []
    for game_id in live_game_ids(event):
        if games.game_end_by_event(game_id=game_id, at_ms=ms(now), rated=rated):
            ended.append(game_id)
    return ended
