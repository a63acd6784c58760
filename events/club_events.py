"""The events of a club (RULES 12.6), for the clubs app (`clubs.registry`, filled by
`events.receivers`): every kind's events restricted to a club's members, who is in one not
over (they stay in the club until it ends, RULES 12.3), and the club's calendar file (the
events' calendar code). A club battle is the arena's own (`arena.battles`)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from clubs.registry import ClubEvent
from events.kinds import all_kinds


def club_event(event, *, kind: str, result: str = "", battle: bool = False) -> ClubEvent:
    return ClubEvent(
        kind=kind,
        pk=event.pk,
        name=event.name,
        url=event.get_absolute_url(),
        starts_at=event.starts_at,
        ends_at=event.calendar_end(),
        status=event.status,
        status_label=str(event.get_status_display()),
        kind_label=str(event._meta.verbose_name).capitalize(),
        battle=battle,
        result=result,
    )


def winner_line(event) -> str:
    if event.status != event.Status.FINISHED:
        return ""
    names = event.winner_names()
    return _("Primo posto: %(names)s.") % {"names": ", ".join(names)} if names else ""


def events_of(club_id: int) -> list[ClubEvent]:
    """The events of every kind restricted to the club's members (the latest 50 of each)."""
    found = []
    for kind in all_kinds():
        rows = kind.model.objects.filter(club_id=club_id).order_by("-starts_at", "-id")[:50]
        found.extend(club_event(e, kind=kind.code, result=winner_line(e)) for e in rows)
    return found


def commitments_of(club_id: int, user_id: int) -> list[str]:
    """The club's events not over that the player is in (joined or entered)."""
    names = []
    for kind in all_kinds():
        live = dict(kind.model.objects.live().filter(club_id=club_id).values_list("pk", "name"))
        if live and kind.entrants is not None:
            names.extend(
                live[event_id]
                for event_id, player_id, _joined in kind.entrants(live)
                if player_id == user_id
            )
    return names
