"""The team match's services on real PostgreSQL (RULES §16): opening a match, the line-ups and
the bad-input list of the issue that applies to one match (out of order, a non-member, a player
twice, after the deadline, a captain who is no officer: a clear error, nothing half-saved),
availability and the late line-up, the start, the scoring."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.tests.factories import UserFactory
from clubs import services as clubs
from clubs.models import Membership, Role
from clubs.services import ClubError
from games import services as games
from games.models import Game, GameResult
from games.models import Status as GameStatus
from teams import services
from teams.models import Availability, Board, Lineup, LineupEntry, TeamMatch
from teams.services import TeamError
from teams.tests.factories import match_data, open_match, side
from tests.concurrency import Raised, run_at_once
from tournaments.tests.factories import RegistrationFactory, TournamentFactory

pytestmark = pytest.mark.django_db


def ids(players) -> list[int]:
    return [p.pk for p in players]


def lineup_of(match, club) -> list[int]:
    return list(
        LineupEntry.objects.filter(lineup__match=match, lineup__club=club)
        .order_by("place")
        .values_list("player_id", flat=True)
    )


# --- opening a match -----------------------------------------------------------------------------


def test_an_officer_of_the_first_club_opens_a_match():
    milano, torino = side([]), side([])
    match = open_match(milano, torino, boards=6, double_games=True)
    assert (match.first_club, match.second_club) == (milano.club, torino.club)
    assert (match.boards, match.legs, match.cadence, match.status) == (6, 2, "blitz", "scheduled")
    assert match.opened_by == milano.captain
    assert match.lineup_deadline == match.starts_at - timedelta(minutes=15)
    assert match.next_due_at == match.starts_at  # the tick starts it (RULES 16.4)


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"boards": 1}, "boards"),
        ({"boards": 13}, "boards"),
        ({"start": "soon"}, "starts_at"),
        ({"start": "far"}, "starts_at"),
    ],
)
def test_a_match_outside_the_limits_is_refused(change, code):
    milano, torino = side([]), side([])
    if "start" in change:
        ahead = timedelta(minutes=59) if change.pop("start") == "soon" else timedelta(days=31)
        change["start"] = timezone.now() + ahead
    with pytest.raises(TeamError) as refused:
        open_match(milano, torino, **change)
    assert refused.value.code == code
    assert not TeamMatch.objects.exists()


def test_a_club_against_itself_a_hidden_or_dissolved_club_and_a_non_officer_are_refused():
    milano, torino = side([]), side([])
    with pytest.raises(TeamError) as refused:
        open_match(milano, milano)
    assert refused.value.code == "same_club"
    torino.club.hidden = True
    torino.club.save()
    with pytest.raises(TeamError) as refused:
        open_match(milano, torino)
    assert refused.value.code == "club_missing"
    torino.club.hidden = False
    torino.club.dissolved_at = timezone.now()
    torino.club.save()
    with pytest.raises(TeamError) as refused:
        open_match(milano, torino)
    assert refused.value.code == "club_dissolved"
    napoli = side([1500])
    with pytest.raises(TeamError) as refused:  # a member, not an officer
        services.match_create(
            by=napoli.players[0], first_club_id=napoli.club.pk, data=match_data(milano)
        )
    assert refused.value.code == "not_officer"
    with pytest.raises(TeamError) as refused:  # an officer of the second club only
        services.match_create(
            by=milano.captain, first_club_id=napoli.club.pk, data=match_data(milano)
        )
    assert refused.value.code == "not_officer"
    assert not TeamMatch.objects.exists()


def test_one_live_event_per_person_holds_for_a_match():
    milano, torino, napoli = side([]), side([]), side([])
    first = open_match(milano, torino)
    with pytest.raises(TeamError) as refused:
        open_match(milano, napoli)
    assert refused.value.code == "live_event"
    assert list(TeamMatch.objects.all()) == [first]


# --- line-ups ------------------------------------------------------------------------------------


def test_a_captain_saves_a_line_up_with_a_swap_and_reserves_and_replaces_it():
    milano, torino = side([1900, 1800, 1700, 1600, 1500, 1400]), side([])
    match = open_match(milano, torino, boards=4)
    a, b, c, d, e, f = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([b, a, c, d, e]))
    assert lineup_of(match, milano.club) == ids([b, a, c, d, e])
    assert LineupEntry.objects.get(player=b).rating == 1800  # the rating at the save
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b, d, c, f]))
    assert lineup_of(match, milano.club) == ids([a, b, d, c, f])
    assert Lineup.objects.filter(match=match).count() == 1


def test_a_line_up_out_of_order_is_refused_naming_the_player_and_nothing_changes():
    milano, torino = side([1900, 1800, 1700, 1600]), side([])
    match = open_match(milano, torino, boards=4)
    a, b, c, d = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b, c, d]))
    with pytest.raises(TeamError) as refused:
        # The third-best on board 1: two boards from their place.
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([c, a, b, d]))
    assert refused.value.code == "order"
    assert c.username in refused.value.message
    assert "scacchiera 1" in refused.value.message and "scacchiera 3" in refused.value.message
    assert lineup_of(match, milano.club) == ids([a, b, c, d])  # nothing half-saved


@pytest.mark.parametrize("wrong", ["non_member", "twice", "empty", "too_many"])
def test_a_wrong_line_up_is_refused_and_nothing_changes(wrong):
    milano, torino = side([1900, 1800, 1700, 1600, 1500]), side([1500])
    match = open_match(milano, torino, boards=2)
    a, b, c, d, e = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b]))
    names = {
        "non_member": ids([a, torino.players[0]]),
        "twice": ids([a, b, a]),
        "empty": [],
        "too_many": ids([a, b, c, d, e]),  # two boards, at most two reserves
    }[wrong]
    with pytest.raises(TeamError) as refused:
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=names)
    assert (
        refused.value.code
        == {
            "non_member": "not_member",
            "twice": "twice",
            "empty": "empty",
            "too_many": "too_many",
        }[wrong]
    )
    assert refused.value.message
    assert lineup_of(match, milano.club) == ids([a, b])


def test_a_line_up_after_the_deadline_is_refused():
    milano, torino = side([1900, 1800]), side([])
    match = open_match(milano, torino, boards=2)
    with pytest.raises(TeamError) as refused:
        services.lineup_set(
            match_id=match.pk,
            by=milano.captain,
            player_ids=ids(milano.players),
            now=match.lineup_deadline,
        )
    assert refused.value.code == "deadline"
    assert not Lineup.objects.exists()


def test_only_an_officer_of_one_of_the_two_clubs_is_captain():
    milano, torino, napoli = side([1900, 1800]), side([]), side([])
    match = open_match(milano, torino, boards=2)
    officer = UserFactory()
    Membership.objects.create(
        club=milano.club, user=officer, role=Role.OFFICER, joined_at=timezone.now()
    )
    services.lineup_set(match_id=match.pk, by=officer, player_ids=ids(milano.players))
    # A captain removed from the officers saves nothing more.
    Membership.objects.filter(user=officer).update(role=Role.MEMBER)
    for outsider in (officer, milano.players[0], napoli.captain):
        with pytest.raises(TeamError) as refused:
            services.lineup_set(
                match_id=match.pk, by=outsider, player_ids=ids(milano.players[::-1])
            )
        assert refused.value.code == "not_captain"
    assert lineup_of(match, milano.club) == ids(milano.players)


def test_a_player_committed_elsewhere_at_the_same_time_is_refused_with_the_event():
    milano, torino, napoli = side([1900, 1800]), side([]), side([])
    match = open_match(milano, torino, boards=2)
    a, b = milano.players
    tournament = TournamentFactory(
        name="Lampo di sera", starts_at=match.starts_at - timedelta(minutes=5)
    )
    RegistrationFactory(tournament=tournament, player=b)
    with pytest.raises(TeamError) as refused:
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b]))
    assert refused.value.code == "committed"
    assert b.username in refused.value.message and "Lampo di sera" in refused.value.message
    assert not Lineup.objects.exists()
    # Another match of the club at the same hour, opened by another officer.
    officer = UserFactory()
    Membership.objects.create(
        club=milano.club, user=officer, role=Role.OFFICER, joined_at=timezone.now()
    )
    other = services.match_create(
        by=officer,
        first_club_id=milano.club.pk,
        data=match_data(napoli, boards=2, start=match.starts_at + timedelta(minutes=5)),
    )
    services.lineup_set(match_id=other.pk, by=officer, player_ids=ids([a]))
    with pytest.raises(TeamError) as refused:
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a]))
    assert refused.value.code == "committed" and other.name in refused.value.message
    # A tournament long after the match is no commitment.
    tournament.starts_at = match.starts_at + timedelta(days=2)
    tournament.save()
    services.match_cancel(match_id=other.pk, by=officer)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b]))
    assert lineup_of(match, milano.club) == ids([a, b])


def test_a_player_in_a_line_up_cannot_leave_the_club_until_the_match_is_over():
    milano, torino = side([1900, 1800]), side([])
    match = open_match(milano, torino, boards=2)
    a, b = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a]))
    with pytest.raises(ClubError) as refused:
        clubs.member_leave(club_id=milano.club.pk, user=a)
    assert refused.value.code == "committed" and match.name in refused.value.message
    clubs.member_leave(club_id=milano.club.pk, user=b)  # not named: free to go


def _line_up_and_leave_at_once() -> None:
    milano, torino = side([1900, 1800]), side([])
    match = open_match(milano, torino, boards=2)
    a, b = milano.players
    saved, left = run_at_once(
        lambda: services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a, b])),
        lambda: clubs.member_leave(club_id=milano.club.pk, user=a),
        errors=True,
    )
    named = a.pk in lineup_of(match, milano.club)
    member = Membership.objects.filter(user=a, left_at__isnull=True).exists()
    assert named == member  # never in the line-up and out of the club
    assert isinstance(saved, Raised) != isinstance(left, Raised)  # exactly one refused
    TeamMatch.objects.filter(pk=match.pk).update(status=TeamMatch.Status.CANCELLED)


@pytest.mark.django_db(transaction=True)
def test_a_line_up_and_its_player_leaving_the_club_at_once_never_both_pass():
    """Fails (seen on PostgreSQL within a few tries) if the line-up does not lock the club's
    row and its players' before it reads their membership: the leave finds no line-up, the
    line-up a member, and a player out of the club stays in its line-up."""
    for _attempt in range(3):
        _line_up_and_leave_at_once()


# --- availability ----------------------------------------------------------------------------------


def test_availability_is_a_members_until_the_deadline():
    milano, torino, napoli = side([1900]), side([1500]), side([1500])
    match = open_match(milano, torino, boards=2)
    assert services.availability_set(match_id=match.pk, user=torino.players[0], available=True)
    assert Availability.objects.get().club == torino.club
    with pytest.raises(TeamError) as refused:
        services.availability_set(match_id=match.pk, user=napoli.players[0], available=True)
    assert refused.value.code == "not_member"
    with pytest.raises(TeamError) as refused:
        services.availability_set(
            match_id=match.pk,
            user=torino.players[0],
            available=False,
            now=match.lineup_deadline,
        )
    assert refused.value.code == "deadline"
    assert Availability.objects.count() == 1
    services.availability_set(match_id=match.pk, user=torino.players[0], available=False)
    assert not Availability.objects.exists()


# --- the start and the scoring -------------------------------------------------------------------


def boards_of(match) -> list[Board]:
    return list(Board.objects.filter(match=match).order_by("number"))


def test_the_start_seats_the_line_ups_opens_the_games_and_forfeits_the_empty_board():
    milano, torino = side([1900, 1800, 1700, 1600, 1500]), side([2000, 1900, 1800])
    match = open_match(milano, torino, boards=4)
    a, b, c, d, e = milano.players
    x, y, z = torino.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([b, a, c, d, e]))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids([x, y, z]))
    # `c` is in a live game at the start: left out, the players below move up, `e` comes in.
    busy = games.game_open(
        white_id=c.pk,
        black_id=UserFactory().pk,
        variant_code="chess",
        base_seconds=180,
        increment_seconds=2,
        rated=False,
    )
    assert (
        services.match_start(match_id=match.pk, now=match.starts_at - timedelta(seconds=1)) is None
    )
    services.match_start(match_id=match.pk, now=match.starts_at)
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.RUNNING
    seated = [(bd.first_player_id, bd.second_player_id) for bd in boards_of(match)]
    assert seated == [(b.pk, x.pk), (a.pk, y.pk), (d.pk, z.pk), (e.pk, None)]
    one, two, three, four = boards_of(match)
    # RULES 16.3: the first club White on board 1, colours alternating down the boards.
    assert (one.game1.white_id, one.game1.black_id) == (b.pk, x.pk)
    assert (two.game1.white_id, two.game1.black_id) == (y.pk, a.pk)
    assert (three.game1.white_id, three.game1.black_id) == (d.pk, z.pk)
    assert one.game1.event == match and one.game1.status == GameStatus.LIVE
    # RULES 16.4: the empty board is the first club's, no game, not played.
    assert four.game1 is None and four.done
    assert (four.first_points1, four.second_points1, four.played1) == (2, 0, False)
    assert (match.first_points, match.second_points) == (2, 0)
    assert Game.objects.get(pk=busy.pk).status == GameStatus.LIVE  # untouched
    # Safe twice: nothing more opens.
    assert services.match_start(match_id=match.pk, now=match.starts_at) is None
    assert Board.objects.filter(match=match).count() == 4


def test_a_late_line_up_is_the_available_members_in_rating_order():
    milano, torino = side([1900, 1800]), side([1500, 1700, 1600, 1400])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    low, high, middle, lowest = torino.players
    for player in (low, middle, high):  # `lowest` never said so
        services.availability_set(match_id=match.pk, user=player, available=True)
    services.match_start(match_id=match.pk, now=match.starts_at)
    seated = [bd.second_player_id for bd in boards_of(match)]
    assert seated == ids([high, middle])


def test_no_line_up_and_nobody_available_leaves_every_board_empty():
    milano, torino = side([1900, 1800]), side([1500])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players[:1]))
    services.match_start(match_id=match.pk, now=match.starts_at)
    match.refresh_from_db()
    # Board 1: Milano's player against nobody (2-0); board 2 empty on both sides (0-0).
    assert [(bd.first_points1, bd.second_points1) for bd in boards_of(match)] == [(2, 0), (0, 0)]
    assert match.status == TeamMatch.Status.FINISHED  # no game to wait for
    assert (match.first_match_points, match.second_match_points) == (2, 0)


def test_a_saved_line_up_no_longer_in_order_at_the_deadline_plays_in_rating_order():
    from ratings.models import Rating

    milano, torino = side([1900, 1800, 1700]), side([1500, 1400])
    match = open_match(milano, torino, boards=2)
    a, b, c = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([b, a, c]))
    # A rating moved after the save (written straight, as a game would leave it): `c` is
    # now the best, and [b, a, c] is out of order at the deadline.
    Rating.objects.filter(player=c).update(value=2000)
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    assert [bd.first_player_id for bd in boards_of(match)] == ids([c, a])


def finish(game, result: str) -> None:
    """End a game with `result` ("1-0", "0-1", "1/2-1/2") through the games' services, a few
    seconds after it opened (the match's start, on the test's clock)."""
    at_ms = game.clock_since_ms + 5000
    if result == "1/2-1/2":
        games.game_draw_offer(game_id=game.pk, user_id=game.white_id, at_ms=at_ms)
        games.game_draw_accept(game_id=game.pk, user_id=game.black_id, at_ms=at_ms)
    else:
        loser = game.black_id if result == "1-0" else game.white_id
        games.game_resign(game_id=game.pk, user_id=loser, at_ms=at_ms)


def test_board_points_and_match_points_as_the_games_end():
    milano, torino = side([1900, 1800, 1700, 1600]), side([2000, 1900, 1800, 1700])
    match = open_match(milano, torino, boards=4)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    one, two, three, four = boards_of(match)
    # Board 1: Milano (White) wins; board 2: Milano (Black) wins; board 3 draw; board 4 Torino.
    finish(one.game1, "1-0")
    finish(two.game1, "0-1")
    finish(three.game1, "1/2-1/2")
    for board in (one, two, three):
        assert services.match_game_finished(game_id=board.game1_id)
        assert not services.match_game_finished(game_id=board.game1_id)  # scored once
    match.refresh_from_db()
    assert (match.first_points, match.second_points) == (5, 1)
    assert match.status == TeamMatch.Status.RUNNING  # board 4 still playing
    finish(four.game1, "0-1")  # board 4 is even: Torino White, Milano Black wins
    services.match_game_finished(game_id=four.game1_id)
    match.refresh_from_db()
    four.refresh_from_db()
    assert (four.first_points1, four.second_points1) == (2, 0)  # Milano had Black and won
    assert (match.first_points, match.second_points) == (7, 1)
    assert match.status == TeamMatch.Status.FINISHED
    assert (match.first_match_points, match.second_match_points) == (2, 0)
    assert match.winner_names() == [milano.club.name]


def test_double_games_reverse_the_colours_through_the_events_router(
    django_capture_on_commit_callbacks,
):
    milano, torino = side([1900, 1800]), side([2000, 1900])
    match = open_match(milano, torino, boards=2, double_games=True)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    one, two = boards_of(match)
    with django_capture_on_commit_callbacks(execute=True):
        finish(one.game1, "1/2-1/2")  # settled by its task, routed to the match's kind
    one.refresh_from_db()
    assert (one.first_points1, one.second_points1, one.done) == (1, 1, False)
    assert one.game2 is not None
    assert (one.game2.white_id, one.game2.black_id) == (one.second_player_id, one.first_player_id)
    assert one.game2.start_fen == one.game1.start_fen
    with django_capture_on_commit_callbacks(execute=True):
        finish(one.game2, "1-0")  # Torino, White in the return game, wins
        finish(two.game1, "1-0")  # Torino White on board 2
    two.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        finish(two.game2, "1-0")  # Milano White in the return game
    match.refresh_from_db()
    one.refresh_from_db()
    assert one.done and (one.first_points2, one.second_points2) == (0, 2)
    assert (match.first_points, match.second_points) == (1 + 0 + 0 + 2, 1 + 2 + 2 + 0)
    assert (match.first_match_points, match.second_match_points) == (0, 2)
    assert match.status == TeamMatch.Status.FINISHED
    assert Game.objects.get(pk=one.game1_id).result == GameResult.DRAW


def test_the_tick_starts_the_matches_that_are_due():
    milano, torino = side([1900, 1800]), side([2000, 1900])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    assert services.matches_due_process(now=match.starts_at - timedelta(seconds=1)) == []
    assert services.matches_due_process(now=match.starts_at) == [match.pk]
    assert services.matches_due_process(now=match.starts_at) == []


def test_a_match_is_cancelled_before_the_start_only_by_an_officer_of_either_club():
    milano, torino, napoli = side([]), side([]), side([])
    match = open_match(milano, torino, boards=2)
    with pytest.raises(TeamError):
        services.match_cancel(match_id=match.pk, by=napoli.captain)
    services.match_cancel(match_id=match.pk, by=torino.captain)
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.CANCELLED and match.next_due_at is None
    assert services.match_start(match_id=match.pk, now=match.starts_at) is None
    with pytest.raises(TeamError):
        services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=[])


def test_the_match_page_shows_the_boards_and_the_score(client):
    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    page = client.get(match.get_absolute_url())
    assert page.status_code == 200
    text = page.content.decode()
    assert text.count('data-testid="team-board"') == 2
    assert f"{milano.club.short_name} 1 – 0 {torino.club.short_name}</strong>" in text
    assert client.get(f"/incontri/{match.pk + 1000}/").status_code == 404
    # A board's game page names its match and leads back to it (the game knows no kind).
    game = Board.objects.get(match=match, number=1).game1
    for viewer in (None, game.white):
        if viewer is not None:
            client.force_login(viewer)
        page = client.get(f"/games/{game.pk}/")
        assert page.status_code == 200
        assert match.get_absolute_url() in page.content.decode()


@pytest.mark.django_db(transaction=True)
def test_two_starts_at_once_open_the_boards_once():
    """Fails if the start does not lock the match row before it reads its status: both would
    seat the boards, and the second would break on the boards' unique numbers (or open every
    game twice)."""
    milano, torino = side([1900, 1800]), side([2000, 1900])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    results = run_at_once(
        lambda: services.match_start(match_id=match.pk, now=match.starts_at),
        lambda: services.match_start(match_id=match.pk, now=match.starts_at),
    )
    assert sorted(r is None for r in results) == [False, True]
    assert Board.objects.filter(match=match).count() == 2
    assert Game.objects.filter(event_id=match.pk, event_type__model="teammatch").count() == 2


def test_the_lobby_warns_a_player_named_or_available_for_a_match_starting_soon():
    from games import commitments

    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2, start=timezone.now() + timedelta(minutes=90))
    later = open_match(
        torino, milano, boards=2, start=timezone.now() + timedelta(hours=5), name="Ritorno"
    )
    a, b = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a]))
    services.lineup_set(match_id=later.pk, by=torino.captain, player_ids=ids(torino.players))
    services.availability_set(match_id=match.pk, user=torino.players[0], available=True)
    for player in (a, torino.players[0]):
        [warning] = [c for c in commitments.of(player.pk) if c.url == match.get_absolute_url()]
        assert match.name in warning.warning and "16.4" in warning.warning
    assert not [c for c in commitments.of(b.pk) if c.event == match.name]
    # The later match, five hours ahead, warns nobody yet.
    assert not [c for c in commitments.of(torino.players[0].pk) if c.event == later.name]


def test_each_change_pushes_a_newer_version_to_the_match_page(django_capture_on_commit_callbacks):
    from live import pushes

    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        services.match_start(match_id=match.pk, now=match.starts_at)
    sent = [message for group, message in outbox if group == f"teammatch-{match.pk}"]
    assert sent == [{"type": "teams.changed", "version": 1}]
    match.refresh_from_db()
    assert match.version == 1


def test_the_live_part_of_the_match_page_follows_the_boards(client):
    milano, torino = side([1900, 1800]), side([2000, 1900])
    match = open_match(milano, torino, boards=2, double_games=True)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    before = client.get(match.get_absolute_url()).content.decode()
    assert 'data-testid="team-board"' not in before and "/ws/teams/" in before
    services.match_start(match_id=match.pk, now=match.starts_at)
    one, two = boards_of(match)
    finish(one.game1, "1-0")
    services.match_game_finished(game_id=one.game1_id)
    one.refresh_from_db()
    part = client.get(match.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    assert "<html" not in part  # the fragment alone (STYLE 7)
    assert f"{milano.club.short_name} 1 – 0 {torino.club.short_name}</strong>" in part
    # Each board's game being played, small and moving: board 1's return game, board 2's first.
    shown = re.findall(r'data-game="(\d+)"', part)
    assert shown == [str(one.game2_id), str(two.game1_id)]


def test_a_player_named_in_a_match_not_over_keeps_their_account_and_finds_it_in_their_data():
    from django.core.exceptions import ValidationError

    from accounts import personal
    from accounts import services as accounts

    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2)
    a, b = milano.players
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids([a]))
    services.availability_set(match_id=match.pk, user=b, available=True)
    [row] = personal.sections(a)["team_matches"]
    assert (row["name"], row["club"], row["place"]) == (match.name, milano.club.name, 1)
    assert row["team"] is None  # a friendly match: the club's own
    with pytest.raises(ValidationError) as refused:
        accounts.user_delete(user_id=a.pk)
    assert match.name in str(refused.value)
    accounts.user_delete(user_id=b.pk)  # only available: free to go, availability forgotten
    assert not Availability.objects.filter(player=b).exists()
    # Once the match is over the line-up stays, under the tombstone name, and nothing blocks.
    TeamMatch.objects.filter(pk=match.pk).update(status=TeamMatch.Status.FINISHED)
    accounts.user_delete(user_id=a.pk)
    assert lineup_of(match, milano.club) == [a.pk]


def test_the_staff_cancel_a_running_match_its_live_games_drawn_and_nothing_more_scored():
    milano, torino = side([1900, 1800]), side([2000, 1900])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.lineup_set(match_id=match.pk, by=torino.captain, player_ids=ids(torino.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    with pytest.raises(TeamError):  # an officer, not the staff: only before the start
        services.match_cancel(match_id=match.pk, by=milano.captain)
    services.match_cancel(match_id=match.pk, by=None, staff=True, now=match.starts_at)
    match.refresh_from_db()
    assert match.status == TeamMatch.Status.CANCELLED
    one, two = boards_of(match)
    for board in (one, two):
        game = Game.objects.get(pk=board.game1_id)
        assert game.status == GameStatus.FINISHED and not game.rated
        assert not services.match_game_finished(game_id=game.pk)  # nothing more scored
    assert (match.first_points, match.second_points) == (0, 0)


def test_the_admin_lists_and_shows_a_match(client):
    milano, torino = side([1900, 1800]), side([2000])
    match = open_match(milano, torino, boards=2)
    services.lineup_set(match_id=match.pk, by=milano.captain, player_ids=ids(milano.players))
    services.match_start(match_id=match.pk, now=match.starts_at)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    assert client.get("/admin/teams/teammatch/").status_code == 200
    page = client.get(f"/admin/teams/teammatch/{match.pk}/change/")
    assert page.status_code == 200 and match.name in page.content.decode()
