"""Every game a tournament opens takes both players' pages to the board (the game opens and
its clock runs whether they are there or not, RULES 4.7).

The site socket's `mygame` (live/pushes.py) carries the game's id to every page of the player
(live/static/live/mygame.js goes there). Sent after commit only (STYLE 4): checked by running
the services with the pushes collected, with and without the commit's callbacks.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from games import services as games
from live import pushes
from live.pushes import user_group
from tournaments import running
from tournaments.models import Pairing
from tournaments.tests.factories import tick
from tournaments.tests.test_run import PAUSE, T0, live_games, make, ms

pytestmark = pytest.mark.django_db


def told_games(outbox, user_id: int) -> list[int]:
    """The games this user's pages were sent to, in order."""
    return [
        message["game"]
        for group, message in outbox
        if group == user_group(user_id) and message["what"] == "mygame"
    ]


def test_a_new_round_takes_both_players_to_their_board(django_capture_on_commit_callbacks):
    tournament = make(4)
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        running.tournament_start(tournament_id=tournament.pk, now=T0)
    opened = live_games(tournament)
    assert len(opened) == 2
    for game in opened:
        assert told_games(outbox, game.white_id) == [game.pk]
        assert told_games(outbox, game.black_id) == [game.pk]


def test_nothing_is_pushed_before_the_commit(django_capture_on_commit_callbacks):
    """A round rolled back must not send anyone to a game that does not exist."""
    tournament = make(4)
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=False):
        running.tournament_start(tournament_id=tournament.pk, now=T0)
    assert live_games(tournament) and outbox == []


def test_the_return_leg_takes_both_players_to_its_board(django_capture_on_commit_callbacks):
    tournament = make(4)
    tick(T0)
    first = live_games(tournament)[0]
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        games.game_resign(game_id=first.pk, user_id=first.white_id)  # the router opens leg 2
    second = Pairing.objects.get(game1=first).game2
    assert second is not None
    assert told_games(outbox, first.white_id) == [second.pk]
    assert told_games(outbox, first.black_id) == [second.pk]


def test_after_a_bye_the_next_game_takes_the_player_to_the_board(
    django_capture_on_commit_callbacks,
):
    tournament = make(5)  # RULES 5.1: five players, one rests each round
    tick(T0)
    bye = Pairing.objects.get(round__tournament=tournament, round__number=1, black__isnull=True)
    rested = bye.white.player_id
    now = T0 + timedelta(seconds=5)
    for game in live_games(tournament):
        assert rested not in (game.white_id, game.black_id)
        games.game_resign(game_id=game.pk, user_id=game.white_id, at_ms=ms(now))
    tick(now)  # round 1 scored and ended
    with pushes.collected() as outbox, django_capture_on_commit_callbacks(execute=True):
        tick(now + PAUSE)  # RULES 4.8: round 2 after the pause
    mine = [g for g in live_games(tournament) if rested in (g.white_id, g.black_id)]
    assert len(mine) == 1
    assert told_games(outbox, rested) == [mine[0].pk]
