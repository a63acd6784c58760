"""What every step of a running arena shares: its lock, its next due instant, asking for a pairing
pass (coalesced, RULES 8), its pushes after commit."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction

from arena.models import Arena
from events import ending
from live import locks, messages, pushes

log = logging.getLogger(__name__)


GRACE = ending.GRACE  # RULES 8: games in progress at the end get the grace of RULES 4.9


def coalesce() -> timedelta:
    return timedelta(seconds=settings.ARENA_PAIRING_COALESCE_SECONDS)


def group_name(arena_id: int) -> str:
    return f"arena-{arena_id}"


def changed_on_commit(arena_id: int) -> None:
    """The arena's pages re-fetch their fragments: at most about once a second (a busy arena
    changes all the time), the last change never lost. Every change is counted, so the page's
    shared part is rendered anew (events/shared_part.py)."""
    pushes.group_send_throttled_on_commit(group_name(arena_id), messages.arena_changed())


# A player's site socket is told that one of their arenas started, ended or was cancelled
# (registered by arena.receivers).
PLAYER_WHAT = "myarena"


def players_told_on_commit(user_ids) -> None:
    pushes.user_changed_on_commit(user_ids, PLAYER_WHAT)


def players_called_on_commit(arena: Arena, user_ids) -> None:
    """RULES 8: the players go to the arena's page wherever they are on the site (only a page
    open on it pairs them)."""
    pushes.user_changed_on_commit(user_ids, messages.What.EVENT_CALL, url=arena.get_absolute_url())


def _locked(arena_id: int) -> Arena:
    return locks.lock_one(Arena, arena_id, locks.Rank.EVENT)


def _next_due(arena: Arena, now: datetime) -> datetime | None:
    """When the tick must look at the arena next (`Event.next_due_at`): its start; a pending
    pass (asked for, or the instant the first cooldown among the players left waiting lifts);
    its end (nobody new is paired from then); the end of the grace."""
    if arena.status == Arena.Status.SCHEDULED:
        return arena.starts_at
    if arena.status != Arena.Status.RUNNING:
        return None
    if now < arena.ends_at:
        due = arena.ends_at
        if arena.pairing_due_at is not None:
            due = min(due, arena.pairing_due_at)
        return due
    return arena.ends_at + GRACE


def _reschedule(arena: Arena, now: datetime) -> None:
    arena.next_due_at = _next_due(arena, now)
    Arena.objects.filter(pk=arena.pk).update(
        next_due_at=arena.next_due_at, pairing_due_at=arena.pairing_due_at
    )


def request_pairing(arena: Arena, now: datetime, *, waiting_from: datetime | None = None) -> None:
    """Ask for a pairing pass soon (the caller holds the arena's lock). Coalesced: a pass
    already pending takes in whoever is waiting by then.

    The window runs from when the player became waiting (`waiting_from`: a game's end), not
    from when this was asked: a settle that ran late behind other work must not add its delay
    to the whole window (under load the pass would be due the settle's delay + 2 s after the
    game's end, the tail of the wait for the next game: bench/arena.py). A settle later than the window
    asks for the pass at once."""
    if arena.status != Arena.Status.RUNNING or now >= arena.ends_at:
        return
    due = max(now, min(now, waiting_from or now) + coalesce())
    if arena.pairing_due_at is not None and arena.pairing_due_at <= due:
        return
    arena.pairing_due_at = due
    _reschedule(arena, now)
    arena_id, delay = arena.pk, (due - now).total_seconds()

    def send() -> None:
        try:
            # By name, from Celery's registry (arena.receivers imports arena.tasks in every
            # process): the task module is above this package, which it calls.
            current_app.tasks["arena.pair"].apply_async(
                args=[arena_id], countdown=delay, retry=False
            )
        except Exception:
            log.warning("arena %s: pairing task not sent; the tick will run the pass", arena_id)

    transaction.on_commit(send)
