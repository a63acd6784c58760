"""The clubs' part of what is personal to a player (accounts.personal), and their badge."""

from __future__ import annotations

from django.conf import settings

from accounts.player_badges import Badge
from clubs import selectors
from clubs.models import JoinRequest, Membership


def clubs_section(user) -> dict:
    """The data download: every membership with its dates and role, and the requests."""
    return {
        "memberships": [
            {
                "club": m.club.name,
                "url": settings.SITE_URL + m.club.get_absolute_url(),
                "role": m.role,
                "joined_at": m.joined_at.isoformat(),
                "left_at": m.left_at.isoformat() if m.left_at else None,
                "end_reason": m.end_reason,
            }
            for m in Membership.objects.filter(user=user)
            .select_related("club")
            .order_by("joined_at", "id")
        ],
        "requests": [
            {
                "club": r.club.name,
                "status": r.status,
                "created_at": r.created_at.isoformat(),
                "decided_at": r.decided_at.isoformat() if r.decided_at else None,
            }
            for r in JoinRequest.objects.filter(user=user)
            .select_related("club")
            .order_by("created_at", "id")
        ],
    }


def badges(user_ids: list[int]) -> dict[int, Badge]:
    """RULES 12.9: the club's short name beside each member's name, linked to its page."""
    return {
        pk: Badge(text=club.short_name, title=club.name, url=club.get_absolute_url())
        for pk, club in selectors.clubs_of(user_ids).items()
    }
