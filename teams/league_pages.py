"""What the league's pages need beside its tables (RULES 16.8): who is looking (the organizer,
an officer of a team's club), the teams with their rosters' size, a club's members to choose a
roster from, rated in the league's pool, and a club's leagues for its page (`clubs.registry`).
Read only: the writes are `teams.leagues`' (STYLE 2)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from django.db.models import Count
from django.utils.translation import gettext as _

from clubs import selectors as clubs
from clubs.models import OFFICERS, Membership
from clubs.registry import ClubEvent
from ratings.models import CadenceChoice
from ratings.selectors import ratings_snapshot
from teams.models import League, LeagueMember, LeagueTeam

# A league's state as a club's page sorts its events (events.models.Event.Status).
CLUB_STATUS = {
    League.Status.ENTRY: "scheduled",
    League.Status.RUNNING: "running",
    League.Status.FINISHED: "finished",
    League.Status.CANCELLED: "cancelled",
}


def league_get(league_id: int) -> League | None:
    return League.objects.select_related("opened_by").filter(pk=league_id).first()


@dataclass(frozen=True)
class LeagueViewer:
    is_organizer: bool
    # The viewer's club, and whether they are one of its officers (RULES 16.8: they name its
    # teams and their rosters, add a team before the start, withdraw one).
    my_club_id: int | None
    is_officer: bool
    in_league: bool  # their club has a team in the league
    is_staff: bool = False  # the staff withdraw any team (RULES 16.8)

    def manages(self, team: LeagueTeam) -> bool:
        return self.is_officer and team.club_id == self.my_club_id

    @property
    def may_add_team(self) -> bool:
        return self.is_officer and self.in_league


def league_viewer(league: League, teams: list[LeagueTeam], user) -> LeagueViewer:
    user_id = getattr(user, "pk", None)
    membership = clubs.current_membership(user_id=user_id) if user_id else None
    club_id = membership.club_id if membership is not None else None
    return LeagueViewer(
        is_organizer=user_id is not None and user_id == league.opened_by_id,
        my_club_id=club_id,
        is_officer=membership is not None and membership.role in OFFICERS,
        in_league=club_id is not None and any(t.club_id == club_id for t in teams),
        is_staff=bool(getattr(user, "is_staff", False)),
    )


def roster_sizes(league: League) -> dict[int, int]:
    """How many players each team's roster has, by team id (one query)."""
    rows = (
        LeagueTeam.objects.filter(league=league).annotate(n=Count("roster")).values_list("pk", "n")
    )
    return dict(rows)


@dataclass(frozen=True)
class RosterChoice:
    player_id: int
    username: str
    rating: int
    chosen: bool
    elsewhere: str  # the team of the season the player is on already, if another


def roster_choices(league: League, team: LeagueTeam, chosen: set[int] | None = None) -> list:
    """RULES 16.8: the club's members now, best-rated first in the league's variant and
    cadence, ticked if on the team's roster (or in `chosen`, a form sent back), with the other
    team of the season a player is on already."""
    rows = list(
        Membership.objects.filter(club_id=team.club_id, left_at__isnull=True).values_list(
            "user_id", "user__username"
        )
    )
    ids = [pk for pk, _name in rows]
    if chosen is None:
        chosen = set(LeagueMember.objects.filter(team=team).values_list("player_id", flat=True))
    elsewhere = dict(
        LeagueMember.objects.filter(season=league.season, player_id__in=ids)
        .exclude(team=team)
        .values_list("player_id", "team__name")
    )
    ratings = ratings_snapshot(player_ids=ids, variant=league.variant, cadence=league.cadence)
    found = [
        RosterChoice(pk, name, ratings[pk], pk in chosen, elsewhere.get(pk, ""))
        for pk, name in rows
    ]
    return sorted(found, key=lambda c: (-c.rating, c.username.lower()))


def cadence_label(league: League) -> str:
    return str(dict(CadenceChoice.choices).get(league.cadence, league.cadence))


def _match_span(league: League) -> timedelta:
    """How long a match of the league may last (as `TeamMatch.calendar_end` reckons it)."""
    return timedelta(seconds=2 * league.time_control.estimated_seconds * league.legs)


def club_leagues(club_id: int) -> list[ClubEvent]:
    """RULES 16.8, 12.5: the leagues a club has a team in (the latest 50), on its page and in
    its calendar (`clubs.registry`). Decision: a league not over is the club's event not over,
    so the club is not dissolved with its team still playing (RULES 12.8); once its team has
    withdrawn, the league is over for the club (listed with the past ones)."""
    teams = list(
        LeagueTeam.objects.filter(club_id=club_id)
        .select_related("league")
        .order_by("-league__first_round_at", "-league_id")[:50]
    )
    sizes = dict(
        League.objects.filter(pk__in=[t.league_id for t in teams])
        .annotate(n=Count("teams"))
        .values_list("pk", "n")
    )
    # A league once, however many teams the club has in it (RULES 16.8): withdrawn for the
    # club only when every one of its teams is.
    still_in = {t.league_id for t in teams if t.withdrawn_at is None}
    found = []
    listed: set[int] = set()
    for team in teams:
        league = team.league
        if league.pk in listed:
            continue
        listed.add(league.pk)
        rounds = league.rounds or max(1, sizes.get(league.pk, 2) - 1)
        status, label, result = CLUB_STATUS[league.status], league.get_status_display(), ""
        if league.pk not in still_in and league.is_live:
            status, label = "cancelled", _("Squadra ritirata")
        if league.status == League.Status.FINISHED:
            result = _("Campionato concluso: la classifica è sulla sua pagina.")
        found.append(
            ClubEvent(
                kind="league",
                pk=league.pk,
                name=str(league),
                url=league.get_absolute_url(),
                starts_at=league.first_round_at,
                ends_at=league.round_date(rounds) + _match_span(league),
                status=status,
                status_label=str(label),
                kind_label=str(League._meta.verbose_name).capitalize(),
                result=result,
            )
        )
    return found
