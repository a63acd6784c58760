"""The leagues' services on real PostgreSQL (RULES 16.8): opening one, the teams and their
rosters for the season, the start (league numbers, the round robin's dated calendar, a Swiss's
first round), a roster's players only in a league match's line-up, a team withdrawing (its
matches not started forfeited, what it played kept), a Swiss's next round paired by the tick
once the one before is over, the end. Bad input refused whole with the reason."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db.models import Q
from django.utils import timezone

from accounts import personal
from accounts.tests.factories import UserFactory
from events.pairing.berger import berger_schedule
from teams import leagues, services
from teams.leagues import LeagueData, LeagueError
from teams.models import Board, League, LeagueMember, LeagueRound, LeagueTeam, TeamMatch
from teams.tests.factories import side

pytestmark = pytest.mark.django_db


def league_data(sides, **fields) -> LeagueData:
    return LeagueData(
        name=fields.pop("name", "Campionato lombardo"),
        season=fields.pop("season", "2026/27"),
        club_ids=fields.pop("club_ids", [s.club.pk for s in sides]),
        boards=fields.pop("boards", 4),
        variant="chess",
        base_seconds=180,
        increment_seconds=2,
        first_round_at=fields.pop("first_round_at", timezone.now() + timedelta(days=3)),
        round_gap=fields.pop("round_gap", timedelta(days=7)),
        **fields,
    )


def open_league(sides, **fields) -> League:
    return leagues.league_create(by=sides[0].captain, data=league_data(sides, **fields))


def four_sides():
    return [side([2000 - 100 * i - 10 * k for i in range(5)]) for k in range(4)]


def test_an_officer_of_one_of_its_clubs_opens_a_league_of_one_team_a_club():
    sides = four_sides()
    league = open_league(sides)
    teams = list(league.teams.order_by("pk"))
    assert [t.club for t in teams] == [s.club for s in sides]
    assert [t.name for t in teams] == [s.club.name for s in sides]
    assert (league.status, league.cadence, league.legs) == ("entry", "blitz", 1)
    assert league.next_due_at == league.first_round_at - timedelta(days=1)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"boards": 1}, "boards"),
        ({"first_round_at_hours": 1}, "first_round_at"),
        ({"first_round_at_hours": 24 * 91}, "first_round_at"),
        ({"round_gap": timedelta(hours=12)}, "round_gap"),
        ({"name": " "}, "name"),
    ],
)
def test_a_league_outside_the_limits_is_refused(change, code):
    sides = four_sides()
    hours = change.pop("first_round_at_hours", None)
    if hours is not None:
        change["first_round_at"] = timezone.now() + timedelta(hours=hours)
    with pytest.raises(LeagueError) as refused:
        open_league(sides, **change)
    assert refused.value.code == code
    assert not League.objects.exists()


def test_too_few_clubs_a_club_twice_and_a_non_officer_are_refused():
    sides = four_sides()
    with pytest.raises(LeagueError) as refused:
        open_league(sides[:2])
    assert refused.value.code == "teams"
    with pytest.raises(LeagueError) as refused:
        open_league(sides, club_ids=[s.club.pk for s in sides] + [sides[0].club.pk])
    assert refused.value.code == "club_twice"
    with pytest.raises(LeagueError) as refused:
        leagues.league_create(by=sides[0].players[0], data=league_data(sides))
    assert refused.value.code == "not_officer"
    open_league(sides)
    with pytest.raises(LeagueError) as refused:
        open_league(sides, name="Un altro")
    assert refused.value.code == "live_league"
    assert League.objects.count() == 1


def test_a_roster_is_of_members_one_team_a_season_and_refused_whole():
    sides = four_sides()
    league = open_league(sides)
    team = league.teams.get(club=sides[0].club)
    roster = [p.pk for p in sides[0].players[:4]]
    leagues.team_set(
        league_id=league.pk,
        team_id=team.pk,
        by=sides[0].captain,
        name="Milano A",
        player_ids=roster,
    )
    team.refresh_from_db()
    assert team.name == "Milano A"
    assert set(team.roster.values_list("player_id", flat=True)) == set(roster)
    # A player of another club: refused, nothing changes (the name neither).
    with pytest.raises(LeagueError) as refused:
        leagues.team_set(
            league_id=league.pk,
            team_id=team.pk,
            by=sides[0].captain,
            name="Milano B",
            player_ids=[*roster, sides[1].players[0].pk],
        )
    assert refused.value.code == "not_member"
    team.refresh_from_db()
    assert team.name == "Milano A"
    # Another league of the same season: its team cannot take a player of Milano A.
    others = [sides[0], *[side([1500]) for _ in range(2)]]
    other = leagues.league_create(by=others[1].captain, data=league_data(others, name="Coppa"))
    second = other.teams.get(club=sides[0].club)
    with pytest.raises(LeagueError) as refused:
        leagues.team_set(
            league_id=other.pk,
            team_id=second.pk,
            by=sides[0].captain,
            name="Milano B",
            player_ids=[sides[0].players[0].pk],
        )
    assert refused.value.code == "other_team"
    assert "Milano A" in refused.value.message
    leagues.team_set(
        league_id=other.pk,
        team_id=second.pk,
        by=sides[0].captain,
        name="Milano B",
        player_ids=[sides[0].players[4].pk],
    )
    # Only the club's officers; only a team of this league.
    with pytest.raises(LeagueError) as refused:
        leagues.team_set(
            league_id=league.pk, team_id=team.pk, by=sides[1].captain, name="x", player_ids=[]
        )
    assert refused.value.code == "not_officer"
    with pytest.raises(LeagueError) as refused:
        leagues.team_set(
            league_id=league.pk, team_id=second.pk, by=sides[0].captain, name="x", player_ids=[]
        )
    assert refused.value.code == "team_missing"


def matches_of(team):
    """The team's league matches, first-named or second."""
    return TeamMatch.objects.filter(Q(first_team=team) | Q(second_team=team))


