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
