"""Writing leagues of team matches (RULES 16.8): opening one between clubs, each club's team and
its roster for the season, a team withdrawing, the start (league numbers drawn, the calendar of
dated rounds made), the Swiss pairing of a round once the one before is over, the end.
Keyword-only, typed, each in one transaction (STYLE 2).

Locking contract (`live.locks`): every write on a league locks its row first (LEAGUE rank,
above every match it creates or forfeits), then a match (EVENT), the clubs (CLUB), the players
(USER). A match's end never locks its league (it holds its own EVENT row): it nudges the
league's `next_due_at` after its commit, and the tick, under the league's lock, pairs the next
Swiss round or ends the league; a lost nudge is caught by the tick's poll (`LEAGUE_POLL`).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.services import account_open
from clubs import selectors as clubs
from clubs.models import OFFICERS, Club, Membership
from events import options as event_options
from events import services as events
from events.ending import end_live_games
from events.pairing import lim
from events.pairing.berger import berger_schedule
from events.pairing.model import RoundSpec
from live import locks
from ratings.selectors import ratings_snapshot
from teams import broadcast, league, notices, rules, services
from teams.models import (
    FIRST_ROUND_MAX,
    LEAGUE_AUTOSTART,
    LEAGUE_POLL,
    ROUND_GAP_MAX,
    ROUND_GAP_MIN,
    START_MIN,
    Board,
    League,
    LeagueMember,
    LeagueRound,
    LeagueTeam,
    LineupEntry,
    TeamMatch,
)

logger = logging.getLogger(__name__)
User = get_user_model()
LeagueError = events.EventError

# RULES 16.8 Decision: the first round at least this far ahead when the league is opened, so
# that a start by the tick still leaves the captains an hour before the line-ups close.
FIRST_ROUND_MIN = START_MIN + timedelta(hours=1)
TEAM_NAME_MAX = 80


@dataclass(frozen=True)
class LeagueData:
    """What the organizer chose, already checked field by field by a form (or a test)."""

    name: str
    season: str
    club_ids: Sequence[int]
    boards: int
    variant: str
    base_seconds: int
    increment_seconds: int
    first_round_at: datetime
    round_gap: timedelta
    double_games: bool = False
    double_round_robin: bool = False
    rated: bool = True
    opening_mode: str = event_options.OpeningMode.FREE.value
    thematic_opening: int | None = None
    description: str = ""


def _league_locked(league_id: int) -> League:
    try:
        return locks.lock_one(League, league_id, locks.Rank.LEAGUE)
    except (League.DoesNotExist, ValueError, TypeError):
        raise LeagueError("missing", _("Questo campionato non esiste.")) from None


def _playable(club: Club | None) -> Club:
    """RULES 16.1 (16.8): a club that exists, is not dissolved and not hidden."""
    if club is None or club.hidden:
        raise LeagueError("club_missing", _("Uno dei circoli scelti non esiste."))
    if club.dissolved_at is not None:
        raise LeagueError(
            "club_dissolved", _("Il circolo «%(club)s» è stato sciolto.") % {"club": club}
        )
    return club


def _is_organizer(league: League, user) -> bool:
    return getattr(user, "pk", None) == league.opened_by_id


def _match_options(league: League, *, name: str, starts_at: datetime) -> events.EventOptions:
    return events.EventOptions(
        name=name,
        description=league.description,
        variant=league.variant,
        base_seconds=league.base_seconds,
        increment_seconds=league.increment_seconds,
        starts_at=starts_at,
        opening_mode=league.opening_mode,
        thematic_opening=league.thematic_opening,
        rated=league.rated,
        floor=None,
        password="",
    )


# --- opening -------------------------------------------------------------------------------------


def league_create(*, by, data: LeagueData, now: datetime | None = None) -> League:
    """RULES 16.8: an officer of one of its clubs opens a league of 3 to 16 clubs, one team
    each (named after its club until its officers rename it)."""
    now = now or timezone.now()
    club_ids = [int(c) for c in data.club_ids]
    if len(set(club_ids)) != len(club_ids):
        raise LeagueError("club_twice", _("Un circolo è scelto due volte."))
    if not league.TEAMS_MIN <= len(club_ids) <= league.TEAMS_MAX:
        raise LeagueError(
            "teams",
            _("Un campionato ha da %(low)d a %(high)d squadre.")
            % {"low": league.TEAMS_MIN, "high": league.TEAMS_MAX},
        )
    if not rules.BOARDS_MIN <= data.boards <= rules.BOARDS_MAX:
        raise LeagueError(
            "boards",
            _("Le scacchiere sono da %(low)d a %(high)d.")
            % {"low": rules.BOARDS_MIN, "high": rules.BOARDS_MAX},
        )
    if not now + FIRST_ROUND_MIN <= data.first_round_at <= now + FIRST_ROUND_MAX:
        raise LeagueError(
            "first_round_at", _("Il primo turno è tra due ore e novanta giorni da adesso.")
        )
    if not ROUND_GAP_MIN <= data.round_gap <= ROUND_GAP_MAX:
        raise LeagueError("round_gap", _("Tra un turno e l'altro passano da 1 a 28 giorni."))
    if not data.name.strip() or not data.season.strip():
        raise LeagueError("name", _("Il campionato ha un nome e una stagione."))
    # The options as a match takes them (RULES 6, 7.3: openings unfair in a single game make
    # it casual), checked once here on a match never saved.
    draft = League(
        description=data.description,
        variant=data.variant,
        base_seconds=data.base_seconds,
        increment_seconds=data.increment_seconds,
        rated=data.rated,
        opening_mode=data.opening_mode,
        thematic_opening=data.thematic_opening,
    )
    probe = TeamMatch(legs=2 if data.double_games else 1)
    events.apply_options(
        probe,
        _match_options(draft, name=data.name, starts_at=data.first_round_at),
        double_games=data.double_games,
    )
    with locks.atomic():
        rows = {
            c.pk: c for c in locks.lock_rows(Club.objects.filter(pk__in=club_ids), locks.Rank.CLUB)
        }
        chosen = [_playable(rows.get(pk)) for pk in club_ids]
        by_id = getattr(by, "pk", None)
        if not any(clubs.is_officer(club_id=c.pk, user_id=by_id) for c in chosen):
            raise LeagueError(
                "not_officer",
                _("Solo un consigliere di uno dei circoli può aprire il campionato."),
            )
        events.opener_lock_and_check(by)  # RULES 1: one live event per person
        other = League.objects.filter(
            opened_by_id=by_id, status__in=[League.Status.ENTRY, League.Status.RUNNING]
        ).first()
        if other is not None:
            raise LeagueError(
                "live_league",
                _("Organizzi già un campionato non ancora concluso: «%(name)s».") % {"name": other},
            )
        created = League.objects.create(
            name=data.name.strip(),
            season=data.season.strip(),
            description=data.description,
            opened_by=by,
            variant=probe.variant,
            base_seconds=probe.base_seconds,
            increment_seconds=probe.increment_seconds,
            cadence=probe.cadence,
            rated=probe.rated,
            opening_mode=probe.opening_mode,
            thematic_opening=probe.thematic_opening,
            boards=data.boards,
            legs=probe.legs,
            double_round_robin=data.double_round_robin,
            first_round_at=data.first_round_at,
            round_gap=data.round_gap,
            seed=random.SystemRandom().getrandbits(62),
            # RULES 16.8: a day before round 1, or, opened less than a day ahead, two hours
            # before it (the teams and rosters keep the time in between).
            next_due_at=data.first_round_at - LEAGUE_AUTOSTART
            if data.first_round_at - LEAGUE_AUTOSTART >= now
            else data.first_round_at - FIRST_ROUND_MIN,
        )
        LeagueTeam.objects.bulk_create(
            LeagueTeam(league=created, club=club, name=club.name[:TEAM_NAME_MAX]) for club in chosen
        )
    return created


def league_cancel(
    *, league_id: int, by, staff: bool = False, now: datetime | None = None
) -> League:
    """RULES 16.8 Decision: the organizer cancels a league before its start; the staff at any
    time, its matches not over cancelled with it (the games being played drawn and not rated,
    as a match the staff cancel, RULES 16.1). Its rosters go with it."""
    now = now or timezone.now()
    with locks.atomic():
        found = _league_locked(league_id)
        if not found.is_live:
            raise LeagueError("closed", _("Il campionato è concluso o annullato."))
        if not staff and (found.status != League.Status.ENTRY or not _is_organizer(found, by)):
            raise LeagueError(
                "not_organizer", _("Solo l'organizzatore annulla il campionato, prima dell'inizio.")
            )
        found.status = League.Status.CANCELLED
        found.cancelled_at = now
        found.next_due_at = None
        broadcast.league_changed_on_commit(found)
        found.save(update_fields=["status", "cancelled_at", "next_due_at", "version"])
        _rosters_freed(found)
        # Every live match locked first (EVENT, ascending), each cancelled and its players told
        # (RULES 11.3); only then the games being played are ended (GAME locks come last).
        live = locks.lock_rows(
            TeamMatch.objects.filter(league_round__league=found)
            .exclude(status__in=[TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED])
            .order_by("pk"),
            locks.Rank.EVENT,
        )
        running = [m for m in live if m.status == TeamMatch.Status.RUNNING]
        for match in live:
            services.cancelled(match, by_id=getattr(by, "pk", None), now=now)
        for match in running:  # RULES 16.1: drawn, not rated
            end_live_games(match, now=now, rated=False)
    return found


# --- teams and rosters -----------------------------------------------------------------------


def _rosters_freed(found: League) -> None:
    """RULES 16.8 Decision: a cancelled league's rosters go with it: its players are free to
    play for another team that season."""
    LeagueMember.objects.filter(team__league=found).delete()


def _officer_of(team: LeagueTeam, user) -> None:
    if not clubs.is_officer(club_id=team.club_id, user_id=getattr(user, "pk", None)):
        raise LeagueError(
            "not_officer",
            _("Solo i consiglieri di «%(club)s» gestiscono la sua squadra.")
            % {"club": team.club.name},
        )


def _team(found: League, team_id: int) -> LeagueTeam:
    team = (
        LeagueTeam.objects.select_related("club").filter(league=found, pk=team_id).first()
        if str(team_id).isdigit()
        else None
    )
    if team is None:
        raise LeagueError("team_missing", _("Questa squadra non è nel campionato."))
    return team


def team_add(*, league_id: int, by, now: datetime | None = None) -> LeagueTeam:
    """RULES 16.8: before the start, an officer of a club with a team in the league adds
    another of its teams ("Circolo B"), named after the club and its letter until renamed."""
    with locks.atomic():
        found = _league_locked(league_id)
        if found.status != League.Status.ENTRY:
            raise LeagueError("started", _("Le squadre si aggiungono prima dell'inizio."))
        membership = clubs.current_membership(user_id=getattr(by, "pk", None))
        teams = list(found.teams.all())
        if (
            membership is None
            or membership.role not in OFFICERS
            or not any(t.club_id == membership.club_id for t in teams)
        ):
            raise LeagueError(
                "not_officer",
                _("Solo i consiglieri di un circolo del campionato vi aggiungono una squadra."),
            )
        if len(teams) >= league.TEAMS_MAX:
            raise LeagueError(
                "teams", _("Un campionato ha al più %(n)d squadre.") % {"n": league.TEAMS_MAX}
            )
        club = _playable(locks.lock_one(Club, membership.club_id, locks.Rank.CLUB))
        taken = {t.name.lower() for t in teams}
        ours = sum(1 for t in teams if t.club_id == club.pk)
        letter = next(
            c
            for c in "BCDEFGHIJKLMNOPQ"[ours - 1 :] + "0123456789"
            if f"{club.name[: TEAM_NAME_MAX - 2]} {c}".lower() not in taken
        )
        team = LeagueTeam.objects.create(
            league=found, club=club, name=f"{club.name[: TEAM_NAME_MAX - 2]} {letter}"
        )
        broadcast.league_changed_on_commit(found)
        found.save(update_fields=["version"])
    return team


def played_for(team: LeagueTeam) -> set[int]:
    """The players who sat at a board of a match of the team's league for it (RULES 16.8)."""
    boards = Board.objects.filter(match__first_team=team).values_list("first_player_id", flat=True)
    boards_second = Board.objects.filter(match__second_team=team).values_list(
        "second_player_id", flat=True
    )
    return {p for p in [*boards, *boards_second] if p is not None}