def start(league, sides):
    return leagues.league_start(league_id=league.pk, by=sides[0].captain)


def test_the_start_draws_the_numbers_and_makes_the_round_robin_calendar_on_its_dates():
    sides = four_sides()
    league = open_league(sides, double_round_robin=True)
    start(league, sides)
    league.refresh_from_db()
    assert (league.status, league.system, league.rounds) == ("running", "round_robin", 6)
    teams = {t.number: t for t in league.teams.all()}
    assert sorted(teams) == [1, 2, 3, 4]
    table = berger_schedule(4)
    for row in LeagueRound.objects.filter(league=league).order_by("number"):
        assert row.starts_at == league.first_round_at + (row.number - 1) * timedelta(days=7)
        pairs = {
            (m.first_team.number, m.second_team.number)
            for m in row.matches.select_related("first_team", "second_team")
        }
        berger = table[(row.number - 1) % 3].pairs
        # RULES 16.8: the first number first-named; the second cycle swapped.
        expected = {tuple(p) if row.number <= 3 else (p[1], p[0]) for p in berger}
        assert pairs == expected
        for match in row.matches.all():
            assert match.starts_at == row.starts_at
            assert (match.boards, match.cadence, match.opened_by_id) == (
                4,
                "blitz",
                sides[0].captain.pk,
            )
            assert match.status == TeamMatch.Status.SCHEDULED
    # RULES 16.8 Decision: an empty roster is every member on no other roster of the season.
    for team in teams.values():
        assert team.roster.count() == 6  # five players and the captain
    with pytest.raises(LeagueError) as refused:
        start(league, sides)
    assert refused.value.code == "started"


def test_the_tick_starts_a_league_a_day_before_its_first_round_and_cancels_one_too_small():
    sides = four_sides()
    league = open_league(sides)
    before = league.first_round_at - timedelta(days=1, seconds=1)
    assert leagues.leagues_due_process(now=before) == []
    assert leagues.leagues_due_process(now=before + timedelta(seconds=1)) == [league.pk]
    league.refresh_from_db()
    assert league.status == "running"
    assert TeamMatch.objects.filter(league_round__league=league).count() == 6
    # Three clubs, one withdrawing before the start: two left, the tick cancels it.
    small = [side([1500]) for _ in range(3)]
    other = open_league(small, name="Piccolo")
    team = other.teams.get(club=small[2].club)
    leagues.team_withdraw(league_id=other.pk, team_id=team.pk, by=small[2].captain)
    assert not LeagueTeam.objects.filter(pk=team.pk).exists()
    with pytest.raises(LeagueError) as refused:
        leagues.league_start(league_id=other.pk, by=small[0].captain)
    assert refused.value.code == "teams"
    leagues.leagues_due_process(now=other.first_round_at)
    other.refresh_from_db()
    assert other.status == "cancelled"


def test_a_league_match_line_up_names_the_teams_roster_only():
    sides = four_sides()
    league = open_league(sides)
    team = league.teams.get(club=sides[0].club)
    leagues.team_set(
        league_id=league.pk,
        team_id=team.pk,
        by=sides[0].captain,
        name="Milano A",
        player_ids=[p.pk for p in sides[0].players[:4]],
    )
    start(league, sides)
    match = TeamMatch.objects.filter(league_round__league=league, league_round__number=1).filter(
        first_club=sides[0].club
    ) | TeamMatch.objects.filter(
        league_round__league=league, league_round__number=1, second_club=sides[0].club
    )
    match = match.get()
    outside = sides[0].players[4]  # a member of the club, not on the roster
    with pytest.raises(services.TeamError) as refused:
        services.lineup_set(
            match_id=match.pk,
            by=sides[0].captain,
            player_ids=[p.pk for p in sides[0].players[:3]] + [outside.pk],
        )
    assert refused.value.code == "not_on_roster"
    assert "Milano A" in refused.value.message
    with pytest.raises(services.TeamError) as refused:
        services.availability_set(match_id=match.pk, user=outside, available=True)
    assert refused.value.code == "not_on_roster"
    services.lineup_set(
        match_id=match.pk, by=sides[0].captain, player_ids=[p.pk for p in sides[0].players[:4]]
    )
    # The player's data download names the team they played for, beside its club.
    [row] = personal.sections(sides[0].players[0])["team_matches"]
    assert (row["club"], row["team"]) == (sides[0].club.name, "Milano A")


