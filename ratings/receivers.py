"""Everything the ratings app hooks into (imported by `RatingsConfig.ready`).

Ratings learn that a game ended from the `game_finished` signal (STYLE 6); games show ratings
beside their players and quick pairing compares them, but games cannot import ratings, so
ratings hand them their reader (`games.player_ratings`); the data download has their ratings
and history (accounts.personal).

The signal's receiver runs in a worker, off the move that ended the game (`games.services.state.settle_on_commit`). The game carries
its own rating decision, fixed when it opened: a game rated with its event (a round
tournament) is rated by `tournament_rate` at the event's end; every other rated game
(challenges, arenas) is rated here, alone (RULES 7.1). Idempotent: a game is rated once, ever.
"""

from __future__ import annotations

from django.dispatch import receiver

from accounts import personal as account_data
from games import player_ratings
from games.models import Game
from games.signals import game_finished
from ratings.personal import ratings_section
from ratings.selectors import game_rating_changes, ratings_for
from ratings.services import RatingOutcome, finished_game_of, game_rate


@receiver(game_finished, dispatch_uid="ratings.rate_finished_game")
def rate_finished_game(sender, game: Game, **kwargs) -> RatingOutcome | None:
    if game.rated_with_event:
        return None
    return game_rate(game=finished_game_of(game))


player_ratings.register(
    player_ratings.RatingReader(current=ratings_for, game_changes=game_rating_changes)
)
account_data.register_section("ratings", ratings_section)