def team_set(
    *,
    league_id: int,
    team_id: int,
    by,
    name: str,
    player_ids: Sequence[int],
    now: datetime | None = None,
) -> LeagueTeam:
    """RULES 16.8: a club's officers name its team and its roster for the season: members of
    the club, each on one team a season. Until the league ends; a player who has already sat at
    a board for the team stays on it. Refused whole, with the reason."""
    now = now or timezone.now()
    name = (name or "").strip()
    try:
        wanted = [int(p) for p in player_ids]
    except (TypeError, ValueError):
        raise LeagueError("missing_player", _("Uno dei giocatori non esiste.")) from None
    if not name or len(name) > TEAM_NAME_MAX:
        raise LeagueError(
            "team_name",
            _("Il nome della squadra ha da 1 a %(n)d caratteri.") % {"n": TEAM_NAME_MAX},
        )
    if len(set(wanted)) != len(wanted):
        raise LeagueError("twice", _("Un giocatore è scelto due volte."))
    with locks.atomic():
        found = _league_locked(league_id)
        team = _team(found, team_id)
        _officer_of(team, by)
        if not found.is_live:
            raise LeagueError("closed", _("Il campionato è concluso o annullato."))
        if team.withdrawn_at is not None:
            raise LeagueError("withdrawn", _("La squadra si è ritirata."))
        club = locks.lock_one(Club, team.club_id, locks.Rank.CLUB)
        users = {
            u.pk: u
            for u in locks.lock_rows(
                User.objects.filter(pk__in=wanted).only(
                    "pk", "username", "is_active", "deleted_at"
                ),
                locks.Rank.USER,
            )
        }
        members = set(
            Membership.objects.filter(
                club=club, user_id__in=wanted, left_at__isnull=True
            ).values_list("user_id", flat=True)
        )
        for player_id in wanted:
            user = users.get(player_id)
            if user is None or not account_open(user):
                raise LeagueError("missing_player", _("Uno dei giocatori non esiste più."))
            if player_id not in members:
                raise LeagueError(
                    "not_member",
                    _("%(name)s non è socio di «%(club)s».")
                    % {"name": user.username, "club": club.name},
                )
        if LeagueTeam.objects.filter(league=found, name__iexact=name).exclude(pk=team.pk).exists():
            raise LeagueError(
                "team_name_taken",
                _("Un'altra squadra del campionato si chiama già «%(name)s».") % {"name": name},
            )
        elsewhere = (
            LeagueMember.objects.filter(season=found.season, player_id__in=wanted)
            .exclude(team=team)
            .select_related("team", "player")
            .first()
        )
        if elsewhere is not None:
            raise LeagueError(
                "other_team",
                _(
                    "%(name)s gioca già per «%(team)s» nella stagione %(season)s: una squadra "
                    "a stagione (regola 16.8)."
                )
                % {
                    "name": elsewhere.player.username,
                    "team": elsewhere.team.name,
                    "season": found.season,
                },
            )
        kept = played_for(team) - set(wanted)
        if kept:
            raise LeagueError(
                "played",
                _("%(name)s ha già giocato per la squadra e ne resta nella rosa.")
                % {
                    "name": ", ".join(
                        sorted(User.objects.filter(pk__in=kept).values_list("username", flat=True))
                    )
                },
            )
        dropped = set(
            LeagueMember.objects.filter(team=team)
            .exclude(player_id__in=wanted)
            .values_list("player_id", flat=True)
        )
        named = (
            LineupEntry.objects.filter(
                player_id__in=dropped,
                lineup__match__status=TeamMatch.Status.SCHEDULED,
            )
            .filter(
                Q(lineup__side=1, lineup__match__first_team=team)
                | Q(lineup__side=2, lineup__match__second_team=team)
            )
            .select_related("player", "lineup__match")
            .first()
        )
        if named is not None:
            raise LeagueError(
                "named",
                _(
                    "%(name)s è nella formazione di «%(match)s»: toglilo da lì prima di "
                    "toglierlo dalla rosa."
                )
                % {"name": named.player.username, "match": named.lineup.match.name},
            )
        team.name = name
        team.save(update_fields=["name"])
        LeagueMember.objects.filter(team=team).exclude(player_id__in=wanted).delete()
        present = set(LeagueMember.objects.filter(team=team).values_list("player_id", flat=True))
        try:
            with transaction.atomic():
                LeagueMember.objects.bulk_create(
                    LeagueMember(team=team, player_id=p, season=found.season, added_at=now)
                    for p in wanted
                    if p not in present
                )
        except IntegrityError:  # a roster of the season saved at once elsewhere took a player
            raise LeagueError(
                "other_team", _("Uno dei giocatori è appena entrato in un'altra squadra.")
            ) from None
        broadcast.league_changed_on_commit(found)
        found.save(update_fields=["version"])
    return team


