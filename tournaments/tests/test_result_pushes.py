"""A round's results move the standings several times a second in a big tournament: the
tournament's page group hears of them at most once a second, the last never lost (the arena's
throttle, live/pushes.py), while the round's end goes at once (tournaments/broadcast.py)."""

from __future__ import annotations

import pytest

from games import services as games
from live import pushes, tasks
from tournaments.broadcast import group_name
from tournaments.models import Pairing
from tournaments.tests.factories import tick
from tournaments.tests.test_run import T0, live_games, make, ms

pytestmark = pytest.mark.django_db


def test_results_are_pushed_once_a_window_and_the_round_end_at_once(
    django_capture_on_commit_callbacks, monkeypatch
):
    tournament = make(12)
    tick(T0)
    tournament.refresh_from_db()
    round_games = live_games(tournament)
    assert len(round_games) == 6
    assert not Pairing.objects.filter(round__tournament=tournament, game2__isnull=False).exists()
    group = group_name(tournament.pk)
    trailing = []
    monkeypatch.setattr(
        tasks.push,
        "apply_async",
        lambda args, countdown, retry: args[0] == group and trailing.append(countdown),
    )

    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        for game in round_games[:-1]:
            games.game_resign(game_id=game.pk, user_id=game.white_id, at_ms=ms(T0))
    assert [g for g, _m in outbox if g == group] == [group]  # the first result at once
    assert trailing == [1.0]  # the others in one push at the window's end
    assert pushes.pushes_so_far(group) - pushes.pushes_so_far(group, pushed=True) == 4

    # The last game ends the round: pushed at once, inside the window all the same.
    last = round_games[-1]
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        games.game_resign(game_id=last.pk, user_id=last.white_id, at_ms=ms(T0))
    assert [g for g, _m in outbox if g == group] == [group]
    assert pushes.pushes_so_far(group) == pushes.pushes_so_far(group, pushed=True)
    assert trailing == [1.0]