def test_a_team_withdrawing_mid_league_loses_its_matches_not_started_and_keeps_the_played():
    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    league.refresh_from_db()
    round1 = league.round_rows.get(number=1)
    for match in round1.matches.all():  # round 1 played with nobody fielded: 0-0 everywhere
        services.match_start(match_id=match.pk, now=match.starts_at)
    gone = league.teams.get(club=sides[3].club)
    # A member is no officer: refused.
    with pytest.raises(LeagueError) as refused:
        leagues.team_withdraw(league_id=league.pk, team_id=gone.pk, by=sides[3].players[0])
    assert refused.value.code == "not_officer"
    leagues.team_withdraw(league_id=league.pk, team_id=gone.pk, by=sides[3].captain)
    played = matches_of(gone).get(league_round=round1)
    assert (played.first_points, played.second_points) == (0, 0)  # what it played stands
    later = matches_of(gone).filter(league_round__number__gt=1)
    assert later.count() == 2
    for match in later:
        assert match.status == TeamMatch.Status.FINISHED
        withdrawn_first = match.first_team_id == gone.pk
        mine, theirs = (
            (match.first_points, match.second_points)
            if withdrawn_first
            else (match.second_points, match.first_points)
        )
        assert (mine, theirs) == (0, 8)  # 4 boards × 2 (RULES 16.4, 16.8)
        assert Board.objects.filter(match=match, played1=False, done=True).count() == 4
        assert not Board.objects.filter(match=match).exclude(game1=None).exists()
    with pytest.raises(LeagueError) as refused:
        leagues.team_withdraw(league_id=league.pk, team_id=gone.pk, by=sides[3].captain)
    assert refused.value.code == "withdrawn"


def test_the_league_ends_when_every_match_is_over():
    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    matches = list(TeamMatch.objects.filter(league_round__league=league))
    for match in matches:
        services.match_start(match_id=match.pk, now=match.starts_at)
    league.refresh_from_db()
    assert leagues.leagues_due_process(now=league.next_due_at) == [league.pk]
    league.refresh_from_db()
    assert (league.status, league.next_due_at) == ("finished", None)


def eleven_sides():
    return [side([2100 - 40 * k, 2000 - 40 * k]) for k in range(11)]


def test_a_swiss_pairs_round_one_at_the_start_and_the_next_once_the_round_is_over():
    sides = eleven_sides()
    league = open_league(sides, boards=2)
    start(league, sides)
    league.refresh_from_db()
    assert (league.system, league.rounds) == ("swiss", 6)
    # RULES 16.8: pairing numbers by the average rating of the two best, descending.
    seeding = list(league.teams.order_by("seeding").values_list("club_id", flat=True))
    assert seeding == [s.club.pk for s in sides]
    round1 = league.round_rows.get(number=1)
    assert round1.matches.count() == 5 and round1.bye_team is not None
    assert not league.round_rows.filter(number=2).first().matches.exists()
    # Lim 1: the bye goes to the lowest of the lowest group, number 11 in round 1.
    assert round1.bye_team.seeding == 11
    first_round = list(round1.matches.all())
    for match in first_round[:-1]:
        services.match_start(match_id=match.pk, now=match.starts_at)
    # One match still to play: the tick waits.
    now = first_round[0].starts_at + timedelta(hours=1)
    leagues.leagues_due_process(now=now + timedelta(minutes=5))
    assert not league.round_rows.get(number=2).matches.exists()
    services.match_start(match_id=first_round[-1].pk, now=first_round[-1].starts_at)
    leagues.leagues_due_process(now=now + timedelta(minutes=10))
    round2 = league.round_rows.get(number=2)
    assert round2.matches.count() == 5 and round2.paired_at is not None
    assert round2.bye_team_id != round1.bye_team_id  # Lim 1: never the bye twice
    assert round2.starts_at == league.first_round_at + timedelta(days=7)


