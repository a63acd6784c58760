"""The one `game_finished` router (STYLE 6): a game of an event goes to its kind's handler.

It runs in a worker, off the move that ended the game (`games.services.state.settle_on_commit`);
if it fails, the game stays unsettled and the tick sends it again, so handlers are idempotent.
"""

from __future__ import annotations

from django.dispatch import receiver

from events.kinds import kind_of_game
from games.signals import game_finished


@receiver(game_finished, dispatch_uid="events.route_finished_game")
def route_finished_game(sender, game, **kwargs):
    kind = kind_of_game(game)
    if kind is None:
        return None
    return kind.game_finished(game_id=game.pk)
