"""Two workers ticking at the same instant start a tournament once and pair each round once
(RULES 4.3, 4.8), on real PostgreSQL with threads. Without the tournament row lock both threads would
see the tournament scheduled and both would pair round 1 (the unique round constraint would
then fail one of them only after games had been opened twice)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection

from games import services as games
from games.models import Game
from tests.concurrency import run_at_once
from tournaments import running
from tournaments.models import Pairing, Round
from tournaments.tests.test_run import T0, live_games, make, ms

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]


def _twice_at_once(step) -> list:
    return run_at_once(step, step)


def test_two_ticks_at_once_start_and_pair_once():
    tournament = make(4)
    results = _twice_at_once(lambda: running.tournaments_due_process(now=T0))
    assert sorted(results) == [[], [tournament.pk]]
    assert Round.objects.filter(tournament=tournament).count() == 1
    assert Game.objects.filter(event_id=tournament.pk).count() == 2  # one per board

    for game in live_games(tournament):
        games.game_resign(game_id=game.pk, user_id=game.white_id, at_ms=ms(T0))
    later = T0 + timedelta(seconds=5)
    _twice_at_once(lambda: running.tournaments_due_process(now=later))
    # RULES 4.5: each first game scored once and each second game opened once.
    assert Game.objects.filter(event_id=tournament.pk).count() == 4
    assert all(p.white_points1 == 0 for p in Pairing.objects.filter(round__tournament=tournament))

    for game in live_games(tournament):
        games.game_resign(game_id=game.pk, user_id=game.white_id, at_ms=ms(later))
    _twice_at_once(lambda: running.tournaments_due_process(now=later))
    next_round = later + timedelta(seconds=31)
    _twice_at_once(lambda: running.tournaments_due_process(now=next_round))
    assert Round.objects.filter(tournament=tournament).count() == 2
    assert Game.objects.filter(event_id=tournament.pk).count() == 6
