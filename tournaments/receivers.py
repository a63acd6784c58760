"""Tournaments learn that one of their games ended from `game_finished` (STYLE 6).

Connected by `tournaments.apps.TournamentsConfig.ready`. The receiver only adapts: it calls one
service, which is safe to run twice; if it never runs (a process killed after the commit), the
tick's `tournament_advance` scores the game from the database all the same.
"""

from __future__ import annotations

from django.contrib.contenttypes.models import ContentType
from django.dispatch import receiver

from games.models import Game
from games.signals import game_finished


@receiver(game_finished, dispatch_uid="tournaments.score_finished_game")
def score_finished_game(sender, game: Game, **kwargs) -> bool:
    from tournaments.models import Tournament
    from tournaments.running import tournament_game_finished

    if game.event_type_id != ContentType.objects.get_for_model(Tournament).pk:
        return False
    return tournament_game_finished(game_id=game.pk)
