"""Names and descriptions: control and invisible characters refused at input, with a message;
sensible lengths; ordinary text of any script kept."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from events.text import plain_description, plain_name


@pytest.mark.parametrize(
    "text",
    [
        "Cup\nXXR 99\n001 ...",
        "Cup\r",
        "Nul\x00byte",
        "Bell\x07",
        "Right\u202eto left",
        "Isolate\u2066x\u2069",
        "Line\u2028separator",
        "Para\u2029graph",
        "Zero\u200bwidth",
    ],
)
def test_control_and_invisible_characters_are_refused_in_names(text):
    with pytest.raises(ValidationError) as caught:
        plain_name(text)
    assert "U+" in str(caught.value)


@pytest.mark.parametrize("text", ["Torneo d'autunno", "Città di Ñandú", "Шахматы", "東京 ♞ 2026"])
def test_ordinary_text_is_kept(text):
    plain_name(text)
    plain_description(text + "\n\tseconda riga")


def test_descriptions_keep_their_lines_but_not_overrides():
    plain_description("Prima riga\nseconda riga\r\n\tterza")
    with pytest.raises(ValidationError):
        plain_description("Regole\u202e al contrario")


@pytest.mark.django_db
def test_the_tournament_form_says_so_and_saves_nothing(client):
    from accounts.tests.factories import UserFactory
    from tournaments.models import Tournament
    from tournaments.tests.test_views import form_data as valid_data

    client.force_login(UserFactory())
    for field, value in (
        ("name", "Cup\u202eXXR"),
        ("description", "x" * 2001),
        ("description", "Bad\x00"),
    ):
        response = client.post("/tournaments/new/", {**valid_data(), field: value})
        assert response.status_code == 200 and field in response.context["form"].errors
    assert not Tournament.objects.exists()


@pytest.mark.django_db
def test_wrong_private_passwords_are_throttled_per_player():
    """60 tries in 22 s were possible; now five per player and event, then refused without
    checking, the right password too; another player is not affected."""
    from django.conf import settings
    from django.contrib.auth.hashers import make_password
    from django.core.cache import cache

    from accounts.tests.factories import UserFactory
    from tournaments import services
    from tournaments.tests.factories import TournamentFactory

    cache.clear()
    tournament = TournamentFactory(password_hash=make_password("giusta"))
    guesser, friend = UserFactory(), UserFactory()
    for _ in range(settings.PRIVATE_PASSWORD_TRIES):
        with pytest.raises(services.TournamentError) as caught:
            services.registration_join(tournament_id=tournament.pk, player=guesser, password="no")
        assert caught.value.code == "private"
    with pytest.raises(services.TournamentError) as caught:
        services.registration_join(tournament_id=tournament.pk, player=guesser, password="giusta")
    assert caught.value.code == "throttled"
    services.registration_join(tournament_id=tournament.pk, player=friend, password="giusta")
    assert tournament.registrations.count() == 1
