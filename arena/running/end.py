"""The end of an arena (RULES 8): games past the grace scored, the final ranks, the rating of its
games; staff's edits and cancellation of a running arena."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from arena import selectors
from arena.engine.sheet import sheet
from arena.models import Arena, ArenaGame, EndReason, Entry
from events import ending
from games.models import Game, Status
from live import locks

from .common import _locked, _reschedule, changed_on_commit, players_told_on_commit


def _rescore(entry_ids: list[int]) -> None:
    """Recompute the entries' cached points from their sheets (never incremented)."""
    results = selectors.results_of(entry_ids)
    for entry_id in entry_ids:
        s = sheet(results[entry_id])
        Entry.objects.filter(pk=entry_id).update(
            points=s.points, wins=s.wins, games=s.games, on_streak=s.on_streak
        )


def _end_if_done(arena: Arena, now: datetime) -> bool:
    """At the end nobody new is paired; the games in progress get the grace (RULES 4.9, 8);
    after it every game still open is drawn (0–0 if neither player ever sat). The arena closes
    when its last game is scored."""
    arena.pairing_due_at = None
    if ending.grace_over(arena.ends_at, now):
        ending.end_live_games(arena, now=now)
        for arena_game in ArenaGame.objects.filter(arena=arena, ended_at__isnull=True):
            _score_ended(arena, arena_game, now)
    if ArenaGame.objects.filter(arena=arena, ended_at__isnull=True).exists():
        _reschedule(arena, now)
        return False
    _finish(arena, EndReason.TIME_UP, now)
    return True


def _score_ended(arena: Arena, arena_game: ArenaGame, now: datetime) -> None:
    """Score a game ended here at the close (its own settle comes later and finds it done)."""
    game = Game.objects.get(pk=arena_game.game_id)
    if game.status != Status.FINISHED:
        return
    arena_game.ended_at = game.finished_at or now
    arena_game.save(update_fields=["ended_at"])
    _rescore([arena_game.white_id, arena_game.black_id])


def _finish(arena: Arena, reason: str, now: datetime) -> None:
    """Close with the final ranking (points, then wins; ties share) and its podium."""
    arena.status = Arena.Status.FINISHED
    arena.finished_at = now
    arena.end_reason = reason
    arena.pairing_due_at = None
    arena.next_due_at = None
    arena.save(
        update_fields=["status", "finished_at", "end_reason", "pairing_due_at", "next_due_at"]
    )
    for entry_id, rank in selectors.entry_ranks(arena).items():
        Entry.objects.filter(pk=entry_id).update(rank=rank)
    changed_on_commit(arena.pk)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))


@locks.atomic
def arena_staff_saved(*, arena_id: int, now: datetime | None = None) -> None:
    """Staff saved the arena in the admin (its start, its duration hence its end): put it into
    the tick's schedule at once (an end moved into the past closes it and ends its games at
    the grace's end, not later) and tell the open pages and the players, like the opener's
    edits."""
    now = now or timezone.now()
    arena = _locked(arena_id)
    if arena.is_live:
        _reschedule(arena, now)
    changed_on_commit(arena.pk)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))


def cancel_running(arena: Arena, now: datetime) -> None:
    """Staff cancel a running arena (the admin action; the caller holds the row lock): every
    game still live is drawn at once and not rated, nothing is paired after this."""
    arena.status = Arena.Status.CANCELLED
    arena.cancelled_at = now
    arena.end_reason = EndReason.BY_STAFF
    arena.pairing_due_at = None
    arena.next_due_at = None
    arena.save(
        update_fields=["status", "cancelled_at", "end_reason", "pairing_due_at", "next_due_at"]
    )
    ending.end_live_games(arena, now=now, rated=False)
    changed_on_commit(arena.pk)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))