def test_the_rounds_are_on_their_dates_and_a_late_round_keeps_the_captains_hour():
    sides = eleven_sides()
    league = open_league(sides, boards=2, round_gap=timedelta(days=1))
    start(league, sides)
    league.refresh_from_db()
    round1 = league.round_rows.get(number=1)
    for match in round1.matches.all():
        services.match_start(match_id=match.pk, now=match.starts_at)
    late = league.round_date(2) + timedelta(hours=3)  # round 1 over after round 2's date
    leagues.leagues_due_process(now=late)
    round2 = league.round_rows.get(number=2)
    assert round2.starts_at == late + timedelta(hours=1)
    assert {m.starts_at for m in round2.matches.all()} == {late + timedelta(hours=1)}


def test_a_roster_player_who_played_for_the_team_stays_on_it():
    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    team = league.teams.get(club=sides[0].club)
    match = matches_of(team).get(league_round__number=1)
    services.lineup_set(
        match_id=match.pk, by=sides[0].captain, player_ids=[p.pk for p in sides[0].players[:4]]
    )
    services.match_start(match_id=match.pk, now=match.starts_at)
    with pytest.raises(LeagueError) as refused:
        leagues.team_set(
            league_id=league.pk,
            team_id=team.pk,
            by=sides[0].captain,
            name=team.name,
            player_ids=[p.pk for p in sides[0].players[1:]],
        )
    assert refused.value.code == "played"
    assert sides[0].players[0].username in refused.value.message
    assert LeagueMember.objects.filter(team=team, player=sides[0].players[0]).exists()


def test_only_the_organizer_cancels_before_the_start_and_the_staff_any_time():
    sides = four_sides()
    league = open_league(sides)
    with pytest.raises(LeagueError):
        leagues.league_cancel(league_id=league.pk, by=sides[1].captain)
    start(league, sides)
    with pytest.raises(LeagueError):
        leagues.league_cancel(league_id=league.pk, by=sides[0].captain)
    leagues.league_cancel(league_id=league.pk, by=UserFactory(is_staff=True), staff=True)
    league.refresh_from_db()
    assert league.status == "cancelled"
    assert (
        not TeamMatch.objects.filter(league_round__league=league)
        .exclude(status=TeamMatch.Status.CANCELLED)
        .exists()
    )


def test_two_teams_of_one_club_play_one_league_each_with_its_roster_and_line_up():
    """RULES 16.8: "Milano B" added before the start, each team its own roster for the season;
    when the two meet, the club's officer saves each line-up saying whose, a player of one
    roster never in the other's, and the start seats each side from its own."""
    sides = [side([2000 - 50 * i for i in range(8)]), *[side([1500, 1400]) for _ in range(2)]]
    league = open_league(sides, boards=2)
    milano = sides[0]
    with pytest.raises(LeagueError) as refused:
        leagues.team_add(league_id=league.pk, by=milano.players[0])  # a member, no officer
    assert refused.value.code == "not_officer"
    second = leagues.team_add(league_id=league.pk, by=milano.captain)
    assert second.name == f"{milano.club.name} B"
    first = league.teams.get(club=milano.club, name=milano.club.name)
    a_players, b_players = milano.players[:4], milano.players[4:]
    leagues.team_set(
        league_id=league.pk,
        team_id=first.pk,
        by=milano.captain,
        name="Milano A",
        player_ids=[p.pk for p in a_players],
    )
    leagues.team_set(
        league_id=league.pk,
        team_id=second.pk,
        by=milano.captain,
        name="Milano B",
        player_ids=[p.pk for p in b_players],
    )
    start(league, sides)
    match = TeamMatch.objects.get(
        Q(first_team=first, second_team=second) | Q(first_team=second, second_team=first)
    )
    assert match.first_club == match.second_club == milano.club
    a_side = 1 if match.first_team_id == first.pk else 2
    b_side = 3 - a_side
    with pytest.raises(services.TeamError) as refused:  # whose line-up?
        services.lineup_set(
            match_id=match.pk, by=milano.captain, player_ids=[p.pk for p in a_players[:2]]
        )
    assert refused.value.code == "which_side"
    with pytest.raises(services.TeamError) as refused:  # an A player in B's line-up
        services.lineup_set(
            match_id=match.pk,
            by=milano.captain,
            side=b_side,
            player_ids=[b_players[0].pk, a_players[0].pk],
        )
    assert refused.value.code == "not_on_roster"
    services.lineup_set(
        match_id=match.pk, by=milano.captain, side=a_side, player_ids=[p.pk for p in a_players[:2]]
    )
    # B's line-up left to its available players: one said so, and goes to B's side.
    services.availability_set(match_id=match.pk, user=b_players[1], available=True)
    assert match.availabilities.get(player=b_players[1]).side == b_side
    services.match_start(match_id=match.pk, now=match.starts_at)
    boards = list(Board.objects.filter(match=match).order_by("number"))
    seated = {
        a_side: [b.first_player_id if a_side == 1 else b.second_player_id for b in boards],
        b_side: [b.first_player_id if b_side == 1 else b.second_player_id for b in boards],
    }
    assert seated[a_side] == [a_players[0].pk, a_players[1].pk]
    assert seated[b_side] == [b_players[1].pk, None]  # board 2 empty: forfeited