def team_withdraw(
    *, league_id: int, team_id: int, by, staff: bool = False, now: datetime | None = None
):
    """RULES 16.8: a team withdraws (its club's officers, the organizer, the staff). Before the
    start it just leaves the league; after, its matches not started are lost by forfeit on every
    board (a round robin), it is paired no more (a Swiss), and what it played stands."""
    now = now or timezone.now()
    with locks.atomic():
        found = _league_locked(league_id)
        team = _team(found, team_id)
        if not staff and not _is_organizer(found, by):
            _officer_of(team, by)
        if not found.is_live:
            raise LeagueError("closed", _("Il campionato è concluso o annullato."))
        if team.withdrawn_at is not None:
            raise LeagueError("withdrawn", _("La squadra si è già ritirata."))
        if found.status == League.Status.ENTRY:
            team.delete()
        else:
            team.withdrawn_at = now
            team.save(update_fields=["withdrawn_at"])
            pending = TeamMatch.objects.filter(
                Q(first_team=team) | Q(second_team=team), status=TeamMatch.Status.SCHEDULED
            ).order_by("pk")
            for match_id in pending.values_list("pk", flat=True):
                _forfeit_whole(match_id, now=now)
            found.next_due_at = now
        broadcast.league_changed_on_commit(found)
        found.save(update_fields=["version", "next_due_at"])
    return team


