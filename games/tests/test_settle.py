"""A finished game is settled (`game_finished` for its events and ratings) off the move that
ended it, and never lost: the tick settles whatever a lost task, a dead worker or a failing
receiver left behind (`games.services.due.games_settle_due`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from games import tasks
from games.models import Game
from games.services import game_presence, game_resign, game_settle, games_settle_due
from games.signals import game_finished
from games.tests.factories import T0, open_game
from ratings.models import Rating, RatingPeriod

pytestmark = pytest.mark.django_db
AFTER_IT = datetime.fromtimestamp(T0 / 1000, UTC) + timedelta(minutes=1)


def finished_rated_challenge() -> Game:
    game = open_game(base_seconds=300, increment_seconds=0)
    for user in (game.white_id, game.black_id):
        game_presence(game_id=game.pk, user_id=user, key=f"s{user}", connected=True, at_ms=T0)
    return game_resign(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 1)


def test_a_challenge_game_whose_settle_task_was_lost_is_rated_by_the_tick():
    # Here nothing commits, so the settle task sent on commit never goes: as if the process
    # had been killed between the commit and the task.
    game = finished_rated_challenge()
    assert not Game.objects.get(pk=game.pk).settled
    assert not RatingPeriod.objects.exists()
    assert (
        games_settle_due(now=AFTER_IT - timedelta(minutes=1)) == []
    )  # too soon: the task may come
    assert games_settle_due(now=AFTER_IT) == [game.pk]
    assert RatingPeriod.objects.filter(kind="game", source_id=game.pk).count() == 1
    assert Game.objects.get(pk=game.pk).settled
    assert games_settle_due(now=AFTER_IT) == []  # settled once
    assert Rating.objects.get(player_id=game.white_id, variant="chess").games == 1


def test_a_failing_receiver_leaves_the_game_unsettled_until_it_works():
    game = finished_rated_challenge()
    calls = []

    def broken(sender, game, **kwargs):
        calls.append(game.pk)
        if len(calls) == 1:
            raise RuntimeError("a receiver down")

    game_finished.connect(broken, dispatch_uid="test-broken")
    try:
        assert game_settle(game_id=game.pk) is False
        assert not Game.objects.get(pk=game.pk).settled
        # The ratings receiver ran anyway (send_robust) and is idempotent: rated once.
        assert games_settle_due(now=AFTER_IT) == [game.pk]
    finally:
        game_finished.disconnect(dispatch_uid="test-broken")
    assert calls == [game.pk, game.pk]
    assert Game.objects.get(pk=game.pk).settled
    assert RatingPeriod.objects.filter(kind="game", source_id=game.pk).count() == 1


def test_a_broker_away_at_the_end_of_a_game_loses_nothing(
    monkeypatch, django_capture_on_commit_callbacks
):
    def refuse(*args, **kwargs):
        raise ConnectionError("broker away")

    monkeypatch.setattr(tasks.settle, "apply_async", refuse)
    with django_capture_on_commit_callbacks(execute=True):
        game = finished_rated_challenge()  # the move commits and answers
    assert Game.objects.get(pk=game.pk).status == "finished"
    assert not Game.objects.get(pk=game.pk).settled
    assert games_settle_due(now=AFTER_IT) == [game.pk]  # the tick makes good


def test_the_settle_task_runs_once_the_game_has_ended(django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        game = finished_rated_challenge()
    assert Game.objects.get(pk=game.pk).settled  # the task ran (inline here, as in a worker)
    assert RatingPeriod.objects.filter(kind="game", source_id=game.pk).count() == 1
