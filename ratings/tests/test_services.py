"""Rating services (RULES 7.1): what is rated, how much, once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games.rules.timecontrol import TimeControl
from ratings.models import Rating, RatingChange, RatingPeriod
from ratings.selectors import game_rating_changes, rating_value, ratings_at, ratings_snapshot
from ratings.services import (
    GameResult,
    NotRatedReason,
    Status,
    game_rate,
    player_ratings_recompute,
    tournament_rate,
)
from ratings.tests.factories import (
    RAPID,
    FinishedGameFactory,
    FinishedTournamentFactory,
    PlayerFactory,
    RatingFactory,
)

pytestmark = pytest.mark.django_db


def rating_of(player_id: int, variant: str = "chess", cadence: str = "blitz") -> Rating:
    return Rating.objects.get(player_id=player_id, variant=variant, cadence=cadence)


def test_first_rated_game_starts_both_players_at_1500() -> None:
    game = FinishedGameFactory(result=GameResult.WHITE_WINS)

    outcome = game_rate(game=game)

    assert outcome.status is Status.RATED
    white, black = rating_of(game.white_id), rating_of(game.black_id)
    # 1500 vs 1500: PA 0,5; V = 30 x (1 - 0,5) = 15.
    assert (white.value, white.games, white.peak, white.last_change) == (1515, 1, 1515, 15)
    assert (black.value, black.games, black.peak, black.last_change) == (1485, 1, 1500, -15)
    period = RatingPeriod.objects.get()
    assert (period.kind, period.source_id) == ("game", game.game_id)
    assert (period.variant, period.cadence) == ("chess", "blitz")
    change = white.history.get()
    assert (change.before, change.after, change.delta, change.games) == (1500, 1515, 15, 1)
    assert (change.score, change.expected, change.k) == (1, pytest.approx(0.5), 30)
    assert {c.rating_id for c in outcome.changes} == {white.pk, black.pk}


def test_initial_rating_is_a_setting(settings) -> None:
    settings.RATING_INITIAL = 1200
    game = FinishedGameFactory(result=GameResult.DRAW)
    game_rate(game=game)
    assert rating_of(game.white_id).value == 1200


def test_draw_uses_the_table_and_the_pa_rounding() -> None:
    white = RatingFactory(value=1600)
    black = RatingFactory(value=1500)
    game = FinishedGameFactory(
        white_id=white.player_id, black_id=black.player_id, result=GameResult.DRAW
    )

    game_rate(game=game)

    # 100 points apart: 64 / 36. White PA 0,64 -> 0,6: V = 30 x (0,5 - 0,6) = -3.
    # Black PA 0,36 -> 0,4: V = 30 x (0,5 - 0,4) = +3.
    assert rating_of(white.player_id).value == 1597
    assert rating_of(black.player_id).value == 1503


def test_each_side_uses_its_own_k() -> None:
    master = RatingFactory(value=2250)  # K 20
    candidate = RatingFactory(value=2150)  # K 30
    game = FinishedGameFactory(
        white_id=candidate.player_id, black_id=master.player_id, result=GameResult.WHITE_WINS
    )
    game_rate(game=game)
    # 100 apart: 64 / 36. Candidate: 30 x (1 - 0,4) = +18; master: 20 x (0 - 0,6) = -12.
    assert rating_of(candidate.player_id).value == 2168
    assert rating_of(master.player_id).value == 2238


def test_black_win() -> None:
    game = FinishedGameFactory(result=GameResult.BLACK_WINS)
    game_rate(game=game)
    assert rating_of(game.black_id).value == 1515
    assert rating_of(game.white_id).value == 1485


def test_rating_is_per_variant_and_cadence() -> None:
    player, opponent = PlayerFactory(), PlayerFactory()
    game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=opponent.pk))
    game_rate(
        game=FinishedGameFactory(white_id=player.pk, black_id=opponent.pk, time_control=RAPID)
    )
    game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=opponent.pk, variant="italian"))
    pools = set(
        Rating.objects.filter(player=player).values_list("variant", "cadence", "value", "games")
    )
    assert pools == {
        ("chess", "blitz", 1515, 1),
        ("chess", "rapid", 1515, 1),
        ("italian", "blitz", 1515, 1),
    }


def test_second_game_uses_the_rating_the_first_one_left() -> None:
    player, first, second = PlayerFactory(), PlayerFactory(), PlayerFactory()
    game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=first.pk))
    game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=second.pk))
    # 1515 vs 1500: 52% -> PA 0,5 (second decimal 2 down): +15 again.
    rating = rating_of(player.pk)
    assert (rating.value, rating.games, rating.peak) == (1530, 2, 1530)
    assert list(rating.history.values_list("before", "after")) == [(1500, 1515), (1515, 1530)]


def test_a_game_is_rated_at_the_ratings_held_as_it_opened() -> None:
    """REI art. 4: the game is its own period. P and Q opened it at 1500 each; a tournament of
    P's ended while it was played (+60 to 1560). P's win is worth 15 at 1500 v 1500 (12 at
    1560 v 1500), added to P's 1560."""
    p, q = PlayerFactory(), PlayerFactory()
    RatingFactory(player=p, value=1560, peak=1560)
    RatingFactory(player=q, value=1500, peak=1500)
    game = FinishedGameFactory(white_id=p.pk, black_id=q.pk, white_rating=1500, black_rating=1500)
    game_rate(game=game)
    assert (rating_of(p.pk).value, rating_of(q.pk).value) == (1575, 1485)
    assert list(rating_of(p.pk).history.values_list("held", "before", "after", "delta")) == [
        (1500, 1560, 1575, 15)
    ]
    # The game's page shows it played at 1500 each, and what it changed.
    assert game_rating_changes([game.game_id]) == {
        game.game_id: {p.pk: (1500, 1515), q.pk: (1500, 1485)}
    }
    # A game whose opening ratings were not kept is rated at the ratings as they are.
    r = PlayerFactory()
    game_rate(game=FinishedGameFactory(white_id=p.pk, black_id=r.pk))
    assert rating_of(p.pk).value == 1575 + 12  # 1575 v 1500: PA 0,6, V = 30 × 0,4


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"rated": False}, NotRatedReason.CASUAL),
        ({"forfeit": True}, NotRatedReason.FORFEIT),
        ({"white_sat": False}, NotRatedReason.NEVER_SAT),
        ({"black_sat": False}, NotRatedReason.NEVER_SAT),
        ({"white_sat": False, "black_sat": False}, NotRatedReason.NEVER_SAT),
        ({"result": GameResult.NOBODY_SCORES}, NotRatedReason.NEVER_SAT),
        # A game lost on time by a player who never sat is still not rated (RULES 3).
        ({"black_sat": False, "result": GameResult.WHITE_WINS}, NotRatedReason.NEVER_SAT),
    ],
)
def test_never_rated_games(overrides: dict, reason: NotRatedReason) -> None:
    game = FinishedGameFactory(**overrides)

    outcome = game_rate(game=game)

    assert outcome.status is Status.NOT_RATED
    assert outcome.reason is reason
    assert not Rating.objects.exists()
    assert not RatingPeriod.objects.exists()