def _forfeit_whole(match_id: int, *, now: datetime) -> None:
    """RULES 16.8: a match not started of a withdrawn team: every board of that side empty, lost
    by forfeit (RULES 16.4); both withdrawn, 0-0 on every board. Never played, never rated."""
    match = locks.lock_one(TeamMatch, match_id, locks.Rank.EVENT)
    if match.status != TeamMatch.Status.SCHEDULED:
        return
    first_in = match.first_team.withdrawn_at is None
    second_in = match.second_team.withdrawn_at is None
    first, second = rules.forfeit_points(first_in, second_in)
    boards = []
    for number in range(1, match.boards + 1):
        board = Board(match=match, number=number, done=True)
        for n in range(1, match.legs + 1):
            board.set_points(n, first, second, played=False)
        boards.append(board)
    Board.objects.bulk_create(boards)
    match.first_points = first * match.boards * match.legs
    match.second_points = second * match.boards * match.legs
    match.first_match_points, match.second_match_points = rules.match_points(
        match.first_points, match.second_points
    )
    match.status = TeamMatch.Status.FINISHED
    match.started_at = match.finished_at = now
    notices.match_forfeited(match)
    match.next_due_at = None
    broadcast.changed_on_commit(match)
    match.save()


# --- the start and the rounds ----------------------------------------------------------------