def test_the_tables_of_a_round_robin_after_one_round():
    from teams.league_tables import league_tables

    sides = four_sides()
    league = open_league(sides, boards=2)
    start(league, sides)
    league.refresh_from_db()
    round1 = league.round_rows.get(number=1)
    one, two = round1.matches.order_by("pk")
    # Match one: only the first team fields anyone (2 boards won by forfeit, 4-0); match two:
    # nobody fields anyone (0-0, a drawn match).
    first_side = next(s for s in sides if s.club == one.first_club)
    services.lineup_set(
        match_id=one.pk, by=first_side.captain, player_ids=[p.pk for p in first_side.players[:2]]
    )
    services.match_start(match_id=one.pk, now=one.starts_at)
    services.match_start(match_id=two.pk, now=two.starts_at)
    tables = league_tables(league)
    top = tables.standings[0]
    assert (top.team, top.row.match_points, top.row.board_points) == (one.first_team, 2, 4)
    assert [tr.row.match_points for tr in tables.standings] == [2, 1, 1, 0]
    cross = {team.pk: cells for team, cells in tables.cross}
    columns = [tr.team.pk for tr in tables.standings]
    assert cross[one.first_team_id][columns.index(one.second_team_id)].scores == ("2",)
    assert cross[one.second_team_id][columns.index(one.first_team_id)].scores == ("0",)
    assert cross[one.first_team_id][0].own
    assert [len(r.matches) for r in tables.rounds] == [2, 2, 2]
    assert tables.prizes == []  # forfeits are no games for a board prize
    assert tables.prize_minimum == 2  # ⌈3 matches × 1 game ÷ 2⌉


def test_a_players_rosters_are_in_their_data_and_leave_with_the_account_unless_played():
    from accounts import personal
    from accounts import services as accounts

    sides = four_sides()
    league = open_league(sides)
    team = league.teams.get(club=sides[0].club)
    a, b = sides[0].players[:2]
    leagues.team_set(
        league_id=league.pk,
        team_id=team.pk,
        by=sides[0].captain,
        name="Milano A",
        player_ids=[a.pk, b.pk],
    )
    [row] = personal.sections(a)["league_rosters"]
    assert (row["team"], row["season"]) == ("Milano A", "2026/27")
    start(league, sides)
    match = matches_of(team).get(league_round__number=1)
    services.lineup_set(match_id=match.pk, by=sides[0].captain, player_ids=[a.pk])
    services.match_start(match_id=match.pk, now=match.starts_at)
    accounts.user_delete(user_id=b.pk)  # never played for the team: off its roster
    assert not LeagueMember.objects.filter(player=b).exists()
    from games.models import Game

    Game.objects.filter(pk=Board.objects.get(match=match, number=1).game1_id).update(
        status="finished", result="1-0"
    )
    TeamMatch.objects.filter(pk=match.pk).update(status=TeamMatch.Status.FINISHED)
    accounts.user_delete(user_id=a.pk)  # played: the roster keeps the tombstone
    assert LeagueMember.objects.filter(player=a, team=team).exists()


def test_the_admin_lists_shows_and_cancels_a_league(client):
    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert client.get("/admin/teams/league/").status_code == 200
    page = client.get(f"/admin/teams/league/{league.pk}/change/")
    assert page.status_code == 200 and league.name in page.content.decode()
    done = client.post(
        "/admin/teams/league/",
        {"action": "cancel_leagues", "_selected_action": [league.pk]},
        follow=True,
    )
    assert "1 campionato annullato." in done.content.decode()
    league.refresh_from_db()
    assert league.status == "cancelled"
    assert (
        not TeamMatch.objects.filter(league_round__league=league)
        .exclude(status=TeamMatch.Status.CANCELLED)
        .exists()
    )


# --- at once ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_organizer_and_the_tick_starting_at_once_make_one_calendar():
    """Fails if the start does not lock the league row before reading its status: both would
    draw numbers and make the calendar (twelve matches, numbers clashing)."""
    from tests.concurrency import run_at_once

    sides = four_sides()
    league = open_league(sides)
    results = run_at_once(
        lambda: leagues.league_start(league_id=league.pk, by=None, now=league.first_round_at),
        lambda: leagues.league_start(league_id=league.pk, by=None, now=league.first_round_at),
    )
    assert sorted(r is None for r in results) == [False, True]
    assert TeamMatch.objects.filter(league_round__league=league).count() == 6
    assert LeagueRound.objects.filter(league=league).count() == 3


