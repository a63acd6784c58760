"""A finished rated challenge reaches the ratings through `game_finished` (ratings/receivers.py)."""

from __future__ import annotations

import pytest

from games.services import game_presence, game_resign
from games.tests.factories import T0, open_game
from ratings import receivers  # noqa: F401  (connected by ratings.apps; imported for clarity)
from ratings.models import Rating


@pytest.mark.django_db(transaction=True)
def test_rated_game_moves_ratings_casual_and_never_sat_do_not():
    game = open_game(base_seconds=300, increment_seconds=0)
    for user in (game.white_id, game.black_id):
        game_presence(game_id=game.pk, user_id=user, key=f"socket-{user}", connected=True, at_ms=T0)
    game_resign(game_id=game.pk, user_id=game.black_id, at_ms=T0 + 1)
    white = Rating.objects.get(player_id=game.white_id, variant="chess", cadence="blitz")
    black = Rating.objects.get(player_id=game.black_id, variant="chess", cadence="blitz")
    assert white.value > black.value and white.games == black.games == 1

    unsat = open_game(base_seconds=300, increment_seconds=0)
    game_presence(
        game_id=unsat.pk,
        user_id=unsat.white_id,
        key=f"socket-{unsat.white_id}",
        connected=True,
        at_ms=T0,
    )
    game_resign(game_id=unsat.pk, user_id=unsat.white_id, at_ms=T0 + 1)
    assert not Rating.objects.filter(player_id=unsat.black_id, games__gt=0).exists()
