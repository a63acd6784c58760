"""Offers both players can make, made at the same moment (threads released by one barrier, each
on its own PostgreSQL connection): they become one game (`live.locks.lock_pair`)."""

from __future__ import annotations

import pytest

from games.models import Challenge, ChallengeStatus, Game
from games.services import challenge_accept, challenge_create, rematch_offer
from games.services.errors import ChallengeGone
from games.tests.test_after import finished_game
from tests.concurrency import Raised, run_at_once

pytestmark = pytest.mark.django_db(transaction=True)


def games_between(a: int, b: int) -> int:
    return Game.objects.filter(white_id__in=(a, b), black_id__in=(a, b)).count()


@pytest.mark.parametrize("trial", range(3))
def test_both_players_asking_for_a_rematch_at_once_get_one_game(trial):
    """Each read the other's offer as absent and posted their own: two crossing offers and no
    game, on the code without the pair's lock (5 trials of 5 in an attack run)."""
    game = finished_game()
    white, black = game.white_id, game.black_id
    results = run_at_once(
        lambda: rematch_offer(game_id=game.pk, user_id=white),
        lambda: rematch_offer(game_id=game.pk, user_id=black),
    )
    new_games = [new for _offer, new in results if new is not None]
    assert len(new_games) == 1  # the second to come accepted the first's offer
    assert games_between(white, black) == 2  # the finished game and its rematch
    assert not Challenge.objects.filter(status=ChallengeStatus.OPEN).exists()
    # Colours swapped: who had White in the first game has Black in the rematch.
    assert new_games[0].black_id == white


def test_a_stale_offer_accepted_after_the_rematch_started_starts_nothing():
    """An offer left open when the two started a game (here an older challenge of Black's to
    White) was accepted later and started another game."""
    game = finished_game(rated=False)
    white, black = game.white_id, game.black_id
    older = challenge_create(
        challenger_id=black,
        opponent_id=white,
        variant_code="chess",
        base_seconds=600,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    offer, _none = rematch_offer(game_id=game.pk, user_id=white)
    _theirs, rematch = rematch_offer(game_id=game.pk, user_id=black)
    assert rematch is not None
    older.refresh_from_db()
    assert older.status == ChallengeStatus.CANCELLED
    with pytest.raises(ChallengeGone):
        challenge_accept(challenge_id=older.pk, user_id=white)
    # A click on "Rivincita" arriving late finds the rematch played and posts no new offer.
    with pytest.raises(ChallengeGone):
        rematch_offer(game_id=game.pk, user_id=white)
    assert games_between(white, black) == 2
    assert not Challenge.objects.filter(status=ChallengeStatus.OPEN).exists()


def test_two_challenges_crossing_accepted_at_once_open_one_game():
    """Each player accepts the other's challenge at the same moment: one game, the other
    challenge withdrawn (without the pair's lock: one accept failed busy or both waited on
    the other's challenge row, and the leftover could start a second game later)."""
    game = finished_game(rated=False)
    white, black = game.white_id, game.black_id
    terms = dict(variant_code="chess", base_seconds=600, increment_seconds=0, rated=False)
    to_black = challenge_create(challenger_id=white, opponent_id=black, color="white", **terms)
    to_white = challenge_create(challenger_id=black, opponent_id=white, color="white", **terms)
    results = run_at_once(
        lambda: challenge_accept(challenge_id=to_black.pk, user_id=black),
        lambda: challenge_accept(challenge_id=to_white.pk, user_id=white),
        errors=True,
    )
    opened = [r for r in results if isinstance(r, Game)]
    refused = [r for r in results if isinstance(r, Raised)]
    assert len(opened) == 1 and len(refused) == 1
    assert isinstance(refused[0].error, ChallengeGone)
    assert games_between(white, black) == 2
    assert not Challenge.objects.filter(status=ChallengeStatus.OPEN).exists()
