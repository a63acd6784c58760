"""Reading tournaments for pages (RULES 4.1, 4.2, 4.4)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, QuerySet

from ratings.selectors import ratings_snapshot
from tournaments.models import Registration, Tournament


def tournament_list(*, variant: str = "", cadence: str = "") -> dict[str, QuerySet]:
    """Upcoming, running and finished tournaments, filtered (issue 7)."""
    base = Tournament.objects.listed().annotate(players=Count("registrations"))
    if variant:
        base = base.filter(variant=variant)
    if cadence:
        base = base.filter(cadence=cadence)
    return {
        "upcoming": base.filter(status=Tournament.Status.SCHEDULED).order_by("starts_at", "id"),
        "running": base.filter(status=Tournament.Status.RUNNING).order_by("starts_at", "id"),
        "finished": base.filter(status=Tournament.Status.FINISHED).order_by("-starts_at", "-id")[
            :50
        ],
    }


@dataclass(frozen=True)
class RegisteredPlayer:
    id: int
    username: str
    rating: int


def registered_players(tournament: Tournament) -> list[RegisteredPlayer]:
    """The registered players with their rating in the tournament's pool, best first."""
    rows = list(
        Registration.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("joined_at", "id")
    )
    ratings = ratings_snapshot(
        player_ids=[r.player_id for r in rows],
        variant=tournament.variant,
        cadence=tournament.cadence,
    )
    players = [RegisteredPlayer(r.player_id, r.player.username, ratings[r.player_id]) for r in rows]
    return sorted(players, key=lambda p: (-p.rating, p.username.lower()))


def is_registered(tournament: Tournament, user) -> bool:
    return user.is_authenticated and tournament.registrations.filter(player=user).exists()