@pytest.mark.django_db(transaction=True)
def test_two_rosters_of_one_season_taking_one_player_at_once_keep_them_on_one():
    """Two leagues (two rows, two locks) of one season: the database's one-team-a-season
    constraint decides, and the loser is told, its roster unchanged."""
    from tests.concurrency import Raised, run_at_once

    sides = four_sides()
    first = open_league(sides)
    others = [sides[0], side([1500]), side([1500])]
    second = leagues.league_create(by=others[1].captain, data=league_data(others, name="Coppa"))
    player = sides[0].players[0]

    def roster(found):
        team = found.teams.get(club=sides[0].club)
        return lambda: leagues.team_set(
            league_id=found.pk,
            team_id=team.pk,
            by=sides[0].captain,
            name=f"Milano {found.pk}",
            player_ids=[player.pk],
        )

    results = run_at_once(roster(first), roster(second), errors=True)
    refused = [r for r in results if isinstance(r, Raised)]
    assert len(refused) == 1
    assert refused[0].error.code == "other_team"
    assert LeagueMember.objects.filter(player=player).count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_withdrawal_and_its_match_starting_at_once_never_both_pass():
    """The match is either started (and played out) or forfeited whole, never both: the
    withdrawal forfeits under the match's lock and only a match still scheduled."""
    from tests.concurrency import run_at_once

    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    gone = league.teams.get(club=sides[3].club)
    match = matches_of(gone).get(league_round__number=1)
    run_at_once(
        lambda: services.match_start(match_id=match.pk, now=match.starts_at),
        lambda: leagues.team_withdraw(league_id=league.pk, team_id=gone.pk, by=sides[3].captain),
    )
    match.refresh_from_db()
    assert Board.objects.filter(match=match).count() == 4
    assert match.status in (TeamMatch.Status.RUNNING, TeamMatch.Status.FINISHED)


def test_two_teams_of_a_league_never_share_a_name():
    sides = four_sides()
    league = open_league(sides)
    first, second = league.teams.order_by("pk")[:2]
    leagues.team_set(
        league_id=league.pk,
        team_id=first.pk,
        by=sides[0].captain,
        name="Scacco Matto",
        player_ids=[],
    )
    with pytest.raises(LeagueError) as refused:
        leagues.team_set(
            league_id=league.pk,
            team_id=second.pk,
            by=sides[1].captain,
            name="scacco matto",
            player_ids=[],
        )
    assert refused.value.code == "team_name_taken"
    second.refresh_from_db()
    assert second.name == sides[1].club.name


def test_the_trf_download_and_long_team_names_cut_apart(client):
    from events.pairing.trf import read_trf

    sides = four_sides()
    league = open_league(sides, boards=2)
    assert client.get(f"/incontri/campionati/{league.pk}/trf/").status_code == 404  # not started
    long = "Circolo Scacchistico Dilettantistico"  # 36 characters: cut to 32
    teams = list(league.teams.order_by("pk"))
    for team, s, tail in zip(teams[:2], sides[:2], ["Alfa", "Beta"], strict=True):
        leagues.team_set(
            league_id=league.pk,
            team_id=team.pk,
            by=s.captain,
            name=f"{long} {tail}",
            player_ids=[p.pk for p in s.players[:2]],
        )
    start(league, sides)
    row = league.round_rows.get(number=1)
    for match in row.matches.all():
        for club in (match.first_club, match.second_club):
            s = next(x for x in sides if x.club == club)
            services.lineup_set(
                match_id=match.pk, by=s.captain, player_ids=[p.pk for p in s.players[:2]]
            )
        services.match_start(match_id=match.pk, now=match.starts_at)
        for board in Board.objects.filter(match=match):  # every game drawn by hand
            from games.models import Game

            Game.objects.filter(pk=board.game1_id).update(status="finished", result="1/2-1/2")
            services.match_game_finished(game_id=board.game1_id)
    response = client.get(f"/incontri/campionati/{league.pk}/trf/")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="campionato-{league.pk}.trf"'
    back = read_trf(response.content.decode())
    names = sorted(t.name for t in back.teams)
    number = {t.pk: t.number for t in league.teams.all()}
    assert len(names) == 4 and all(len(n) <= 32 for n in names)
    for team in teams[:2]:
        tail = f" ({number[team.pk]})"  # the cut names would clash: each ends with its number
        assert f"{long[: 32 - len(tail)].rstrip()}{tail}" in names
    assert len(back.games) == 4


# --- the review's cases ----------------------------------------------------------------------


