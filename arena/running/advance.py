"""The tick's step of an arena: its start, a pass that is due, its end; and the `arena.pair` task's
pass."""

from __future__ import annotations

import random
from datetime import datetime

from django.utils import timezone

from arena.models import Arena, EntryState
from live import locks

from .common import (
    _locked,
    _reschedule,
    changed_on_commit,
    players_called_on_commit,
    players_told_on_commit,
)
from .end import _end_if_done
from .passes import _pairing_pass, _pause_elsewhere


@locks.atomic
def arena_advance(*, arena_id: int, now: datetime | None = None) -> bool:
    """The tick's step for a due arena; returns whether it changed anything."""
    now = now or timezone.now()
    arena = _locked(arena_id)
    if arena.status == Arena.Status.SCHEDULED:
        if now < arena.starts_at:
            return False
        _start(arena, now)
        return True
    if arena.status != Arena.Status.RUNNING:
        return False
    if now >= arena.ends_at:
        return _end_if_done(arena, now)
    if arena.pairing_due_at is not None and arena.pairing_due_at <= now:
        _pairing_pass(arena, now)
        return True
    _reschedule(arena, now)
    return False


def _start(arena: Arena, now: datetime) -> None:
    """RULES 8: at its start the arena runs; whoever is waiting is paired at once."""
    arena.status = Arena.Status.RUNNING
    arena.started_at = now
    arena.seed = random.SystemRandom().randrange(2**62)
    arena.save(update_fields=["status", "started_at", "seed"])
    # RULES 8: whoever entered in advance and is active in another running arena now is paused
    # here (one running arena at a time); the page tells them why.
    _pause_elsewhere(arena, list(arena.entries.filter(state=EntryState.ACTIVE)))
    arena.pairing_due_at = now
    _pairing_pass(arena, now)
    changed_on_commit(arena.pk)
    # RULES 8.1: the players active in it are taken to its page wherever they are on the site
    # (only a page open on the arena pairs them); the others' banners re-fetch.
    active = list(arena.entries.filter(state=EntryState.ACTIVE).values_list("player_id", flat=True))
    players_called_on_commit(arena, active)
    players_told_on_commit(arena.entries.values_list("player_id", flat=True))


@locks.atomic
def arena_pair(*, arena_id: int, now: datetime | None = None) -> bool:
    """The coalesced pairing pass, when it is due (the `arena.pair` task). Safe to run twice:
    a pass not due (already run) does nothing."""
    now = now or timezone.now()
    arena = _locked(arena_id)
    if arena.status != Arena.Status.RUNNING or arena.pairing_due_at is None:
        return False
    if arena.pairing_due_at > now:
        return False
    _pairing_pass(arena, now)
    return True
