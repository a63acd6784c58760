from __future__ import annotations

from datetime import timedelta

import factory
from django.utils import timezone

from accounts.tests.factories import UserFactory
from tournaments.models import Registration, Tournament


class TournamentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Tournament

    name = factory.Sequence(lambda n: f"Torneo {n}")
    opened_by = factory.SubFactory(UserFactory)
    variant = "chess"
    base_seconds = 300
    increment_seconds = 3
    cadence = "blitz"
    starts_at = factory.LazyFunction(lambda: timezone.now() + timedelta(hours=2))
    seats = 16


class RegistrationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Registration

    tournament = factory.SubFactory(TournamentFactory)
    player = factory.SubFactory(UserFactory)


def tick(now):
    """The site's periodic work at `now`, in a test that never commits: every finished game of
    a tournament not yet settled reaches `tournament_game_finished` as its settle task would
    deliver it (`games.services.state.settle_on_commit`; on_commit never fires here), at the
    test's clock; then the tournaments' tick. Returns what the tick changed."""
    from games.models import Game, Status
    from tournaments import running

    finished = Game.objects.filter(
        status=Status.FINISHED, settled=False, event_type__model="tournament"
    ).order_by("pk")
    for game_id in list(finished.values_list("pk", flat=True)):
        running.tournament_game_finished(game_id=game_id, now=now)
        Game.objects.filter(pk=game_id).update(settled=True)
    return running.tournaments_due_process(now=now)
