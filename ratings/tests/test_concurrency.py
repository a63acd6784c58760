"""Concurrency on real PostgreSQL (RULES 7.1: two games ending at once both count, once).

Each worker is a thread with its own database connection, so the transactions really overlap.
The step between reading the ratings and writing them (`_open_period`) is slowed down so that,
without the row locks of the services, both workers would read the same ratings and the second
write would erase the first (these tests fail if `select_for_update` is removed).
"""

from __future__ import annotations

import time

import pytest
from django.db import connection

from ratings import services
from ratings.models import Rating, RatingChange, RatingPeriod
from ratings.services import GameResult, Status, game_rate, tournament_rate
from ratings.tests.factories import (
    FinishedGameFactory,
    FinishedTournamentFactory,
    PlayerFactory,
    RatingFactory,
)
from tests.concurrency import run_at_once

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="row locks need the real PostgreSQL"
)

SLOWDOWN_SECONDS = 0.3


@pytest.fixture
def slow_rating_maths(monkeypatch: pytest.MonkeyPatch) -> None:
    real = services._open_period

    def slow(**kwargs):
        period = real(**kwargs)
        time.sleep(SLOWDOWN_SECONDS)
        return period

    monkeypatch.setattr(services, "_open_period", slow)


def test_two_games_of_one_player_ending_at_once_both_count(
    transactional_db: None, slow_rating_maths: None
) -> None:
    player, first, second = PlayerFactory(), PlayerFactory(), PlayerFactory()
    for someone in (player, first, second):  # committed rows: only the row lock can serialize
        RatingFactory(player=someone)
    game_one = FinishedGameFactory(white_id=player.pk, black_id=first.pk)
    # The shared player is Black here, so the two games list their players in opposite order.
    game_two = FinishedGameFactory(
        white_id=second.pk, black_id=player.pk, result=GameResult.BLACK_WINS
    )

    outcomes = run_at_once(lambda: game_rate(game=game_one), lambda: game_rate(game=game_two))

    assert [o.status for o in outcomes] == [Status.RATED, Status.RATED]
    rating = Rating.objects.get(player=player)
    # Two wins: 1500 -> 1515, then 1515 vs 1500 (52% -> PA 0,5) -> 1530, in either order.
    assert (rating.value, rating.games, rating.peak) == (1530, 2, 1530)
    chain = list(rating.history.order_by("before").values_list("before", "after"))
    assert chain == [(1500, 1515), (1515, 1530)]


def test_one_game_rated_by_two_workers_at_once_counts_once(
    transactional_db: None, slow_rating_maths: None
) -> None:
    game = FinishedGameFactory()

    outcomes = run_at_once(lambda: game_rate(game=game), lambda: game_rate(game=game))

    assert sorted(o.status for o in outcomes) == sorted([Status.RATED, Status.ALREADY_RATED])
    assert Rating.objects.get(player_id=game.white_id).value == 1515
    assert Rating.objects.get(player_id=game.white_id).games == 1
    assert RatingPeriod.objects.count() == 1
    assert RatingChange.objects.count() == 2


def test_a_tournament_and_a_game_of_the_same_players_at_once(
    transactional_db: None, slow_rating_maths: None
) -> None:
    players = [PlayerFactory() for _ in range(4)]
    ids = [p.pk for p in players]
    for someone in players:
        RatingFactory(player=someone)
    tournament = FinishedTournamentFactory(
        games=[
            FinishedGameFactory(white_id=ids[0], black_id=ids[1]),
            FinishedGameFactory(white_id=ids[2], black_id=ids[3]),
        ],
        start_ratings={pid: 1500 for pid in ids},
    )
    challenge = FinishedGameFactory(white_id=ids[3], black_id=ids[0])

    outcomes = run_at_once(
        lambda: tournament_rate(tournament=tournament), lambda: game_rate(game=challenge)
    )

    assert [o.status for o in outcomes] == [Status.RATED, Status.RATED]
    games = dict(Rating.objects.values_list("player_id", "games"))
    assert games == {ids[0]: 2, ids[1]: 1, ids[2]: 1, ids[3]: 2}
    # Every rating is its start plus the sum of its changes: nothing was lost.
    for rating in Rating.objects.all():
        assert rating.value == 1500 + sum(rating.history.values_list("delta", flat=True))
