from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.utils import timezone

from accounts.tests.factories import UserFactory
from clubs.models import Club
from clubs.tests.factories import club_with
from ratings.tests.factories import RatingFactory
from teams import services
from teams.services import MatchData


@dataclass
class Side:
    """A club of a test: its president (an officer, the captain) and its members, rated in
    chess blitz as given, best first."""

    club: Club
    captain: object
    players: list = field(default_factory=list)


def side(ratings: list[int]) -> Side:
    captain = UserFactory()
    players = [UserFactory() for _ in ratings]
    for player, value in zip(players, ratings, strict=True):
        RatingFactory(player=player, variant="chess", cadence="blitz", value=value)
    club = club_with(president=captain, members=players)
    return Side(club=club, captain=captain, players=players)


def match_data(second: Side, *, boards: int = 4, start: datetime | None = None, **fields):
    return MatchData(
        name=fields.pop("name", "Milano – Torino"),
        second_club_id=second.club.pk,
        boards=boards,
        variant="chess",
        base_seconds=180,
        increment_seconds=2,  # 3+2: blitz
        starts_at=start or timezone.now() + timedelta(hours=2),
        **fields,
    )


def open_match(first: Side, second: Side, **fields):
    return services.match_create(
        by=first.captain, first_club_id=first.club.pk, data=match_data(second, **fields)
    )
