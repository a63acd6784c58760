"""The tick's step of a running tournament (RULES 4.8, 4.9): the next round after the pause,
catching up on what a lost task left, the end."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone

from events import ending
from events.pairing import lim
from live import locks
from tournaments.broadcast import (
    changed_on_commit,
    players_changed_on_commit,
)
from tournaments.models import EndReason, Tournament

from .common import _locked, _reschedule, round_pause
from .end import _tournament_finish
from .rounds import (
    _catch_up,
    _catch_up_without_opening,
    _open_pairings,
    _round_end_if_done,
    _round_open,
)


@locks.atomic
def tournament_advance(*, tournament_id: int, now: datetime | None = None) -> bool:
    """The tick's step for a running tournament that is due; returns whether it changed
    anything.

    Scores what was not scored yet, ends the round, pairs the next one after the pause, or
    closes the tournament: at the last round, when the announced end has passed, or at the
    announced end plus the grace (open games drawn). Then says when it is due next.
    """
    now = now or timezone.now()
    tournament = _locked(tournament_id)
    if tournament.status != Tournament.Status.RUNNING:
        return False
    rnd = tournament.rounds.get(number=tournament.current_round)
    changed = False
    if rnd.ended_at is None:
        for pairing in _open_pairings(rnd):
            if _catch_up(tournament, pairing, now):
                players_changed_on_commit([pairing.white.player_id, pairing.black.player_id])
                changed = True
        changed = _round_end_if_done(rnd, now) or changed
    if rnd.ended_at is None:
        if ending.grace_over(tournament.announced_end, now):  # RULES 4.9: open games drawn
            ending.end_live_games(tournament, now=now)
            for pairing in _open_pairings(rnd):
                _catch_up_without_opening(tournament, pairing)
            _tournament_finish(tournament, EndReason.TIME_UP, now)
            return True
        _reschedule(tournament, rnd)
        if changed:
            changed_on_commit(tournament.pk, rnd.number)
        return changed
    if rnd.number >= tournament.total_rounds:
        _tournament_finish(tournament, EndReason.ROUNDS_DONE, now)
        return True
    if now >= tournament.announced_end:  # RULES 4.9: no round starts after the announced end
        _tournament_finish(tournament, EndReason.TIME_UP, now)
        return True
    if now < rnd.ended_at + round_pause():  # RULES 4.8: the pause to see the results
        _reschedule(tournament, rnd)
        if changed:
            changed_on_commit(tournament.pk, rnd.number)
        return changed
    try:
        with locks.atomic():
            rnd = _round_open(tournament, rnd.number + 1, now)
    except lim.NoLegalPairing:  # LIM 11: the tournament ends and says why
        _tournament_finish(tournament, EndReason.NO_PAIRING, now)
        return True
    _reschedule(tournament, rnd)
    changed_on_commit(tournament.pk, rnd.number)
    return True
