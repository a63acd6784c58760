"""The last seat cannot be taken twice (issue 7), on real PostgreSQL with threads.

The step between counting the seats and inserting the registration is slowed down so that,
without the tournament row lock, both joins would count 3 of 4 and both get in (this test fails
if `select_for_update` is removed from services._locked).
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from accounts.tests.factories import UserFactory
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
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def join(player) -> None:
        try:
            barrier.wait(timeout=10)
            services.registration_join(tournament_id=tournament.pk, player=player)
            outcomes.append("in")
        except services.TournamentError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=join, args=(p,)) for p in racers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["full", "in"]
    assert Registration.objects.filter(tournament=tournament).count() == 4


def test_two_forms_at_once_open_one_tournament(monkeypatch):
    """RULES 1: the opener's row lock serializes the one-live-event check."""
    from tournaments.tests.test_services import opts

    opener = UserFactory()
    real = services.open_live_event

    def slow(user_id):
        found = real(user_id)
        time.sleep(0.3)
        return found

    monkeypatch.setattr(services, "open_live_event", slow)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def open_one() -> None:
        try:
            barrier.wait(timeout=10)
            services.tournament_create(opener=opener, data=opts())
            outcomes.append("opened")
        except services.TournamentError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=open_one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["live_event", "opened"]
