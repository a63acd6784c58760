"""A tournament game ends (the `game_finished` router, in a worker): its result scored, the next
leg opened, the round closed when it is the last."""

from __future__ import annotations

from datetime import datetime

from django.db.models import Q
from django.utils import timezone

from games.models import Game
from live import locks
from tournaments.broadcast import changed_on_commit, players_changed_on_commit, result_on_commit
from tournaments.models import Pairing, Tournament

from .common import _locked, _reschedule
from .rounds import _catch_up, _round_end_if_done


@locks.atomic
def tournament_game_finished(*, game_id: int, now: datetime | None = None) -> bool:
    """A tournament game ended (from the `game_finished` router, in a worker): score it, open
    the second game of a double pairing, end the round when it was the last. Safe to run twice.

    Without `now`, the step happens now, and never before the game ended by its own clock
    (a game's clocks may run ahead of the wall clock in tests; in production they agree)."""
    if now is None:
        ended = Game.objects.filter(pk=game_id).values_list("finished_at", flat=True).first()
        now = max(filter(None, (timezone.now(), ended)))
    found = Pairing.objects.filter(Q(game1_id=game_id) | Q(game2_id=game_id)).values_list(
        "round__tournament_id", flat=True
    )
    if not found:
        return False
    tournament = _locked(found[0])
    if tournament.status != Tournament.Status.RUNNING:
        return False
    pairing = (
        Pairing.objects.select_related("round", "white", "black", "game1", "game2")
        .filter(Q(game1_id=game_id) | Q(game2_id=game_id))
        .get()
    )
    changed = _catch_up(tournament, pairing, now)
    round_ended = _round_end_if_done(pairing.round, now)
    if round_ended:
        _reschedule(tournament, pairing.round)
        changed_on_commit(tournament.pk, pairing.round.number)  # the round's end, at once
    elif changed:
        result_on_commit(tournament.pk, pairing.round.number)
    if changed or round_ended:
        players_changed_on_commit([pairing.white.player_id, pairing.black.player_id])
    return changed or round_ended