def test_a_tournament_game_is_not_rated_on_its_own() -> None:
    game = FinishedGameFactory(with_event=True)
    outcome = game_rate(game=game)
    assert (outcome.status, outcome.reason) == (Status.NOT_RATED, NotRatedReason.WITH_EVENT)
    assert not Rating.objects.exists()
    # ... and it still counts, once, when its tournament is rated.
    tournament = FinishedTournamentFactory(
        tournament_id=42,
        games=[game],
        start_ratings={game.white_id: 1500, game.black_id: 1500},
    )
    assert tournament_rate(tournament=tournament).status is Status.RATED
    assert rating_of(game.white_id).games == 1


def test_a_game_against_oneself_is_refused() -> None:
    player = PlayerFactory()
    with pytest.raises(ValueError):
        game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=player.pk))


def test_rating_a_game_twice_changes_nothing() -> None:
    game = FinishedGameFactory()
    assert game_rate(game=game).status is Status.RATED

    again = game_rate(game=game)

    assert again.status is Status.ALREADY_RATED
    assert rating_of(game.white_id).value == 1515
    assert rating_of(game.white_id).games == 1
    assert RatingChange.objects.count() == 2
    assert RatingPeriod.objects.count() == 1


def test_the_database_refuses_a_second_period_for_one_event() -> None:
    RatingPeriod.objects.create(kind="game", source_id=7, variant="chess", cadence="blitz")
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingPeriod.objects.create(kind="game", source_id=7, variant="chess", cadence="blitz")


def test_the_database_refuses_a_second_change_of_one_rating_in_one_period() -> None:
    period = RatingPeriod.objects.create(kind="game", source_id=8, variant="chess", cadence="blitz")
    rating = RatingFactory()
    fields = {"before": 1500, "after": 1515, "delta": 15, "games": 1, "score": 1}
    RatingChange.objects.create(period=period, rating=rating, expected=0.5, k=30, **fields)
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingChange.objects.create(period=period, rating=rating, expected=0.5, k=30, **fields)


def test_idempotent_even_when_the_exists_check_is_fooled(monkeypatch) -> None:
    """Two workers can both pass the early check; the unique constraint still says no."""
    game = FinishedGameFactory()
    game_rate(game=game)
    real_filter = RatingPeriod.objects.filter

    class Blind:
        def __init__(self, qs) -> None:
            self.qs = qs

        def exists(self) -> bool:
            return False

    monkeypatch.setattr(RatingPeriod.objects, "filter", lambda **kw: Blind(real_filter(**kw)))

    assert game_rate(game=game).status is Status.ALREADY_RATED
    monkeypatch.undo()
    assert rating_of(game.white_id).value == 1515
    assert RatingChange.objects.count() == 2