def _fill_rosters(found: League, teams: list[LeagueTeam], now: datetime) -> None:
    """RULES 16.8 Decision: a team whose officers named nobody by the start plays with every
    member of its club on no other team's roster that season."""
    for team in teams:
        if team.roster.exists():
            continue
        taken = LeagueMember.objects.filter(season=found.season).values_list("player_id", flat=True)
        free = (
            Membership.objects.filter(club_id=team.club_id, left_at__isnull=True)
            .exclude(user_id__in=taken)
            .values_list("user_id", flat=True)
        )
        # A player a roster of another league of the season takes at this very moment stays
        # theirs (the database's one-team-a-season constraint): not added here.
        LeagueMember.objects.bulk_create(
            [LeagueMember(team=team, player_id=p, season=found.season, added_at=now) for p in free],
            ignore_conflicts=True,
        )


def _seed(found: League, teams: list[LeagueTeam]) -> list[LeagueTeam]:
    """RULES 16.8: a Swiss's pairing numbers: the average rating of the team's N best-rated
    players (its roster) at the start, descending, then the name."""
    averages = {}
    for team in teams:
        roster = list(team.roster.values_list("player_id", flat=True))
        ratings = sorted(
            ratings_snapshot(
                player_ids=roster, variant=found.variant, cadence=found.cadence
            ).values(),
            reverse=True,
        )[: found.boards]
        averages[team.pk] = sum(ratings) / len(ratings) if ratings else 0
    return sorted(teams, key=lambda t: (-averages[t.pk], t.name.lower(), t.pk))


