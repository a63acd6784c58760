"""Tournaments run by themselves (RULES 4.3-4.10): full runs in the database with simulated players.

Services are called directly with a controlled clock; `game_finished` is not delivered here
(pytest-django never commits), so every game is scored by the tick's catch-up, which is the
path a killed worker relies on. The receiver has its own test.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from accounts.tests.factories import UserFactory
from events.pairing import lim
from games import services as games
from games.models import EndReason as GameEndReason
from games.models import Game
from games.models import Status as GameStatus
from live import pushes
from ratings.models import RatingPeriod
from tournaments import running
from tournaments.models import EndReason, Format, Pairing, Participant, Round, Tournament
from tournaments.selectors import final_standings
from tournaments.tests.factories import RegistrationFactory, TournamentFactory, tick

pytestmark = pytest.mark.django_db

T0 = datetime(2030, 6, 1, 18, 0, tzinfo=UTC)
PAUSE = timedelta(seconds=30)


def ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def make(n: int, **options) -> Tournament:
    options.setdefault("seats", max(16, n))
    options.setdefault("starts_at", T0)
    tournament = TournamentFactory(**options)
    for _ in range(n):
        RegistrationFactory(tournament=tournament)
    return tournament


def live_games(tournament: Tournament) -> list[Game]:
    return list(
        Game.objects.filter(
            event_type__model="tournament", event_id=tournament.pk, status=GameStatus.LIVE
        ).order_by("pk")
    )


def play(game: Game, at: datetime, rng: random.Random) -> None:
    """Both players sit, then one resigns or they agree a draw."""
    for user_id in (game.white_id, game.black_id):
        games.game_presence(
            game_id=game.pk, user_id=user_id, key=f"socket-{user_id}", connected=True, at_ms=ms(at)
        )
    outcome = rng.choice(("white", "black", "draw"))
    if outcome == "draw":
        games.game_draw_offer(game_id=game.pk, user_id=game.white_id, at_ms=ms(at))
        games.game_draw_accept(game_id=game.pk, user_id=game.black_id, at_ms=ms(at))
    else:
        loser = game.white_id if outcome == "black" else game.black_id
        games.game_resign(game_id=game.pk, user_id=loser, at_ms=ms(at))


def run(tournament: Tournament, seed: int = 1, twice: bool = False) -> datetime:
    """Tick the tournament to its end, every live game played at once; returns the end time."""
    rng = random.Random(seed)
    now = T0
    for _step in range(400):
        tick(now)
        if twice:
            assert tick(now) == []  # idempotent
        tournament.refresh_from_db()
        if tournament.status != Tournament.Status.RUNNING:
            return now
        now += timedelta(seconds=5)
        for game in live_games(tournament):
            play(game, now, rng)
        now += PAUSE
    raise AssertionError("the tournament never ended")


def check_finished(tournament: Tournament) -> None:
    """Every pairing scored, each pair met once per round, the cache equals the standings."""
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.end_reason == EndReason.ROUNDS_DONE
    assert tournament.rounds.count() == tournament.total_rounds
    assert not Pairing.objects.filter(round__tournament=tournament, done=False).exists()
    assert not live_games(tournament)
    met = set()
    for p in Pairing.objects.filter(round__tournament=tournament, black__isnull=False):
        pair = frozenset((p.white_id, p.black_id))
        assert pair not in met  # RULES 5: never twice (a double round robin is one round each)
        met.add(pair)
    standings = final_standings(tournament)
    cached = {p.number: p for p in tournament.participants.all()}
    for s in standings:
        assert (cached[s.player].rank, cached[s.player].points) == (s.rank, s.points)
        assert cached[s.player].buchholz_cut1 == s.buchholz_cut1
    total = sum(s.points for s in standings)
    legs = Pairing.objects.filter(round__tournament=tournament, black__isnull=False).count()
    byes = Pairing.objects.filter(round__tournament=tournament, black__isnull=True).count()
    assert total == legs * 2 * tournament.legs + byes * 2 * tournament.legs


def test_four_players_play_a_double_round_robin():
    tournament = make(4)
    run(tournament, twice=True)
    check_finished(tournament)
    assert tournament.format == Format.ROUND_ROBIN
    assert (tournament.total_rounds, tournament.legs) == (3, 2)  # RULES 4.4: n = 4, double
    games_played = Game.objects.filter(event_id=tournament.pk, event_type__model="tournament")
    assert games_played.count() == 12  # 3 rounds x 2 boards x 2 games
    for p in Pairing.objects.filter(round__tournament=tournament).select_related("game1", "game2"):
        # RULES 4.5: colours reversed, same opening
        assert (p.game2.white_id, p.game2.black_id) == (p.game1.black_id, p.game1.white_id)
        assert p.game2.start_fen == p.game1.start_fen
    # RULES 7.1: rated as one period, once.
    assert RatingPeriod.objects.filter(kind="tournament", source_id=tournament.pk).count() == 1


def test_five_players_round_robin_with_byes_and_table_openings():
    tournament = make(5, variant="italian", opening_mode="table2")
    run(tournament)
    check_finished(tournament)
    assert (tournament.total_rounds, tournament.legs) == (5, 1)
    byes = Pairing.objects.filter(round__tournament=tournament, black__isnull=True)
    # RULES 5.1: everyone rests once; the bye is worth 2 (RULES 4.6).
    assert sorted(b.white.number for b in byes) == [1, 2, 3, 4, 5]
    assert {b.white_points1 for b in byes} == {2}
    numbers = list(tournament.rounds.values_list("opening_number", flat=True))
    assert None not in numbers and len(set(numbers)) == 5  # RULES 6: no repeats
    first = Round.objects.get(tournament=tournament, number=1)
    assert Game.objects.filter(event_id=tournament.pk, start_fen=first.start_fen).count() == 2


@pytest.mark.parametrize("extra", [False, True])
def test_nine_players_swiss_extra_round_off_and_on(extra):
    tournament = make(9, extra_round=extra, opening_mode="random2")
    run(tournament)
    check_finished(tournament)
    assert tournament.format == Format.SWISS
    # RULES 4.4: 6 rounds; the extra round needs rounds + 1 <= n // 2, so 9 players never get it.
    assert tournament.total_rounds == 6
    numbers = list(tournament.participants.values_list("number", flat=True))
    assert sorted(numbers) == list(range(1, 10))
    moves = [tuple(m) for m in tournament.rounds.values_list("opening_moves", flat=True)]
    assert len(set(moves)) == 6  # RULES 6: no opening twice in a Swiss


def test_sixteen_players_swiss_gets_the_extra_round():
    tournament = make(16, extra_round=True)
    run(tournament)
    check_finished(tournament)
    assert tournament.total_rounds == 7


def test_thirty_players_swiss_with_double_games():
    tournament = make(30, double_games=True)
    run(tournament, seed=7)
    check_finished(tournament)
    assert (tournament.format, tournament.total_rounds, tournament.legs) == (Format.SWISS, 7, 2)
    pairings = Pairing.objects.filter(round__tournament=tournament).select_related("game1", "game2")
    assert all(p.game1 and p.game2 for p in pairings)
    assert Game.objects.filter(event_id=tournament.pk, event_type__model="tournament").count() == (
        7 * 15 * 2
    )


def test_swiss_pairing_numbers_follow_rating_then_username():
    tournament = make(8, threshold=7)
    users = [r.player for r in tournament.registrations.all()]
    from ratings.models import Rating

    Rating.objects.create(player=users[3], variant="chess", cadence="blitz", value=1900)
    running.tournament_start(tournament_id=tournament.pk, now=T0)
    order = list(tournament.participants.order_by("number").values_list("player_id", flat=True))
    rest = sorted(users[:3] + users[4:], key=lambda u: u.username.lower())
    assert order == [users[3].pk] + [u.pk for u in rest]


def test_cancelled_below_the_minimum():
    tournament = make(4, minimum=5)
    assert tick(T0 - timedelta(seconds=1)) == []
    assert tick(T0) == [tournament.pk]
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.end_reason == EndReason.BELOW_MINIMUM
    assert not tournament.rounds.exists()
    assert tick(T0) == []


def test_start_is_idempotent_and_announces_the_end():
    tournament = make(6)
    assert running.tournament_start(tournament_id=tournament.pk, now=T0)
    assert not running.tournament_start(tournament_id=tournament.pk, now=T0)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert Round.objects.filter(tournament=tournament).count() == 1
    assert len(live_games(tournament)) == 3
    # RULES 4.9: 5 rounds x (2 x (300 + 60 x 3) s + 30 s pause)
    assert tournament.announced_end == T0 + 5 * timedelta(seconds=2 * 480 + 30)


def test_busy_player_loses_by_forfeit():
    """RULES 4.7 case 2: no game for the busy player, 2 points (4 double) to the opponent."""
    tournament = make(4)
    busy = tournament.registrations.first().player
    games.game_open(
        white_id=busy.pk,
        black_id=UserFactory().pk,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        rated=False,
        at_ms=ms(T0),
    )
    tick(T0)
    pairing = (
        Pairing.objects.get(round__tournament=tournament, round__number=1, white__player=busy)
        if Pairing.objects.filter(white__player=busy).exists()
        else Pairing.objects.get(round__tournament=tournament, round__number=1, black__player=busy)
    )
    assert pairing.game1 is None and pairing.game2 is None and pairing.done
    mine = "white" if pairing.white.player_id == busy.pk else "black"
    theirs = "black" if mine == "white" else "white"
    assert getattr(pairing, f"{mine}_forfeit")
    assert (getattr(pairing, f"{mine}_points1"), getattr(pairing, f"{theirs}_points1")) == (0, 2)
    assert (getattr(pairing, f"{mine}_points2"), getattr(pairing, f"{theirs}_points2")) == (0, 2)
    assert not pairing.played1 and not pairing.played2
    assert len(live_games(tournament)) == 1  # the other board plays


def test_both_busy_is_nil_nil():
    tournament = make(4)
    first, second = [r.player for r in tournament.registrations.all()[:2]]
    for player in (first, second):
        games.game_open(
            white_id=player.pk,
            black_id=UserFactory().pk,
            variant_code="chess",
            base_seconds=600,
            increment_seconds=0,
            rated=False,
            at_ms=ms(T0),
        )
    tick(T0)
    pairings = Pairing.objects.filter(round__tournament=tournament, round__number=1)
    for p in pairings:
        if p.white_forfeit and p.black_forfeit:
            assert (p.white_points1, p.black_points1, p.white_points2, p.black_points2) == (
                0,
                0,
                0,
                0,
            )


def _swiss_of_eight_started() -> Tournament:
    tournament = make(8)
    tick(T0)
    tournament.refresh_from_db()
    return tournament


def test_disconnected_player_loses_on_time_and_the_game_is_not_rated():
    """RULES 4.7 case 1 and RULES 3: the game opens anyway and their clock runs."""
    tournament = _swiss_of_eight_started()
    game = live_games(tournament)[0]
    games.game_presence(
        game_id=game.pk,
        user_id=game.black_id,
        key=f"socket-{game.black_id}",
        connected=True,
        at_ms=ms(T0),
    )
    later = T0 + timedelta(seconds=301)
    games.games_due_process(at_ms=ms(later))
    tick(later)
    game.refresh_from_db()
    assert (game.result, game.reason) == ("0-1", "timeout")
    pairing = Pairing.objects.get(game1=game)
    assert (pairing.white_points1, pairing.black_points1, pairing.played1) == (0, 2, True)


def test_both_absent_scores_nil_nil_and_is_not_a_game_played():
    """RULES 4.7 case 3."""
    tournament = _swiss_of_eight_started()
    later = T0 + timedelta(seconds=301)
    games.games_due_process(at_ms=ms(later))
    tick(later)
    for p in Pairing.objects.filter(round__tournament=tournament):
        assert p.game1.reason == GameEndReason.BOTH_ABSENT
        assert (p.white_points1, p.black_points1, p.played1, p.done) == (0, 0, False, True)
    assert Round.objects.get(tournament=tournament, number=1).ended_at == later
    # After the pause the next round is paired as usual (nobody is excluded).
    tick(later + PAUSE)
    assert Round.objects.filter(tournament=tournament).count() == 2
    assert len(live_games(tournament)) == 4


def test_never_sat_games_are_not_rated():
    """RULES 3 / 7.1: a whole tournament where nobody ever sits rates nothing."""
    tournament = make(4)
    now = T0
    for _ in range(20):
        tick(now)
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        now += timedelta(seconds=301)
        games.games_due_process(at_ms=ms(now))
    assert tournament.status == Tournament.Status.FINISHED
    assert not RatingPeriod.objects.filter(kind="tournament", source_id=tournament.pk).exists()
    assert set(
        Participant.objects.filter(tournament=tournament).values_list("points", flat=True)
    ) == {0}


def test_the_end_grace_draws_open_games():
    """RULES 4.9: at the announced end + 10 minutes, games still open are drawn."""
    tournament = _swiss_of_eight_started()
    rng = random.Random(3)
    still_open, *others = live_games(tournament)
    for game in others:
        play(game, T0, rng)
    games.game_presence(
        game_id=still_open.pk,
        user_id=still_open.white_id,
        key=f"socket-{still_open.white_id}",
        connected=True,
    )
    games.game_presence(
        game_id=still_open.pk,
        user_id=still_open.black_id,
        key=f"socket-{still_open.black_id}",
        connected=True,
    )
    end = tournament.announced_end
    # The two keep playing until just before the grace runs out: stand for their moves by
    # moving the clock snapshot there (the running side has its 5 minutes).
    Game.objects.filter(pk=still_open.pk).update(
        clock_since_ms=ms(end + running.GRACE) - 1000, flag_at_ms=ms(end + running.GRACE) + 299000
    )
    tick(end)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    tick(end + running.GRACE)
    tournament.refresh_from_db()
    still_open.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.end_reason == EndReason.TIME_UP
    assert (still_open.result, still_open.reason) == ("1/2-1/2", GameEndReason.EVENT_END)
    pairing = Pairing.objects.get(game1=still_open)
    assert (pairing.white_points1, pairing.black_points1, pairing.played1) == (1, 1, True)
    assert tournament.participants.filter(rank__isnull=True).count() == 0


def test_no_round_starts_after_the_announced_end():
    tournament = _swiss_of_eight_started()
    rng = random.Random(4)
    for game in live_games(tournament):
        play(game, T0, rng)
    tick(tournament.announced_end)
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.rounds.count() == 1


def test_no_legal_pairing_ends_the_tournament(monkeypatch):
    """LIM 11: the tournament ends and says why."""
    tournament = _swiss_of_eight_started()
    rng = random.Random(5)
    for game in live_games(tournament):
        play(game, T0, rng)

    def refuse(players, spec, **options):
        raise lim.NoLegalPairing("no legal pairing")

    monkeypatch.setattr(lim, "pair_round", refuse)
    tick(T0)  # the round ends
    tick(T0 + PAUSE)
    tournament.refresh_from_db()
    assert (tournament.status, tournament.end_reason) == (
        Tournament.Status.FINISHED,
        EndReason.NO_PAIRING,
    )
    assert tournament.rounds.count() == 1


def test_the_receiver_scores_a_game_and_opens_the_second_leg(django_capture_on_commit_callbacks):
    tournament = make(4)
    tick(T0)
    game = live_games(tournament)[0]
    with django_capture_on_commit_callbacks(execute=True):
        games.game_resign(game_id=game.pk, user_id=game.white_id)
    pairing = Pairing.objects.get(game1=game)
    assert (pairing.white_points1, pairing.black_points1) == (0, 2)
    assert pairing.game2 is not None and pairing.game2.white_id == game.black_id
    assert running.tournament_game_finished(game_id=game.pk) is False  # twice: nothing


def run_stronger_wins(tournament: Tournament) -> list:
    """Tick to the end, every game won by the earlier-registered player (both sat); returns
    the players in registration order."""
    users = [r.player for r in tournament.registrations.order_by("id")]
    strength = {u.pk: i for i, u in enumerate(users)}
    now = T0
    for _step in range(30):
        tick(now)
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            return users
        for game in live_games(tournament):
            for user_id in (game.white_id, game.black_id):
                games.game_presence(
                    game_id=game.pk,
                    user_id=user_id,
                    key=f"socket-{user_id}",
                    connected=True,
                    at_ms=ms(now),
                )
            loser = max(game.white_id, game.black_id, key=strength.get)
            games.game_resign(game_id=game.pk, user_id=loser, at_ms=ms(now))
        now += PAUSE + timedelta(seconds=1)
    raise AssertionError("the tournament never ended")


def test_tiebreaks_and_ratings_at_the_end():
    """A round robin of five where the earlier-registered player always wins: points, wins, SB
    and the one-period rating changes are all known in advance (RULES 4.6, 4.10, 7.1)."""
    from ratings.models import Rating

    tournament = make(5)
    users = run_stronger_wins(tournament)
    assert tournament.status == Tournament.Status.FINISHED
    rows = {p.player_id: p for p in tournament.participants.all()}
    # Four games and one bye (2 points) each.
    expected_points = [10, 8, 6, 4, 2]
    expected_sb = [20.0, 12.0, 6.0, 2.0, 0.0]  # the final points of those beaten
    for i, user in enumerate(users):
        p = rows[user.pk]
        assert (p.rank, p.points, p.wins, p.sonneborn_berger) == (
            i + 1,
            expected_points[i],
            4 - i,
            expected_sb[i],
        )
    # RULES 7.1: everyone at 1500, expected 2.0 of 4, K 30: +60, +30, 0, -30, -60.
    after = dict(
        Rating.objects.filter(player__in=users, variant="chess", cadence="blitz").values_list(
            "player_id", "value"
        )
    )
    assert [after[u.pk] for u in users] == [1560, 1530, 1500, 1470, 1440]


def test_players_sockets_are_told_when_their_game_opens(django_capture_on_commit_callbacks):
    """The banner on every page comes from a push on the player's site socket (/ws/me/); the
    page is also sent to the board (`mygame`, tournaments/tests/test_mygame.py)."""
    from live.pushes import user_group

    tournament = make(4)
    player = tournament.registrations.first().player
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        running.tournament_start(tournament_id=tournament.pk, now=T0)
    told = [message for group, message in outbox if group == user_group(player.pk)]
    assert {"type": "user.changed", "what": "mytournament"} in told
    assert [message["what"] for message in told].count("mygame") == 1


def test_staff_cancel_a_running_tournament(django_capture_on_commit_callbacks):
    """Staff cancel mid-run: live games drawn at once (event end), no further round, nothing
    rated, the page says why, the players are told; a second cancel changes nothing."""
    from live.pushes import user_group
    from tournaments import broadcast, services

    tournament = _swiss_of_eight_started()
    rng = random.Random(5)
    finished, *still_live = live_games(tournament)
    play(finished, T0, rng)
    for game in still_live:
        for user_id in (game.white_id, game.black_id):
            games.game_presence(
                game_id=game.pk,
                user_id=user_id,
                key=f"socket-{user_id}",
                connected=True,
                at_ms=ms(T0),
            )
    staff = UserFactory(is_staff=True)
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        services.tournament_cancel(
            tournament_id=tournament.pk, by=staff, staff=True, now=T0 + timedelta(seconds=20)
        )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert tournament.end_reason == EndReason.BY_STAFF and tournament.cancelled_at is not None
    assert not live_games(tournament)
    for game in still_live:
        game.refresh_from_db()
        assert (game.result, game.reason) == ("1/2-1/2", GameEndReason.EVENT_END)
    assert tournament.rounds.get().ended_at is not None
    players = set(tournament.participants.values_list("player_id", flat=True))
    told = {group for group, message in outbox if message.get("what") == broadcast.PLAYER_WHAT}
    assert told == {user_group(pk) for pk in players}
    # Nothing of it is scored into standings or rated, and the tick pairs nothing more.
    assert not RatingPeriod.objects.exists()
    assert tournament.participants.filter(rank__isnull=False).count() == 0
    later = T0 + timedelta(hours=3)
    assert tick(later) == []
    assert running.tournament_advance(tournament_id=tournament.pk, now=later) is False
    for game in [finished, *still_live]:  # the lost or late `game_finished` scores nothing
        assert running.tournament_game_finished(game_id=game.pk, now=later) is False
    assert tournament.rounds.count() == 1
    assert not Pairing.objects.filter(round__tournament=tournament, white_points1__isnull=False)
    # Idempotent: a second cancel is refused and changes nothing.
    with pytest.raises(services.TournamentError) as refused:
        services.tournament_cancel(tournament_id=tournament.pk, by=staff, staff=True)
    assert refused.value.code == "closed"
    tournament.refresh_from_db()
    assert tournament.end_reason == EndReason.BY_STAFF


def test_the_admin_cancel_action_ends_the_live_games(admin_client):
    from django.urls import reverse

    tournament = make(8, starts_at=datetime.now(UTC))  # the admin cancels at the wall clock
    tick(tournament.starts_at)
    assert live_games(tournament)
    admin_client.post(
        reverse("admin:tournaments_tournament_changelist"),
        {"action": "cancel_tournaments", "_selected_action": [tournament.pk]},
    )
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.CANCELLED
    assert not live_games(tournament)
    page = admin_client.get(reverse("tournaments:detail", args=[tournament.pk])).content.decode()
    assert 'data-testid="cancelled"' in page and "Torneo annullato dallo staff." in page


def test_a_deleted_players_name_leaves_the_pages_at_once(django_capture_on_commit_callbacks):
    """Deleting an account announces a change to every tournament page showing the name, so
    the kept shared part is rendered anew with the tombstone (not EVENT_PART_SECONDS later)."""
    from accounts.services import user_delete
    from tournaments.broadcast import group_name

    tournament = make(4)
    player = tournament.registrations.first().player
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        user_delete(user_id=player.pk)
    assert any(group == group_name(tournament.pk) for group, _message in outbox)