# --- tournaments -----------------------------------------------------------------------------


def four_player_tournament(**overrides):
    """A round robin of four: A (2000) and C (1500) share first place with 2 points each.

    A: beat B, lost to C, beat D = 2.    C: beat A, drew B, drew D = 2.
    B: lost to A, drew C, beat D = 1,5.  D: lost to A, drew C, lost to B = 0,5.
    B's rating has since moved to 1700 (a challenge between rounds): the tournament must still
    be computed with B's 1500 of the start.
    """
    a = RatingFactory(value=2000)
    b = RatingFactory(value=1700)
    c = RatingFactory(value=1500)
    d = RatingFactory(value=1500)
    A, B, C, D = (r.player_id for r in (a, b, c, d))
    W, L, X = GameResult.WHITE_WINS, GameResult.BLACK_WINS, GameResult.DRAW
    games = [
        FinishedGameFactory(white_id=A, black_id=B, result=W),
        FinishedGameFactory(white_id=C, black_id=A, result=W),
        FinishedGameFactory(white_id=A, black_id=D, result=W),
        FinishedGameFactory(white_id=B, black_id=C, result=X),
        FinishedGameFactory(white_id=D, black_id=B, result=L),
        FinishedGameFactory(white_id=C, black_id=D, result=X),
    ]
    fields = {
        "games": games,
        "start_ratings": {A: 2000, B: 1500, C: 1500, D: 1500},
        "first_place": frozenset({A, C}),
        **overrides,
    }
    return FinishedTournamentFactory(**fields), (A, B, C, D)


def test_tournament_is_one_period_with_start_ratings_and_art_11() -> None:
    tournament, (A, B, C, D) = four_player_tournament()

    outcome = tournament_rate(tournament=tournament)

    assert outcome.status is Status.RATED
    # A: 3 x 89 = 2,67 -> PA 2,7; V = 30 x (2 - 2,7) = -21, but A is first: art. 11 -> 0.
    a = rating_of(A)
    assert (a.value, a.games, a.last_change) == (2000, 3, 0)
    assert a.history.get().first_protected
    # C (first ex aequo, positive): 11 + 50 + 50 = 1,11 -> PA 1,1; V = 30 x 0,9 = +27.
    assert rating_of(C).value == 1527
    assert not rating_of(C).history.get().first_protected
    # B: PA 1,1; V = 30 x (1,5 - 1,1) = +12, added to the 1700 B holds now.
    b_change = rating_of(B).history.get()
    assert (b_change.held, b_change.before, b_change.after, b_change.delta) == (
        1500,
        1700,
        1712,
        12,
    )
    # D: PA 1,1; V = 30 x (0,5 - 1,1) = -18.
    assert rating_of(D).value == 1482
    assert RatingPeriod.objects.get().kind == "tournament"
    assert RatingChange.objects.count() == 4


def test_tournament_without_art_11_for_a_player_not_first() -> None:
    tournament, (A, *_rest) = four_player_tournament(first_place=frozenset())
    tournament_rate(tournament=tournament)
    assert rating_of(A).value == 1979


def test_rating_a_tournament_twice_changes_nothing() -> None:
    tournament, players = four_player_tournament()
    tournament_rate(tournament=tournament)
    before = list(Rating.objects.order_by("pk").values_list("value", "games"))

    assert tournament_rate(tournament=tournament).status is Status.ALREADY_RATED

    assert list(Rating.objects.order_by("pk").values_list("value", "games")) == before
    assert RatingChange.objects.count() == 4


def test_unrated_tournament_is_never_rated() -> None:
    tournament, _ = four_player_tournament(rated=False)
    outcome = tournament_rate(tournament=tournament)
    assert (outcome.status, outcome.reason) == (Status.NOT_RATED, NotRatedReason.UNRATED_EVENT)
    assert not RatingChange.objects.exists()


def test_tournament_skips_forfeits_and_games_never_sat() -> None:
    e, f, g = RatingFactory(), RatingFactory(), RatingFactory()
    tournament = FinishedTournamentFactory(
        games=[
            FinishedGameFactory(white_id=e.player_id, black_id=f.player_id, forfeit=True),
            FinishedGameFactory(white_id=f.player_id, black_id=g.player_id, black_sat=False),
            FinishedGameFactory(
                white_id=e.player_id, black_id=g.player_id, result=GameResult.NOBODY_SCORES
            ),
            FinishedGameFactory(white_id=g.player_id, black_id=e.player_id, result="1-0"),
        ],
        start_ratings={e.player_id: 1500, f.player_id: 1500, g.player_id: 1500},
    )

    tournament_rate(tournament=tournament)

    assert (rating_of(g.player_id).value, rating_of(g.player_id).games) == (1515, 1)
    assert (rating_of(e.player_id).value, rating_of(e.player_id).games) == (1485, 1)
    assert not rating_of(f.player_id).history.exists()  # only a forfeit and a never-sat game
    assert rating_of(f.player_id).value == 1500


