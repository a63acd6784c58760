"""The arenas' part of what is personal to a player (accounts.personal), and who joined an arena
when (the reminders, events.reminders)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from django.conf import settings
from django.utils.translation import gettext as _

from arena.models import DURATION_MAX, Arena, Entry


def entrants(arena_ids: Iterable[int]):
    return Entry.objects.filter(arena_id__in=list(arena_ids)).values_list(
        "arena_id", "player_id", "entered_at"
    )


def busy(player_ids: Iterable[int], start, end) -> dict[int, str]:
    """RULES 16.6: those of the players entered in an arena not over whose time (its start to
    its end, RULES 8) overlaps [start, end) (events.kinds `busy`). One query from the players'
    entries: the arenas starting before `end` and late enough to reach `start` at their longest
    (DURATION_MAX), the exact end then read on each (SQL's interval arithmetic differs from one
    database to another, and `make run` may serve SQLite)."""
    rows = (
        Entry.objects.filter(
            player_id__in=list(player_ids),
            arena__starts_at__lt=end,
            arena__starts_at__gt=start - timedelta(minutes=DURATION_MAX),
        )
        .exclude(arena__status__in=[Arena.Status.FINISHED, Arena.Status.CANCELLED])
        .order_by("arena__starts_at", "arena_id")
        .values_list("player_id", "arena__name", "arena__starts_at", "arena__duration_minutes")
    )
    found: dict[int, str] = {}
    for player_id, name, starts_at, minutes in rows:
        if starts_at + timedelta(minutes=minutes) > start:
            found.setdefault(player_id, name)
    return found


def arenas_section(user) -> list[dict]:
    return [
        {
            "name": entry.arena.name,
            "url": settings.SITE_URL + entry.arena.get_absolute_url(),
            "variant": entry.arena.variant,
            "starts_at": entry.arena.starts_at.isoformat(),
            "status": entry.arena.status,
            "points": entry.points,
            "games": entry.games,
            "wins": entry.wins,
            "rank": entry.rank,
        }
        for entry in Entry.objects.filter(player=user)
        .select_related("arena")
        .order_by("arena__starts_at", "arena_id")
    ]


def live_arena_blocker(user) -> list[str]:
    names = Arena.objects.live().filter(entries__player=user).values_list("name", flat=True)
    return [
        _("Sei nell'arena «%(name)s»: esci o aspetta che finisca.") % {"name": name}
        for name in sorted(set(names))
    ]


def pages_renamed(user) -> None:
    """As the tournaments' (`tournaments.personal.pages_renamed`): every arena page that shows
    the player's name renders its shared part anew once their account is gone."""
    from arena.running import changed_on_commit

    for arena_id in sorted(
        set(Entry.objects.filter(player=user).values_list("arena_id", flat=True))
    ):
        changed_on_commit(arena_id)
