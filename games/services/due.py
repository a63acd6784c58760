"""The games' due work, from the database state (the periodic tick, `games.tasks`): flags,
abandonment, never-sat games, and settling finished games whose `game_finished` was lost.

Each step locks the game row like every other writer and is safe to run twice: the second run
finds the game finished (or settled) and does nothing.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games.models import EndReason, Game, GameResult, Status
from games.rules import Color
from games.services.acting import end_game, flag_if_due, has_moved, save_and_push, win_for
from games.services.presence import presence_sweep
from games.services.state import now_ms, push_settled_on_commit
from games.services.store import lock_game
from games.signals import game_finished
from live import locks

logger = logging.getLogger(__name__)

# RULES 3: after one's first move, 30 s away loses the game by abandonment.
ABANDON_AFTER_MS = settings.GAME_ABANDON_SECONDS * 1000
# A finished game not settled this long after its end lost its settle task (a worker killed,
# the broker away): the tick settles it.
SETTLE_AFTER = timedelta(seconds=10)


def game_flag(*, game_id: int, at_ms: int | None = None) -> bool:
    """End the game on time if a flag has fallen. Returns whether this call ended the game."""
    at = now_ms() if at_ms is None else at_ms
    with locks.atomic():
        game = lock_game(game_id)
        if not game.is_live or not flag_if_due(game, at):
            return False
        save_and_push(game, at)
        return True


def game_abandon(*, game_id: int, at_ms: int | None = None) -> bool:
    """End the game by abandonment if a player who has moved is away for 30 s (RULES 3).

    A fallen flag is judged first (it came earlier or at the same time)."""
    at = now_ms() if at_ms is None else at_ms
    with locks.atomic():
        game = lock_game(game_id)
        if not game.is_live:
            return False
        if flag_if_due(game, at):
            save_and_push(game, at)
            return True
        for color in (Color.WHITE, Color.BLACK):
            away = getattr(game, f"{color.value}_away_since_ms")
            if away is None or getattr(game, f"{color.value}_connections") > 0:
                continue
            if not has_moved(game, color) or at - away < ABANDON_AFTER_MS:
                continue
            end_game(
                game,
                result=win_for(color.opponent),
                reason=EndReason.ABANDONMENT,
                at_ms=away + ABANDON_AFTER_MS,
            )
            save_and_push(game, at)
            return True
        return False


def game_end_by_event(*, game_id: int, at_ms: int | None = None, rated: bool | None = None) -> bool:
    """End a live game because its event closed (RULES 4.9: drawn after the grace).

    A flag already fallen is judged first. A game neither player ever sat at closes 0–0,
    unplayed, like any such game (RULES 4.7 case 3), not drawn. `rated=False` takes the rating
    away (an event cancelled by staff rates nothing). Returns whether this call ended it."""
    at = now_ms() if at_ms is None else at_ms
    with locks.atomic():
        game = lock_game(game_id)
        if not game.is_live:
            return False
        if rated is not None:
            game.rated = rated and game.rated
        if not flag_if_due(game, at):
            if not game.white_sat and not game.black_sat:
                end_game(
                    game, result=GameResult.NOBODY_SCORES, reason=EndReason.BOTH_ABSENT, at_ms=at
                )
            else:
                end_game(game, result=GameResult.DRAW, reason=EndReason.EVENT_END, at_ms=at)
        save_and_push(game, at)
        return True


def game_settle(*, game_id: int) -> bool:
    """Send `game_finished` for a finished game not yet settled, then mark it settled.

    The receivers (events, ratings) are idempotent, so a game settled twice by a race is
    harmless; a receiver that fails leaves the game unsettled, and the tick tries again.
    Returns whether every receiver ran."""
    game = Game.objects.select_related("white", "black").filter(pk=game_id).first()
    if game is None or game.status != Status.FINISHED or game.settled:
        return False
    failed = False
    for _receiver, response in game_finished.send_robust(sender=Game, game=game):
        if isinstance(response, Exception):
            failed = True
            logger.error("game_finished receiver failed for game %s", game_id, exc_info=response)
    if failed:
        return False
    Game.objects.filter(pk=game_id).update(settled=True)
    push_settled_on_commit(game_id)
    return True


def games_settle_due(*, now=None) -> list[int]:
    """Settle the finished games whose settle task never ran (oldest first)."""
    now = now or timezone.now()
    ids = Game.objects.filter(
        status=Status.FINISHED, settled=False, finished_at__lte=now - SETTLE_AFTER
    ).order_by("finished_at", "pk")
    settled = []
    for game_id in list(ids.values_list("pk", flat=True)[:500]):
        try:
            if game_settle(game_id=game_id):
                settled.append(game_id)
        except Exception:
            logger.exception("settling game %s failed", game_id)
    return settled


def games_due_process(*, at_ms: int | None = None) -> list[int]:
    """Run every due check (flags, abandonment; never-sat is a flag with nobody sat) from the
    database state. Each game is checked in its own transaction, so one failure does not stop
    the others. Returns the ids of the games it ended."""
    at = now_ms() if at_ms is None else at_ms
    ended: list[int] = []
    try:
        presence_sweep(at_ms=at)  # first: a dead process's players become away
    except Exception:
        logger.exception("presence sweep failed")
    flag_ids = Game.objects.filter(status=Status.LIVE, flag_at_ms__lte=at).values_list(
        "pk", flat=True
    )
    for game_id in list(flag_ids):
        try:
            if game_flag(game_id=game_id, at_ms=at):
                ended.append(game_id)
        except Exception:
            logger.exception("flag check failed for game %s", game_id)
    threshold = at - ABANDON_AFTER_MS
    away_ids = Game.objects.filter(
        Q(white_away_since_ms__lte=threshold, white_connections=0)
        | Q(black_away_since_ms__lte=threshold, black_connections=0),
        status=Status.LIVE,
    ).values_list("pk", flat=True)
    for game_id in list(away_ids):
        try:
            if game_abandon(game_id=game_id, at_ms=at):
                ended.append(game_id)
        except Exception:
            logger.exception("abandonment check failed for game %s", game_id)
    return ended
