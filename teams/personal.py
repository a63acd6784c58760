"""What of a player the team matches keep (accounts.personal): their line-ups and availability
in the data download, the deletion refused while they are named in a match not over (RULES 1,
16.6), their availability forgotten with the account."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.conf import settings
from django.utils.translation import gettext as _

from teams.models import Availability, League, LeagueMember, LineupEntry, TeamMatch

OVER = [TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED]


def matches_section(user) -> list[dict]:
    rows = []
    for entry in (
        LineupEntry.objects.filter(player=user)
        .select_related("lineup__match__first_team", "lineup__match__second_team", "lineup__club")
        .order_by("lineup__match__starts_at", "lineup__match_id")
    ):
        match = entry.lineup.match
        team = match.team_of_side(entry.lineup.side)
        rows.append(
            {
                "name": match.name,
                "url": settings.SITE_URL + match.get_absolute_url(),
                "club": entry.lineup.club.name,
                # RULES 16.8: a league match is played by the club's team, named on its own.
                "team": team.name if team is not None else None,
                "place": entry.place,
                "starts_at": match.starts_at.isoformat(),
                "status": match.status,
            }
        )
    return rows


def entrants(match_ids: Iterable[int]) -> list[tuple[int, int, datetime]]:
    """RULES 11, 16.2: who is reminded before a match and told when it is cancelled — the
    players named in a line-up (boards and reserves), joined when it was saved, and the members
    who said they are available, when they said so (events.kinds `entrants`)."""
    ids = list(match_ids)
    named = LineupEntry.objects.filter(lineup__match_id__in=ids).values_list(
        "lineup__match_id", "player_id", "lineup__saved_at"
    )
    available = Availability.objects.filter(match_id__in=ids).values_list(
        "match_id", "player_id", "said_at"
    )
    first: dict[tuple[int, int], datetime] = {}
    for match_id, player_id, at in [*named, *available]:
        key = (match_id, player_id)
        first[key] = min(at, first.get(key, at))
    return [(match_id, player_id, at) for (match_id, player_id), at in first.items()]


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


def rosters_section(user) -> list[dict]:
    """RULES 16.8: the league teams the player was on, season by season."""
    return [
        {
            "league": str(member.team.league),
            "url": settings.SITE_URL + member.team.league.get_absolute_url(),
            "team": member.team.name,
            "season": member.season,
            "added_at": member.added_at.isoformat(),
        }
        for member in LeagueMember.objects.filter(player=user)
        .select_related("team__league")
        .order_by("added_at", "pk")
    ]


def leave_rosters(user) -> None:
    """RULES 16.8 Decision: a deleted account leaves the rosters of the leagues not over where
    it never sat at a board for its team; where it did, its (anonymous) name stays with the
    games it played."""
    from teams.leagues import played_for

    for member in LeagueMember.objects.filter(
        player=user, team__league__status__in=[League.Status.ENTRY, League.Status.RUNNING]
    ).select_related("team"):
        if user.pk not in played_for(member.team):
            member.delete()
