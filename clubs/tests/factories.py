from __future__ import annotations

import itertools

from django.utils import timezone

from accounts.tests.factories import UserFactory
from clubs.models import Club, Membership, Role

_numbers = itertools.count(1)


def club_with(*, president=None, officers=(), members=(), **fields) -> Club:
    """A club with its president (a new player if none), officers and members, written
    directly (the services are what the tests test)."""
    n = next(_numbers)
    president = president or UserFactory()
    club = Club.objects.create(
        name=fields.pop("name", f"Circolo {n}"),
        short_name=fields.pop("short_name", f"C{n}"),
        city=fields.pop("city", "Milano"),
        province=fields.pop("province", "MI"),
        founded_by=president,
        **fields,
    )
    now = timezone.now()
    Membership.objects.create(club=club, user=president, role=Role.PRESIDENT, joined_at=now)
    for user in officers:
        Membership.objects.create(club=club, user=user, role=Role.OFFICER, joined_at=now)
    for user in members:
        Membership.objects.create(club=club, user=user, role=Role.MEMBER, joined_at=now)
    return club