def test_the_staff_cancel_a_league_with_a_match_being_played():
    """Every live match locked and cancelled before any game is ended: a GAME lock before the
    next match's EVENT lock broke the order (LockOrderError) and rolled it all back."""
    from games.models import Game

    sides = four_sides()
    by_club = {s.club.pk: s for s in sides}
    league = open_league(sides)
    start(league, sides)
    match = TeamMatch.objects.filter(league_round__league=league).order_by("pk").first()
    for club_id in match.club_ids():
        s = by_club[club_id]
        services.lineup_set(
            match_id=match.pk, by=s.captain, player_ids=[p.pk for p in s.players[:4]]
        )
    services.match_start(match_id=match.pk, now=match.starts_at)
    leagues.league_cancel(league_id=league.pk, by=UserFactory(is_staff=True), staff=True)
    assert (
        not TeamMatch.objects.filter(league_round__league=league)
        .exclude(status=TeamMatch.Status.CANCELLED)
        .exists()
    )
    games = Game.objects.filter(pk__in=Board.objects.filter(match=match).values("game1"))
    assert games.count() == 4
    # Ended by the event, nothing rated (nobody sat at them: 0-0, RULES 3).
    assert all(g.status == "finished" and not g.rated for g in games)


def test_a_cancelled_league_frees_its_rosters_for_the_season():
    sides = four_sides()
    league = open_league(sides)
    team = league.teams.get(club=sides[0].club)
    player = sides[0].players[0]
    leagues.team_set(
        league_id=league.pk,
        team_id=team.pk,
        by=sides[0].captain,
        name="A",
        player_ids=[player.pk],
    )
    leagues.league_cancel(league_id=league.pk, by=sides[0].captain)
    other = leagues.league_create(by=sides[0].captain, data=league_data(sides, name="Nuovo"))
    again = other.teams.get(club=sides[0].club)
    leagues.team_set(
        league_id=other.pk,
        team_id=again.pk,
        by=sides[0].captain,
        name="A",
        player_ids=[player.pk],
    )
    assert LeagueMember.objects.get(player=player).team == again


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_empty_rosters_are_filled_in_the_order_the_teams_were_entered(seed):
    sides = four_sides()
    league = open_league(sides)
    League.objects.filter(pk=league.pk).update(seed=seed)  # lots that put B first, or not
    b = leagues.team_add(league_id=league.pk, by=sides[0].captain)
    a = league.teams.get(club=sides[0].club, pk__lt=b.pk)
    start(league, sides)
    assert (a.roster.count(), b.roster.count()) == (6, 0)


def test_one_leagues_failing_step_holds_up_no_other_league(monkeypatch):
    sides = four_sides()
    first = open_league(sides)
    others = [side([1500]) for _ in range(3)]
    second = leagues.league_create(by=others[0].captain, data=league_data(others, name="Coppa"))
    real = leagues.league_start

    def broken(*, league_id, **kwargs):
        if league_id == first.pk:
            raise RuntimeError("a bug in one league")
        return real(league_id=league_id, **kwargs)

    monkeypatch.setattr(leagues, "league_start", broken)
    assert leagues.leagues_due_process(now=first.first_round_at) == [second.pk]
    first.refresh_from_db()
    assert first.status == "entry"  # left due: the next tick tries again


def test_a_team_withdrawing_after_its_opponent_keeps_the_forfeit_it_already_won():
    """The first withdrawal forfeited their match at once (RULES 16.8): the second team's own
    withdrawal later leaves it as it stands (what a team played, or won, stands)."""
    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    match = TeamMatch.objects.filter(league_round__number=2).order_by("pk").first()
    for team in (match.first_team, match.second_team):
        s = next(x for x in sides if x.club == team.club)
        leagues.team_withdraw(league_id=league.pk, team_id=team.pk, by=s.captain)
    match.refresh_from_db()
    assert (match.first_points, match.second_points) == (0, 8)
    assert (match.first_match_points, match.second_match_points) == (0, 2)


def test_a_player_named_in_a_line_up_stays_on_the_roster_until_taken_out_of_it():
    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    team = league.teams.get(club=sides[0].club)
    match = matches_of(team).get(league_round__number=1)
    named = sides[0].players[:2]
    services.lineup_set(match_id=match.pk, by=sides[0].captain, player_ids=[p.pk for p in named])
    keep = [m for m in team.roster.values_list("player_id", flat=True) if m != named[1].pk]
    with pytest.raises(LeagueError) as refused:
        leagues.team_set(
            league_id=league.pk,
            team_id=team.pk,
            by=sides[0].captain,
            name=team.name,
            player_ids=keep,
        )
    assert refused.value.code == "named" and match.name in refused.value.message
    services.lineup_set(match_id=match.pk, by=sides[0].captain, player_ids=[named[0].pk])
    leagues.team_set(
        league_id=league.pk,
        team_id=team.pk,
        by=sides[0].captain,
        name=team.name,
        player_ids=keep,
    )