def league_start(*, league_id: int, by=None, now: datetime | None = None) -> League | None:
    """RULES 16.8: draw the league numbers, fix the system and the rounds' dates, make the
    round robin's whole calendar (or pair a Swiss's first round). The organizer (`by`) any time
    before the first round; the tick (`by` None) `LEAGUE_AUTOSTART` before it. Under three
    teams left: refused to the organizer, cancelled by the tick. Safe twice."""
    now = now or timezone.now()
    with locks.atomic():
        found = _league_locked(league_id)
        if found.status != League.Status.ENTRY:
            if by is None:
                return None
            raise LeagueError("started", _("Il campionato è già iniziato o concluso."))
        if by is not None and not _is_organizer(found, by):
            raise LeagueError("not_organizer", _("Solo l'organizzatore avvia il campionato."))
        teams = list(found.teams.select_related("club").order_by("pk"))
        if len(teams) < league.TEAMS_MIN:
            if by is not None:
                raise LeagueError(
                    "teams", _("Servono almeno %(n)d squadre.") % {"n": league.TEAMS_MIN}
                )
            found.status = League.Status.CANCELLED
            found.cancelled_at = now
            found.next_due_at = None
            found.save(update_fields=["status", "cancelled_at", "next_due_at"])
            _rosters_freed(found)
            return found
        # RULES 16.8: empty rosters filled in the order the teams were entered (a club's first
        # team first), before the lot reorders them.
        _fill_rosters(found, teams, now)
        rng = random.Random(f"{found.seed}:league")
        rng.shuffle(teams)  # RULES 16.8: league numbers by lot, as Berger numbers (RULES 5.1)
        for number, team in enumerate(teams, start=1):
            team.number = number
        found.system = league.league_system(len(teams))
        if found.system == league.ROUND_ROBIN:
            calendar = league.round_robin(
                berger_schedule(len(teams)), teams=len(teams), double=found.double_round_robin
            )
            found.rounds = len(calendar)
        else:
            calendar = ()
            found.rounds = league.swiss_rounds(len(teams))
        if found.system == league.SWISS:
            for seeding, team in enumerate(_seed(found, teams), start=1):
                team.seeding = seeding
        LeagueTeam.objects.bulk_update(teams, ["number", "seeding"])
        found.status = League.Status.RUNNING
        found.started_at = now
        # RULES 16.8 Decision: a start too late for round 1's date (the tick down) moves every
        # round by the same delay, so the rounds keep their gaps.
        delay = max(timedelta(0), now + START_MIN - found.round_date(1))
        rounds = LeagueRound.objects.bulk_create(
            LeagueRound(league=found, number=n, starts_at=found.round_date(n) + delay)
            for n in range(1, found.rounds + 1)
        )
        by_number = {t.number: t for t in teams}
        for row, planned in zip(rounds, calendar, strict=False):
            _round_made(
                found,
                row,
                [(by_number[f.first], by_number[f.second]) for f in planned.fixtures],
                bye=by_number.get(planned.bye),
                now=now,
            )
        if found.system == league.SWISS:
            _pair_swiss(found, rounds[0], now)
        found.next_due_at = now + LEAGUE_POLL
        broadcast.league_changed_on_commit(found)
        found.save()
    return found


def _round_made(
    found: League,
    row: LeagueRound,
    pairs: Sequence[tuple[LeagueTeam, LeagueTeam]],
    *,
    bye: LeagueTeam | None,
    now: datetime,
) -> None:
    """A round's matches, at the round's date (RULES 16.8: every round on its date, not after
    the one before). Decision: a round made less than START_MIN before its date starts
    START_MIN from now, so its captains keep the hour their line-ups need (RULES 16.1)."""
    if row.starts_at < now + START_MIN:
        row.starts_at = now + START_MIN
    row.paired_at = now
    row.bye_team = bye
    row.save(update_fields=["starts_at", "paired_at", "bye_team"])
    for first, second in pairs:
        match = TeamMatch(
            opened_by_id=found.opened_by_id,
            first_club_id=first.club_id,
            second_club_id=second.club_id,
            first_team=first,
            second_team=second,
            league_round=row,
            boards=found.boards,
            legs=found.legs,
            seed=random.SystemRandom().getrandbits(62),
        )
        name = _("%(first)s – %(second)s, turno %(round)d") % {
            "first": first.name,
            "second": second.name,
            "round": row.number,
        }
        events.apply_options(
            match,
            _match_options(found, name=name[:80], starts_at=row.starts_at),
            double_games=found.legs == 2,
        )
        match.save()
        if first.withdrawn_at is not None or second.withdrawn_at is not None:
            _forfeit_whole(match.pk, now=now)


