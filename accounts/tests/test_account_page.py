"""The player's account page: the address (checked by a link), language, reminders, the data
download and the deletion of the account."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts import emails
from accounts.models import User
from accounts.tests.factories import PASSWORD, UserFactory
from games.models import Game
from games.tests.factories import open_game
from mail.models import Mail
from tournaments.tests.factories import RegistrationFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_counters")]
ACCOUNT = reverse("accounts:account")


def verify_link(received) -> str:
    url = re.search(r"http://\S+/accounts/email/verify/\S+/", received.text).group(0)
    return "/" + url.split("://", 1)[1].split("/", 1)[1]


def test_sign_up_with_an_address_sends_its_check(client, mailbox, send):
    page = client.get(reverse("accounts:signup")).content.decode()
    assert "per i promemoria" in page and "recuperare la password" in page
    send(
        client,
        reverse("accounts:signup"),
        {
            "username": "Mario",
            "email": "mario@example.org",
            "password1": "scacco-matto-42",
            "password2": "scacco-matto-42",
        },
    )
    user = User.objects.get(username="Mario")
    assert user.email_verified_at is None
    [received] = mailbox.wait_for("mario@example.org")
    assert received.subject == "Conferma il tuo indirizzo e-mail"
    page = client.get(verify_link(received))
    assert 'data-testid="email-verified"' in page.content.decode()
    user.refresh_from_db()
    assert user.email_verified
    assert "confermato" in client.get(ACCOUNT).content.decode()


def test_changing_the_address_needs_the_password_and_a_new_check(client, mailbox, send):
    user = UserFactory(email="old@example.org", email_verified_at=timezone.now())
    old_link = emails.verify_token(user)
    client.force_login(user)
    wrong = send(
        client,
        reverse("accounts:account_email"),
        {"email": "new@example.org", "password": "sbagliata"},
    )
    assert wrong.status_code == 400 and "Password errata." in wrong.content.decode()
    user.refresh_from_db()
    assert user.email == "old@example.org" and user.email_verified  # nothing changed
    response = send(
        client,
        reverse("accounts:account_email"),
        {"email": "new@example.org", "password": PASSWORD},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.email == "new@example.org" and not user.email_verified
    # A link made for the old address proves nothing about the new one.
    stale = client.get(reverse("accounts:email_verify", args=[old_link]))
    assert stale.status_code == 400
    received = mailbox.wait_for("new@example.org")[0]
    assert client.get(verify_link(received)).status_code == 200
    user.refresh_from_db()
    assert user.email_verified


def test_send_the_check_again_once_per_slot(client, mailbox, send):
    user = UserFactory(email="slow@example.org")
    client.force_login(user)
    for _ in range(3):
        send(client, reverse("accounts:account_email"), {"resend": "1"})
    assert Mail.objects.filter(user=user).count() == 1
    assert len(mailbox.wait_for("slow@example.org")) == 1


def test_a_forged_or_expired_check_link(client, settings):
    user = UserFactory()
    assert client.get(reverse("accounts:email_verify", args=["nonsense"])).status_code == 400
    token = emails.verify_token(user)
    settings.EMAIL_VERIFY_TIMEOUT = -1
    page = client.get(reverse("accounts:email_verify", args=[token]))
    assert page.status_code == 400 and "scaduto" in page.content.decode()


def test_language_is_kept_on_the_account_and_in_the_cookie(client):
    user = UserFactory()
    client.force_login(user)
    response = client.post(reverse("accounts:account_language"), {"language": "en"})
    assert response.cookies["django_language"].value == "en"
    user.refresh_from_db()
    assert user.language == "en"
    assert client.post(reverse("accounts:account_language"), {"language": "xx"}).status_code == 400
    # The site's switch keeps it too.
    client.post(reverse("set_language"), {"language": "it", "next": "/"})
    user.refresh_from_db()
    assert user.language == "it"


def test_the_language_follows_the_player_at_log_in(client):
    UserFactory(username="Greta", language="en")
    response = client.post(reverse("accounts:login"), {"username": "Greta", "password": PASSWORD})
    assert response.cookies["django_language"].value == "en"


def test_reminder_choices_are_saved(client):
    user = UserFactory()
    client.force_login(user)
    response = client.post(
        reverse("accounts:account_reminders"),
        {"remind_minutes": "10", "remind_on_site": "on"},
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert (
        user.remind_by_email,
        user.remind_minutes,
        user.remind_on_site,
        user.remind_in_browser,
    ) == (False, 10, True, False)
    bad = client.post(reverse("accounts:account_reminders"), {"remind_minutes": "7"})
    assert bad.status_code == 400
    user.refresh_from_db()
    assert user.remind_minutes == 10


def test_one_click_unsubscribe(client):
    user = UserFactory()
    url = emails.unsubscribe_url(user)
    path = "/" + url.split("://", 1)[1].split("/", 1)[1]
    assert client.get(path).status_code == 200
    user.refresh_from_db()
    assert user.remind_by_email  # a GET (a mail scanner) changes nothing
    client.post(path, {"List-Unsubscribe": "One-Click"})
    user.refresh_from_db()
    assert not user.remind_by_email
    assert client.post("/accounts/unsubscribe/forged/").status_code == 400


def test_deleting_is_refused_while_in_a_live_event(client):
    registration = RegistrationFactory()
    user = registration.player
    client.force_login(user)
    page = client.get(ACCOUNT).content.decode()
    assert 'data-testid="delete-blocked"' in page
    response = client.post(
        reverse("accounts:account_delete"), {"password": PASSWORD, "confirm": "on"}
    )
    assert response.status_code == 409
    assert registration.tournament.name in response.content.decode()
    user.refresh_from_db()
    assert not user.is_deleted and user.is_active


def test_deleting_keeps_games_and_erases_the_person(client):
    user = UserFactory(username="Bruno", email="b@example.org", email_verified_at=timezone.now())
    opponent = UserFactory()
    game = open_game(white=user, black=opponent)
    Game.objects.filter(pk=game.pk).update(status="finished", result="1-0")
    client.force_login(user)
    wrong = client.post(reverse("accounts:account_delete"), {"password": "x", "confirm": "on"})
    assert wrong.status_code == 400
    response = client.post(
        reverse("accounts:account_delete"), {"password": PASSWORD, "confirm": "on"}
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.username == f"giocatore cancellato #{user.pk}"
    assert (user.email, user.is_active, user.has_usable_password()) == ("", False, False)
    game.refresh_from_db()
    assert (game.white_id, game.result) == (user.pk, "1-0")
    assert client.get(ACCOUNT).status_code == 302  # logged out
    assert not client.login(username="Bruno", password=PASSWORD)
    assert not client.login(username=user.username, password=PASSWORD)
    assert "Bruno" not in client.get(reverse("games:game", args=[game.pk])).content.decode()


def test_the_failed_mail_is_shown(client):
    user = UserFactory()
    Mail.objects.create(
        user=user,
        reason="verify",
        key="k",
        to=user.email,
        template="t",
        language="it",
        next_try_at=timezone.now(),
        status="failed",
        failed_at=timezone.now() - timedelta(hours=1),
        last_error="SMTPRecipientsRefused",
    )
    client.force_login(user)
    assert 'data-testid="mail-failed"' in client.get(ACCOUNT).content.decode()


def test_deleting_is_refused_in_a_live_game_or_with_a_live_event_opened(client):
    from django.core.exceptions import ValidationError

    from accounts.services import user_delete
    from tournaments.tests.factories import TournamentFactory

    player = UserFactory()
    open_game(white=player)
    with pytest.raises(ValidationError, match="Stai giocando una partita"):
        user_delete(user_id=player.pk)
    organizer = UserFactory()
    TournamentFactory(opened_by=organizer, name="Il mio torneo")
    with pytest.raises(ValidationError, match="Il mio torneo"):
        user_delete(user_id=organizer.pk)
    for user in (player, organizer):
        user.refresh_from_db()
        assert not user.is_deleted


def test_deleting_withdraws_open_challenges_and_keeps_the_standings(client):
    from accounts.services import user_delete
    from games.models import Challenge, ChallengeStatus
    from games.services.challenges import challenge_create
    from tournaments.models import Participant
    from tournaments.tests.factories import TournamentFactory

    leaving, staying = UserFactory(username="Ugo"), UserFactory()
    challenge = challenge_create(
        challenger_id=leaving.pk,
        variant_code="chess",
        base_seconds=60,
        increment_seconds=0,
        color="random",
        rated=False,
    )
    finished = TournamentFactory(
        status="finished",
        format="swiss",
        total_rounds=5,
        current_round=5,
        started_at=timezone.now(),
        finished_at=timezone.now(),
    )
    Participant.objects.create(
        tournament=finished, player=leaving, number=1, start_rating=1500, rank=1, points=6
    )
    Participant.objects.create(
        tournament=finished, player=staying, number=2, start_rating=1500, rank=2, points=2
    )
    user_delete(user_id=leaving.pk)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.CANCELLED
    page = client.get(finished.get_absolute_url()).content.decode()
    assert "Ugo" not in page and f"giocatore cancellato #{leaving.pk}" in page
    assert list(Participant.objects.filter(tournament=finished).values_list("rank", "points")) == [
        (1, 6),
        (2, 2),
    ]
    assert not Challenge.objects.filter(status=ChallengeStatus.OPEN).exists()


def test_the_account_pages_fields_have_ids_of_their_own(client):
    """The address form and the deletion form both ask the password: with one id for both, the
    deletion's label named the address form's field (a screen reader read the wrong one)."""
    player = UserFactory()
    client.force_login(player)
    page = client.get(reverse("accounts:account")).content.decode()
    ids = re.findall(r'\sid="([^"]+)"', page)
    assert "id_delete_password" in ids and "id_password" in ids
    assert sorted({i for i in ids if ids.count(i) > 1}) == []
    assert 'for="id_delete_password"' in page
