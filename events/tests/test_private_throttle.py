"""Private events' passwords against guessing (on real Redis and PostgreSQL): tries counted per
player and event, per address, and per event whoever tries; the organizer told."""

from __future__ import annotations

import contextlib
import socket
from datetime import timedelta

import pytest
from django.contrib.auth.hashers import make_password
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from accounts.tests.factories import UserFactory
from arena.tests.factories import ArenaFactory
from tournaments import services
from tournaments.tests.factories import TournamentFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.PRIVATE_PASSWORD_TRIES = 5
    settings.PRIVATE_EVENT_TRIES = 20
    settings.PRIVATE_ADDRESS_TRIES = 20
    cache.clear()
    yield
    cache.clear()


@contextlib.contextmanager
def _redis_down():
    """The cache pointed at a port where nothing listens, as when Redis is stopped (as
    accounts.tests.test_login_throttle's `redis_down`, but only for the block: the fixtures
    clear the real cache after it)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    backend = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": f"redis://127.0.0.1:{port}/0",
    }
    with override_settings(CACHES={"default": backend}):
        yield


def guess(tournament, player, password: str, address: str) -> str:
    try:
        services.registration_join(
            tournament_id=tournament.pk, player=player, password=password, address=address
        )
    except services.TournamentError as error:
        return error.code
    return "in"


def test_fresh_accounts_from_many_addresses_stop_at_the_events_own_limit():
    """The attack: new accounts, each under its own five tries (and from addresses of their
    own). Counted per player only, 4 accounts × 5 found a 4-digit password on the 23rd guess;
    now the event refuses everyone's password after 20 wrong ones."""
    tournament = TournamentFactory(password_hash=make_password("0023"))
    codes = [guess(tournament, UserFactory(), f"{n:04d}", f"203.0.113.{n}") for n in range(25)]
    assert codes[:20] == ["private"] * 20
    assert codes[20:] == ["throttled"] * 5  # the 21st on, even the right one (23) refused
    assert not tournament.registrations.exists()
    # The invite link still lets a friend in.
    friend = UserFactory()
    services.registration_join(
        tournament_id=tournament.pk, player=friend, invite_token=tournament.invite_token
    )
    assert tournament.registrations.filter(player=friend).exists()


def test_one_address_stops_at_its_own_limit_whatever_the_accounts_and_events():
    first = TournamentFactory(password_hash=make_password("giusta-davvero"))
    second = TournamentFactory(password_hash=make_password("giusta-davvero"))
    codes = [
        guess(first if n % 2 else second, UserFactory(), "sbagliata", "198.51.100.7")
        for n in range(22)
    ]
    assert codes == ["private"] * 20 + ["throttled"] * 2
    # Someone else, elsewhere, types the right password.
    assert guess(first, UserFactory(), "giusta-davvero", "203.0.113.1") == "in"


def test_a_right_password_gives_its_try_back_to_the_shared_counters(settings):
    settings.PRIVATE_EVENT_TRIES = 3
    tournament = TournamentFactory(password_hash=make_password("giusta-davvero"))
    for _ in range(10):  # members typing it right, one after the other
        assert guess(tournament, UserFactory(), "giusta-davvero", "198.51.100.7") == "in"
    assert guess(tournament, UserFactory(), "no", "198.51.100.7") == "private"


@pytest.mark.parametrize("kind", ["tournament", "arena"])
def test_the_organizer_is_told_when_password_entry_was_stopped(client, settings, kind):
    settings.PRIVATE_EVENT_TRIES = 2
    if kind == "tournament":
        event = TournamentFactory(password_hash=make_password("giusta-davvero"))
        detail, join = "tournaments:detail", "tournaments:join"
    else:
        event = ArenaFactory(
            starts_at=timezone.now() + timedelta(hours=1),
            password_hash=make_password("giusta-davvero"),
        )
        detail, join = "arena:detail", "arena:enter"
    organizer = Client()
    organizer.force_login(event.opened_by)
    page = organizer.get(reverse(detail, args=[event.pk])).content.decode()
    assert 'data-testid="private-throttled"' not in page
    for n in range(3):
        guesser = Client()
        guesser.force_login(UserFactory())
        guesser.post(reverse(join, args=[event.pk]), {"password": f"prova-{n}"})
    page = organizer.get(reverse(detail, args=[event.pk])).content.decode()
    assert 'data-testid="private-throttled"' in page
    assert "nessuno può entrare con la password" in page
    # Nobody else sees it.
    someone = Client()
    someone.force_login(UserFactory())
    page = someone.get(reverse(detail, args=[event.pk])).content.decode()
    assert 'data-testid="private-throttled"' not in page


def test_four_accounts_guessing_five_times_each_and_a_fifth_are_stopped_at_the_twenty_first():
    """The attack as it was run, each account from its own address: 4 × 5 wrong guesses use up
    the event's 20; the fifth account's guesses, the right one among them, are refused."""
    tournament = TournamentFactory(password_hash=make_password("0023"))
    codes = []
    for account in range(5):
        player, address = UserFactory(), f"203.0.113.{account + 1}"
        codes += [guess(tournament, player, f"{account * 5 + n:04d}", address) for n in range(5)]
    assert codes == ["private"] * 20 + ["throttled"] * 5  # "0023" was the 24th guess
    assert not tournament.registrations.exists()


def test_a_short_password_set_before_the_minimum_still_lets_players_in():
    """No data migration: a private event keeps its four-digit password until its organizer
    changes it; only new passwords need eight letters."""
    tournament = TournamentFactory(password_hash=make_password("1234"))
    assert guess(tournament, UserFactory(), "1234", "198.51.100.7") == "in"


@pytest.mark.parametrize("kind", ["tournament", "arena"])
def test_with_redis_down_a_password_is_refused_with_a_message_and_the_invite_link_works(kind):
    """Without Redis the tries cannot be counted, so none is checked (fail closed): the player
    is told why, nothing is registered, and the invite link, which needs no counting, works."""
    if kind == "tournament":
        event = TournamentFactory(password_hash=make_password("giusta-davvero"))
        detail, join, invite = "tournaments:detail", "tournaments:join", "tournaments:invite"
        entered = event.registrations
    else:
        event = ArenaFactory(
            starts_at=timezone.now() + timedelta(hours=1),
            password_hash=make_password("giusta-davvero"),
        )
        detail, join, invite = "arena:detail", "arena:enter", "arena:invite"
        entered = event.entries
    player = Client()
    player.force_login(UserFactory())
    with _redis_down():
        response = player.post(
            reverse(join, args=[event.pk]), {"password": "giusta-davvero"}, follow=True
        )
        assert "Controllo della password non disponibile" in response.content.decode()
        assert not entered.exists()
        player.get(reverse(invite, args=[event.pk, event.invite_token]))
        player.post(reverse(join, args=[event.pk]))
        assert entered.count() == 1
        # The organizer's page shows, without the notice Redis would have kept.
        organizer = Client()
        organizer.force_login(event.opened_by)
        assert organizer.get(reverse(detail, args=[event.pk])).status_code == 200
