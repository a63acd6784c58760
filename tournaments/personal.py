"""The tournaments' part of what is personal to a player (accounts.personal), and who joined a
tournament when (the reminders, events.reminders)."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.utils.translation import gettext as _

from tournaments.models import Participant, Registration, Tournament


def entrants(tournament_ids: Iterable[int]):
    return Registration.objects.filter(tournament_id__in=list(tournament_ids)).values_list(
        "tournament_id", "player_id", "joined_at"
    )


def busy(player_ids: Iterable[int], start, end) -> dict[int, str]:
    """RULES 16.6: those of the players registered in a tournament not over whose time overlaps
    [start, end) (events.kinds `busy`). The tournaments starting before `end` are found in SQL
    from the players' registrations; their expected end is checked here, on those few, since
    before the start it is the engine's plan for the players registered (RULES 4.9)."""
    rows = (
        Registration.objects.filter(player_id__in=list(player_ids), tournament__starts_at__lt=end)
        .exclude(tournament__status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
        .select_related("tournament")
        .order_by("tournament__starts_at", "tournament_id")
    )
    found: dict[int, str] = {}
    ends: dict[int, object] = {}
    for row in rows:
        tournament = row.tournament
        if tournament.pk not in ends:
            ends[tournament.pk] = tournament.calendar_end()
        if ends[tournament.pk] > start:
            found.setdefault(row.player_id, tournament.name)
    return found


def tournaments_section(user) -> list[dict]:
    played = {
        p.tournament_id: p
        for p in Participant.objects.filter(player=user).select_related("tournament")
    }
    joined = Registration.objects.filter(player=user).select_related("tournament")
    rows = []
    for tournament in sorted(
        {p.tournament for p in played.values()} | {r.tournament for r in joined},
        key=lambda t: (t.starts_at, t.pk),
    ):
        me = played.get(tournament.pk)
        rows.append(
            {
                "name": tournament.name,
                "url": settings.SITE_URL + tournament.get_absolute_url(),
                "variant": tournament.variant,
                "starts_at": tournament.starts_at.isoformat(),
                "status": tournament.status,
                "opened_by_me": tournament.opened_by_id == user.pk,
                "number": me.number if me else None,
                "start_rating": me.start_rating if me else None,
                "rank": me.rank if me else None,
                "points": me.points if me else None,
            }
        )
    return rows


def live_tournament_blocker(user) -> list[str]:
    live = Tournament.objects.live()
    names = sorted(
        set(live.filter(registrations__player=user).values_list("name", flat=True))
        | set(live.filter(participants__player=user).values_list("name", flat=True))
    )
    return [
        _("Sei iscritto al torneo «%(name)s»: ritirati o aspetta che finisca.") % {"name": name}
        for name in names
    ]


def pages_renamed(user) -> None:
    """The player's account goes (the deleting transaction): every tournament page that shows
    their name renders its shared part anew after the commit, so the tombstone replaces the
    name at once, not after the kept part's age (EVENT_PART_SECONDS)."""
    from tournaments.broadcast import changed_on_commit

    ids = set(Participant.objects.filter(player=user).values_list("tournament_id", flat=True))
    ids |= set(Registration.objects.filter(player=user).values_list("tournament_id", flat=True))
    for tournament_id in sorted(ids):
        changed_on_commit(tournament_id)
