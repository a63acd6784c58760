"""Ratings learn that a game ended from the `game_finished` signal (STYLE 6).

Connected by `ratings.apps.RatingsConfig.ready` importing this module. Only games that belong to
no event are rated here one by one (challenges, RULES 7.1); tournament games are rated with the
whole tournament by `tournament_rate`, and arenas decide for their own games.
"""

from __future__ import annotations

from django.dispatch import receiver

from games.models import Game
from games.signals import game_finished
from ratings.services import FinishedGame, GameResult, RatingOutcome, game_rate


def finished_game_of(game: Game) -> FinishedGame:
    return FinishedGame(
        game_id=game.pk,
        white_id=game.white_id,
        black_id=game.black_id,
        variant=game.variant,
        time_control=game.time_control,
        result=GameResult(game.result),
        rated=game.rated,
        white_sat=game.white_sat,
        black_sat=game.black_sat,
        forfeit=game.reason == "forfeit",
    )


@receiver(game_finished, dispatch_uid="ratings.rate_finished_game")
def rate_finished_game(sender, game: Game, **kwargs) -> RatingOutcome | None:
    if game.event_type_id is not None:
        return None
    return game_rate(game=finished_game_of(game))
