"""A club's battles for the clubs app (`clubs.registry`, RULES 12.7): the battles it was invited
to, with how it went, on its page; and who is in one not over for it (they stay in the club
until it ends, RULES 12.3)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from arena import selectors
from arena.models import Arena, Entry
from clubs.registry import ClubEvent
from events.club_events import club_event


def club_events(club_id: int) -> list[ClubEvent]:
    found = []
    for arena in selectors.battles_of_club(club_id):
        result = ""
        if arena.status in (Arena.Status.RUNNING, Arena.Status.FINISHED):
            standings = selectors.battle_standings(arena)
            mine = next((row for row in standings if row.club.pk == club_id), None)
            if mine is not None:
                result = _("%(rank)d° di %(clubs)d circoli, %(score)d punti.") % {
                    "rank": mine.rank,
                    "clubs": len(standings),
                    "score": mine.score,
                }
        found.append(club_event(arena, kind="arena", result=result, battle=True))
    return found


def commitments(club_id: int, user_id: int) -> list[str]:
    return sorted(
        Entry.objects.filter(club_id=club_id, player_id=user_id, arena__in=Arena.objects.live())
        .values_list("arena__name", flat=True)
        .distinct()
    )