def test_a_late_start_moves_every_round_by_the_same_delay():
    sides = four_sides()
    league = open_league(sides, round_gap=timedelta(days=2))
    late = league.first_round_at + timedelta(days=3)  # the tick was down past round 2's date
    leagues.leagues_due_process(now=late)
    dates = list(league.round_rows.order_by("number").values_list("starts_at", flat=True))
    assert dates == [late + timedelta(hours=1) + timedelta(days=2 * k) for k in range(3)]


def test_a_league_opened_less_than_a_day_ahead_starts_two_hours_before_its_first_round():
    sides = four_sides()
    soon = timezone.now() + timedelta(hours=5)
    league = open_league(sides, first_round_at=soon)
    assert league.next_due_at == soon - timedelta(hours=2)


def test_the_line_up_page_of_two_teams_of_one_club_asks_whose(client):
    sides = [side([2000 - 50 * i for i in range(4)]), *[side([1500]) for _ in range(2)]]
    league = open_league(sides, boards=2)
    second = leagues.team_add(league_id=league.pk, by=sides[0].captain)
    first = league.teams.get(club=sides[0].club, pk__lt=second.pk)
    for team, players in ((first, sides[0].players[:2]), (second, sides[0].players[2:])):
        leagues.team_set(
            league_id=league.pk,
            team_id=team.pk,
            by=sides[0].captain,
            name=f"T{team.pk}",
            player_ids=[p.pk for p in players],
        )
    start(league, sides)
    match = TeamMatch.objects.get(
        Q(first_team=first, second_team=second) | Q(first_team=second, second_team=first)
    )
    client.force_login(sides[0].captain)
    page = client.get(f"/incontri/{match.pk}/")
    assert page.content.decode().count('data-testid="team-lineup-edit"') == 2
    asked = client.get(f"/incontri/{match.pk}/formazione/", follow=True)
    assert "Scegli di quale delle due squadre" in asked.content.decode()
    assert client.get(f"/incontri/{match.pk}/formazione/?parte=2").status_code == 200
    club_page = client.get(sides[0].club.get_absolute_url()).content.decode()
    assert club_page.count(league.get_absolute_url() + '"') == 1  # listed once


def test_the_organizer_and_the_staff_withdraw_any_team_from_the_league_page(client):
    sides = four_sides()
    league = open_league(sides)
    start(league, sides)
    other = league.teams.get(club=sides[2].club)
    client.force_login(sides[0].captain)  # the organizer, an officer of another club
    page = client.get(league.get_absolute_url()).content.decode()
    assert page.count('data-testid="league-team-withdraw"') == 4
    client.post(f"/incontri/campionati/{league.pk}/squadre/{other.pk}/ritira/")
    other.refresh_from_db()
    assert other.withdrawn_at is not None
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    last = league.teams.get(club=sides[3].club)
    client.post(f"/incontri/campionati/{league.pk}/squadre/{last.pk}/ritira/")
    last.refresh_from_db()
    assert last.withdrawn_at is not None
    client.force_login(sides[1].players[0])  # a member: no button, and the post is refused
    assert (
        'data-testid="league-team-withdraw"'
        not in client.get(league.get_absolute_url()).content.decode()
    )
    mine = league.teams.get(club=sides[1].club)
    client.post(f"/incontri/campionati/{league.pk}/squadre/{mine.pk}/ritira/")
    mine.refresh_from_db()
    assert mine.withdrawn_at is None


@pytest.mark.django_db(transaction=True)
def test_the_league_page_is_told_of_its_changes_and_re_fetches_its_tables(client):
    """Its socket says "changed" when the league changes and when one of its matches does; the
    page's htmx re-fetch gets the tables alone."""
    from asgiref.sync import async_to_sync
    from channels.db import database_sync_to_async
    from channels.routing import URLRouter
    from channels.testing import WebsocketCommunicator

    from teams.routing import websocket_urlpatterns

    sides = four_sides()
    league = open_league(sides)

    async def told(change) -> dict:
        socket = WebsocketCommunicator(
            URLRouter(websocket_urlpatterns), f"/ws/leagues/{league.pk}/"
        )
        assert (await socket.connect())[0]
        await database_sync_to_async(change)()
        message = await socket.receive_json_from(timeout=10)
        await socket.disconnect()
        return message

    assert async_to_sync(told)(lambda: start(league, sides))["type"] == "changed"
    match = TeamMatch.objects.filter(league_round__league=league).order_by("pk").first()
    assert (
        async_to_sync(told)(lambda: services.match_start(match_id=match.pk, now=match.starts_at))[
            "type"
        ]
        == "changed"
    )
    page = client.get(league.get_absolute_url())
    assert 'data-event-socket="/ws/leagues/' in page.content.decode()
    tables = client.get(league.get_absolute_url(), headers={"HX-Request": "true"})
    assert tables.status_code == 200
    assert "<h1>" not in tables.content.decode()
    assert 'data-testid="league-standings"' in tables.content.decode()
