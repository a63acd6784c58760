"""What of a player the team matches keep (accounts.personal): their line-ups and availability
in the data download, the deletion refused while they are named in a match not over (RULES 1,
16.6), their availability forgotten with the account."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _

from teams.models import Availability, LineupEntry, TeamMatch

OVER = [TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED]


def matches_section(user) -> list[dict]:
    rows = []
    for entry in (
        LineupEntry.objects.filter(player=user)
        .select_related("lineup__match", "lineup__club")
        .order_by("lineup__match__starts_at", "lineup__match_id")
    ):
        match = entry.lineup.match
        rows.append(
            {
                "name": match.name,
                "url": settings.SITE_URL + match.get_absolute_url(),
                "club": entry.lineup.club.name,
                "place": entry.place,
                "starts_at": match.starts_at.isoformat(),
                "status": match.status,
            }
        )
    return rows


def named_in_a_match_blocker(user) -> list[str]:
    names = (
        LineupEntry.objects.filter(player=user)
        .exclude(lineup__match__status__in=OVER)
        .values_list("lineup__match__name", flat=True)
    )
    return [
        _(
            "Sei nella formazione dell'incontro a squadre «%(name)s»: chiedi a un consigliere "
            "di toglierti o aspetta che finisca."
        )
        % {"name": name}
        for name in sorted(set(names))
    ]


def forget_availability(user) -> None:
    Availability.objects.filter(player=user).delete()
