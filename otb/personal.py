"""What of a player the over-the-board tournaments keep (accounts.personal): the tournaments
they organize or arbitrate and their entries linked to their account (GDPR art. 15, 20)."""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from otb.models import OtbPlayer
from otb.selectors import tournaments_of


def otb_section(user) -> dict:
    return {
        "arbitrated": [
            {
                "name": t.name,
                "url": settings.SITE_URL + reverse("otb:public", args=[t.pk]),
                "organizer": t.organizer_id == user.pk,
            }
            for t in tournaments_of(user)
        ],
        "entries": [
            {
                "tournament": p.tournament.name,
                "url": settings.SITE_URL + reverse("otb:public", args=[p.tournament_id]),
                "number": p.number,
                "name": p.full_name,
                "birth_year": p.birth_year,
                "fsi_card": p.fsi_card,
                "fid_card": p.fid_card,
                "fide_id": p.fide_id,
                "club": p.club,
                "national_rating": p.national_rating,
                "fide_rating": p.fide_rating,
            }
            for p in OtbPlayer.objects.filter(user=user).select_related("tournament")
        ],
    }
