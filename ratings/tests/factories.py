from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from games.rules.timecontrol import TimeControl
from ratings.models import Rating
from ratings.services import FinishedGame, FinishedTournament, GameResult

BLITZ = TimeControl(180, 2)  # 3+2: blitz (RULES 2)
RAPID = TimeControl(900, 10)  # 15+10: rapid


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"giocatore{n}")
    password = "!"  # unusable: hashing a real one is slow and no test logs in with it
    is_bot = False


class RatingFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Rating

    player = factory.SubFactory(PlayerFactory)
    variant = "chess"
    cadence = "blitz"
    value = 1500
    peak = factory.SelfAttribute("value")
    games = 0


class FinishedGameFactory(factory.Factory):
    """A finished, rated, fully played chess blitz game; override what the test is about."""

    class Meta:
        model = FinishedGame

    game_id = factory.Sequence(lambda n: 1000 + n)
    white_id = factory.LazyFunction(lambda: PlayerFactory().pk)
    black_id = factory.LazyFunction(lambda: PlayerFactory().pk)
    variant = "chess"
    time_control = BLITZ
    result = GameResult.WHITE_WINS
    rated = True
    white_sat = True
    black_sat = True
    forfeit = False


class FinishedTournamentFactory(factory.Factory):
    class Meta:
        model = FinishedTournament

    tournament_id = factory.Sequence(lambda n: 500 + n)
    variant = "chess"
    time_control = BLITZ
    rated = True
    games = ()
    start_ratings = factory.LazyFunction(dict)
    first_place = frozenset()
