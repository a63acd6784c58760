"""Ratings learn that a game ended from the `game_finished` signal (STYLE 6).

Connected by `ratings.apps.RatingsConfig.ready` importing this module; it runs in a worker,
off the move that ended the game (`games.services.state.settle_on_commit`). The game carries
its own rating decision, fixed when it opened: a game rated with its event (a round
tournament) is rated by `tournament_rate` at the event's end; every other rated game
(challenges, arenas) is rated here, alone (RULES 7.1). Idempotent: a game is rated once, ever.
"""

from __future__ import annotations

from django.dispatch import receiver

from games.models import Game
from games.signals import game_finished
from ratings.services import RatingOutcome, finished_game_of, game_rate


@receiver(game_finished, dispatch_uid="ratings.rate_finished_game")
def rate_finished_game(sender, game: Game, **kwargs) -> RatingOutcome | None:
    if game.rated_with_event:
        return None
    return game_rate(game=finished_game_of(game))