def test_tournament_with_nothing_rated() -> None:
    e, f = RatingFactory(), RatingFactory()
    tournament = FinishedTournamentFactory(
        games=[FinishedGameFactory(white_id=e.player_id, black_id=f.player_id, forfeit=True)],
        start_ratings={e.player_id: 1500, f.player_id: 1500},
    )
    outcome = tournament_rate(tournament=tournament)
    assert outcome.reason is NotRatedReason.NO_RATED_GAMES
    assert not RatingPeriod.objects.exists()


def test_double_games_count_as_two_games() -> None:
    e, f = RatingFactory(), RatingFactory()
    tournament = FinishedTournamentFactory(
        games=[
            FinishedGameFactory(white_id=e.player_id, black_id=f.player_id, result="1-0"),
            FinishedGameFactory(white_id=f.player_id, black_id=e.player_id, result="1/2-1/2"),
        ],
        start_ratings={e.player_id: 1500, f.player_id: 1500},
    )
    tournament_rate(tournament=tournament)
    # 1,5 of 2 against 1500: PA 1,0; V = 30 x 0,5 = +15.
    assert (rating_of(e.player_id).value, rating_of(e.player_id).games) == (1515, 2)
    assert rating_of(f.player_id).value == 1485


def test_tournament_refuses_a_game_of_another_pool() -> None:
    e, f = RatingFactory(), RatingFactory()
    tournament = FinishedTournamentFactory(
        games=[
            FinishedGameFactory(
                white_id=e.player_id, black_id=f.player_id, time_control=TimeControl(60, 0)
            )
        ],
        start_ratings={e.player_id: 1500, f.player_id: 1500},
    )
    with pytest.raises(ValueError):
        tournament_rate(tournament=tournament)


# --- recompute and selectors -----------------------------------------------------------------


def test_recompute_restores_a_rating_from_its_history() -> None:
    player, first, second = PlayerFactory(), PlayerFactory(), PlayerFactory()
    game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=first.pk))
    game_rate(game=FinishedGameFactory(white_id=second.pk, black_id=player.pk))
    Rating.objects.filter(player=player).update(value=9999, games=0, peak=0, last_change=5)

    player_ratings_recompute(player_id=player.pk)

    rating = rating_of(player.pk)
    # +15 (1515), then a loss to 1500 at 1515: 52% -> PA 0,5, -15 (1500).
    assert (rating.value, rating.games, rating.peak, rating.last_change) == (1500, 2, 1515, -15)


def test_selectors_fall_back_to_the_initial_rating() -> None:
    known = RatingFactory(value=1720)
    stranger = PlayerFactory()
    assert ratings_snapshot(
        player_ids=[known.player_id, stranger.pk], variant="chess", cadence="blitz"
    ) == {known.player_id: 1720, stranger.pk: 1500}
    assert rating_value(player_id=known.player_id, variant="chess", cadence="rapid") == 1500


def test_ratings_at_reads_the_past_from_the_ledger() -> None:
    player, first, second = PlayerFactory(), PlayerFactory(), PlayerFactory()
    game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=first.pk))
    middle = timezone.now()
    game_rate(game=FinishedGameFactory(white_id=player.pk, black_id=second.pk))

    def at(moment):
        return ratings_at(player_ids=[player.pk], variant="chess", cadence="blitz", at=moment)

    assert at(middle - timedelta(hours=1)) == {player.pk: 1500}
    assert at(middle) == {player.pk: 1515}
    assert at(timezone.now()) == {player.pk: 1530}


def test_a_tournament_game_shows_the_rating_of_the_tournaments_start() -> None:
    """RULES 7.1: a game rated with its tournament shows the rating the period was reckoned at
    (its start), not the one its change was added to, and no change of its own."""
    from games.models import Game
    from games.tests.factories import open_game

    tournament, (A, B, C, D) = four_player_tournament()
    tournament_rate(tournament=tournament)
    game = open_game(
        white=Rating.objects.get(player_id=B).player, black=Rating.objects.get(player_id=C).player
    )
    Game.objects.filter(pk=game.pk).update(
        status="finished", result="1/2-1/2", rated_with_event=True,
        event_id=tournament.tournament_id,
    )  # fmt: skip
    shown = game_rating_changes([game.pk])[game.pk]
    assert (shown[B], shown[C]) == ((1500, None), (1500, None))  # B holds 1712 now
