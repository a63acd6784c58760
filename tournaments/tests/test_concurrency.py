"""The last seat cannot be taken twice (RULES 4.2), on real PostgreSQL with threads.

The step between counting the seats and inserting the registration is slowed down so that,
without the tournament row lock, both joins would count 3 of 4 and both get in (this test fails
if the row lock is removed from services._locked).
"""

from __future__ import annotations

import time

import pytest
from django.db import connection

from accounts.tests.factories import UserFactory
from events import services as event_services
from tests.concurrency import run_at_once
from tournaments import services
from tournaments.models import Registration
from tournaments.tests.factories import RegistrationFactory, TournamentFactory

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks need PostgreSQL"),
]


def test_two_players_race_for_the_last_seat(monkeypatch):
    tournament = TournamentFactory(seats=4)
    for _ in range(3):
        RegistrationFactory(tournament=tournament)
    racers = [UserFactory(), UserFactory()]

    real_create = Registration.objects.create

    def slow_create(**kwargs):
        time.sleep(0.3)
        return real_create(**kwargs)

    monkeypatch.setattr(Registration.objects, "create", slow_create)

    def join(player):
        def job() -> str:
            try:
                services.registration_join(tournament_id=tournament.pk, player=player)
                return "in"
            except services.TournamentError as error:
                return error.code

        return job

    outcomes = run_at_once(*(join(p) for p in racers))
    assert sorted(outcomes) == ["full", "in"]
    assert Registration.objects.filter(tournament=tournament).count() == 4


def test_two_forms_at_once_open_one_tournament(monkeypatch):
    """RULES 1: the opener's row lock serializes the one-live-event check."""
    from tournaments.tests.test_services import opts

    opener = UserFactory()
    real = event_services.open_live_event

    def slow(user_id):
        found = real(user_id)
        time.sleep(0.3)
        return found

    monkeypatch.setattr(event_services, "open_live_event", slow)

    def open_one() -> str:
        try:
            services.tournament_create(opener=opener, data=opts())
            return "opened"
        except services.TournamentError as error:
            return error.code

    outcomes = run_at_once(open_one, open_one)
    assert sorted(outcomes) == ["live_event", "opened"]
