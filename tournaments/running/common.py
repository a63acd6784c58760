"""What every step of a running tournament shares: its lock, its next due instant, the round's time
(RULES 4.8, 4.9), the points of a game (RULES 4.6)."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings

from events import ending
from games.models import GameResult
from live import locks
from tournaments.models import Round, Tournament

# RULES 4.9: after the announced end, games still open get ten more minutes.
GRACE = ending.GRACE


POINTS = {  # RULES 4.6, per game, (white, black)
    GameResult.WHITE_WINS: (2, 0),
    GameResult.BLACK_WINS: (0, 2),
    GameResult.DRAW: (1, 1),
    GameResult.NOBODY_SCORES: (0, 0),
}


def round_pause() -> timedelta:
    """RULES 4.8 Decision: 30 s between rounds, a setting."""
    return timedelta(seconds=settings.ROUND_PAUSE_SECONDS)


def round_slot(tournament: Tournament) -> timedelta:
    """RULES 4.9 Decision: 2 × the estimated duration (× 2 again with double games) + pause."""
    estimated = tournament.time_control.estimated_seconds
    return timedelta(seconds=2 * estimated * tournament.legs) + round_pause()


_ms = ending.ms


def _locked(tournament_id: int) -> Tournament:
    return locks.lock_one(Tournament, tournament_id, locks.Rank.EVENT)


def _next_due(tournament: Tournament, rnd: Round | None) -> datetime | None:
    """When the tick must look at the tournament next (`Event.next_due_at`).

    Scheduled: at its start. During a round: at the end of the grace (RULES 4.9; the round's
    own end comes from its last game, `tournament_game_finished`). After a round: at once if it
    was the last, else after the pause (RULES 4.8), or at the announced end if that comes
    first (no round starts after it). Finished or cancelled: never."""
    if tournament.status == Tournament.Status.SCHEDULED:
        return tournament.starts_at
    if tournament.status != Tournament.Status.RUNNING:
        return None
    if rnd is None or rnd.ended_at is None:
        return tournament.announced_end + GRACE
    if rnd.number >= tournament.total_rounds:
        return rnd.ended_at
    return min(rnd.ended_at + round_pause(), tournament.announced_end)


def _reschedule(tournament: Tournament, rnd: Round | None) -> None:
    tournament.next_due_at = _next_due(tournament, rnd)
    Tournament.objects.filter(pk=tournament.pk).update(next_due_at=tournament.next_due_at)
