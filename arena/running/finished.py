"""An arena game ends (the `game_finished` router, in a worker): the score sheet, the players
waiting again, a pass asked for."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from arena import selectors
from arena.engine.sheet import Outcome
from arena.models import Arena, ArenaGame, EntryState, PauseReason
from games.models import EndReason as GameEndReason
from games.models import Status
from games.rules import Color, variant
from live import locks

from . import timings
from .common import _locked, changed_on_commit, players_told_on_commit, request_pairing
from .end import _end_if_done, _rescore


@locks.atomic
def arena_game_finished(*, game_id: int, now: datetime | None = None) -> bool:
    """An arena game ended (from the `game_finished` router, in a worker): score it on both
    sheets, pause a player who lost without ever moving, and ask for a pass. Safe to run
    twice."""
    found = selectors.arena_game_of(game_id)
    if found is None:
        return False
    asked = timings.now()  # the settle's start, then the arena's lock taken
    arena = _locked(found.arena_id)
    locked = timings.now()
    arena_game = ArenaGame.objects.select_related("game", "white", "black").get(pk=found.pk)
    game = arena_game.game
    if arena_game.ended_at is not None or game.status != Status.FINISHED:
        return False
    now = now or max(timezone.now(), game.finished_at or timezone.now())
    arena_game.ended_at = game.finished_at or now
    arena_game.save(update_fields=["ended_at"])
    _rescore([arena_game.white_id, arena_game.black_id])
    first = variant(game.variant).side_to_move(game.start_fen)
    for entry, color in ((arena_game.white, Color.WHITE), (arena_game.black, Color.BLACK)):
        moved = game.ply >= (1 if color is first else 2)
        lost = selectors.outcome_for(game.result, color is Color.WHITE) in (
            Outcome.LOSS,
            Outcome.NIL,
        )
        # RULES 8 Decision: a player who loses without ever making a move (never sat, flagged
        # or gone before it) is paused, so absent players stop being paired; the page tells
        # them when they come back. Resigning at once is a choice made at the board: not absent.
        absent = lost and not moved and game.reason != GameEndReason.RESIGNATION
        if absent and entry.state == EntryState.ACTIVE:
            entry.state, entry.pause_reason = EntryState.PAUSED, PauseReason.ABSENT
        entry.waiting_since = now
        entry.save(update_fields=["state", "pause_reason", "waiting_since"])
    if arena.status == Arena.Status.RUNNING:
        if now < arena.ends_at:
            request_pairing(arena, now, waiting_from=arena_game.ended_at)
        else:
            _end_if_done(arena, now)
    changed_on_commit(arena.pk)
    players_told_on_commit([arena_game.white.player_id, arena_game.black.player_id])
    if game.finished_at is not None:
        timings.game_scored(
            arena_id=arena.pk,
            game_id=game_id,
            finished_at=game.finished_at,
            asked=asked,
            locked=locked,
            pass_due=arena.pairing_due_at,
        )
    return True