def _pair_swiss(found: League, row: LeagueRound, now: datetime) -> None:
    """RULES 16.8: Lim on match points, the first board's colours, withdrawn teams out."""
    teams = list(found.teams.order_by("seeding"))
    by_pk = {t.pk: t for t in teams}
    # RULES 16.8: a match with no board played is no meeting for the Swiss pairing.
    played = set(
        Board.objects.filter(match__league_round__league=found)
        .filter(Q(played1=True) | Q(played2=True))
        .values_list("match_id", flat=True)
    )
    rounds = []
    for earlier in found.round_rows.filter(number__lt=row.number).order_by("number"):
        results = tuple(
            league.MatchResult(
                first=by_pk[m.first_team_id].number,
                second=by_pk[m.second_team_id].number,
                first_points=m.first_points,
                second_points=m.second_points,
                played=m.pk in played,
            )
            for m in earlier.matches.filter(status=TeamMatch.Status.FINISHED).order_by("pk")
        )
        bye = by_pk[earlier.bye_team_id].number if earlier.bye_team_id else None
        rounds.append(league.SwissRound(matches=results, bye=bye))
    states = league.swiss_teams(rounds, seeding=[t.number for t in teams])
    by_number = {t.number: t for t in teams}
    players = league.player_states([s for s in states if by_number[s.team].withdrawn_at is None])
    by_seed = {s.number: by_number[s.team] for s in states}
    pairing = lim.pair_round(players, RoundSpec(number=row.number, total_rounds=found.rounds))
    pairs = [(by_seed[g.white], by_seed[g.black]) for g in pairing.games]
    bye = by_seed[pairing.bye] if pairing.bye is not None else None
    _round_made(found, row, pairs, bye=bye, now=now)


def _league_progress(found: League, now: datetime) -> None:
    """Under the league's lock: pair the next Swiss round once the rounds before are over;
    end the league once every round is made and every match over."""
    open_matches = TeamMatch.objects.filter(league_round__league=found).exclude(
        status__in=[TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED]
    )
    unpaired = found.round_rows.filter(paired_at__isnull=True).order_by("number").first()
    if unpaired is not None:
        if not open_matches.exists():
            try:
                _pair_swiss(found, unpaired, now)
            except lim.NoLegalPairing:  # Lim 11: no legal pairing left, the league ends here
                logger.warning(
                    "league %s: no legal pairing for round %s", found.pk, unpaired.number
                )
                found.round_rows.filter(paired_at__isnull=True).delete()
                found.rounds = unpaired.number - 1
            broadcast.league_changed_on_commit(found)
    elif not open_matches.exists():
        found.status = League.Status.FINISHED
        found.finished_at = now
        broadcast.league_changed_on_commit(found)
    found.next_due_at = now + LEAGUE_POLL if found.status == League.Status.RUNNING else None
    found.save()


def leagues_due_process(*, now: datetime | None = None) -> list[int]:
    """The tick: start the leagues whose start has come, move the running ones on."""
    now = now or timezone.now()
    touched = []
    due = League.objects.filter(
        next_due_at__lte=now, status__in=[League.Status.ENTRY, League.Status.RUNNING]
    ).order_by("next_due_at", "pk")
    for league_id, status in list(due.values_list("pk", "status")):
        try:
            if status == League.Status.ENTRY:
                if league_start(league_id=league_id, now=now) is not None:
                    touched.append(league_id)
                continue
            with locks.atomic():
                found = _league_locked(league_id)
                if found.status == League.Status.RUNNING and found.next_due_at <= now:
                    _league_progress(found, now)
                    touched.append(league_id)
        except Exception:  # one league's failure holds up no other, nor the matches' starts
            logger.exception("league %s: the tick's step failed", league_id)
    return touched
