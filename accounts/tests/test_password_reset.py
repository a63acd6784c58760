"""'Password dimenticata?': Django's reset views, our outbox, our counters. The mails are read
back from the suite's SMTP server (tests/mailbox.py)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.models import User
from accounts.tests.factories import PASSWORD, UserFactory
from accounts.tests.test_login_throttle import redis_down  # noqa: F401 - a fixture
from mail.models import Mail

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_counters")]
RESET = reverse("accounts:password_reset")
NEW = "torre-e-alfiere-77"


def link_in(received) -> str:
    return re.search(r"http://\S+/accounts/password/reset/\S+/", received.text).group(0)


def test_the_log_in_page_offers_it(client):
    page = client.get(reverse("accounts:login")).content.decode()
    assert "Password dimenticata?" in page and RESET in page


def test_mail_link_new_password_logged_in_then_the_link_is_dead(client, mailbox, send):
    user = UserFactory(email="lucia@example.org", verified=True)
    response = send(client, RESET, {"email": "Lucia@Example.org"})
    assert response.status_code == 302
    assert response.url == reverse("accounts:password_reset_done")
    [received] = mailbox.wait_for("lucia@example.org")
    assert received.subject == "Reimposta la tua password"
    link = link_in(received)
    assert link in received.html
    path = link.split("://", 1)[1].split("/", 1)[1]
    form = client.get("/" + path, follow=True)
    assert form.status_code == 200 and "Scegli una nuova password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": NEW, "new_password2": NEW}, follow=True
    )
    assert done.status_code == 200
    assert done.context["user"].pk == user.pk  # signed in
    user.refresh_from_db()
    assert user.check_password(NEW)
    assert user.email_verified_at is not None  # the link proved the address
    client.logout()
    again = client.get("/" + path, follow=True).content.decode()
    assert 'data-testid="reset-link-invalid"' in again


def test_an_expired_link_says_so(client, mailbox, send, settings):
    UserFactory(email="old@example.org", verified=True)
    send(client, RESET, {"email": "old@example.org"})
    link = link_in(mailbox.wait_for("old@example.org")[0])
    settings.PASSWORD_RESET_TIMEOUT = -1  # every link is past its time
    page = client.get("/" + link.split("://", 1)[1].split("/", 1)[1], follow=True)
    assert 'data-testid="reset-link-invalid"' in page.content.decode()


def test_the_same_answer_for_an_unknown_address(client, mailbox, send):
    response = send(client, RESET, {"email": "nessuno@example.org"})
    assert response.url == reverse("accounts:password_reset_done")
    assert not Mail.objects.exists()


def test_a_deleted_or_deactivated_account_gets_nothing(client, mailbox, send):
    UserFactory(email="gone@example.org", is_active=False)
    send(client, RESET, {"email": "gone@example.org"})
    assert not Mail.objects.exists()


def test_a_malformed_address_is_an_error_on_the_form(client):
    response = client.post(RESET, {"email": "non-un-indirizzo"})
    assert response.status_code == 200
    assert "indirizzo email valido" in response.content.decode()
    assert not Mail.objects.exists()


def test_throttled_per_email_silently(client, mailbox, send, settings):
    settings.PASSWORD_RESET_EMAIL_LIMIT = 2
    UserFactory(email="flood@example.org", verified=True)
    for _ in range(4):
        response = send(client, RESET, {"email": "flood@example.org"})
        assert response.url == reverse("accounts:password_reset_done")  # the same answer
    assert Mail.objects.count() == 2
    assert len(mailbox.wait_for("flood@example.org", 2)) == 2


def test_throttled_per_client_address_with_a_message(client, settings):
    settings.PASSWORD_RESET_ADDRESS_LIMIT = 2
    for n in range(2):
        assert client.post(RESET, {"email": f"a{n}@example.org"}).status_code == 302
    refused = client.post(RESET, {"email": "a9@example.org"})
    assert refused.status_code == 429
    assert "Troppe richieste da questa rete" in refused.content.decode()


def test_with_redis_down_it_says_so_and_sends_nothing(client, redis_down):  # noqa: F811
    UserFactory(email="r@example.org", verified=True)
    response = client.post(RESET, {"email": "r@example.org"})
    assert response.status_code == 503
    assert "non disponibile" in response.content.decode()
    assert not Mail.objects.exists()


def test_staff_send_a_reset_mail_from_the_admin(client, mailbox, send):
    staff = UserFactory(is_staff=True, is_superuser=True)
    player = UserFactory(email="p@example.org", verified=True)
    no_address = UserFactory(email="")
    client.force_login(staff)
    response = send(
        client,
        reverse("admin:accounts_user_changelist"),
        {"action": "send_password_reset", "_selected_action": [player.pk, no_address.pk]},
    )
    assert response.status_code == 302
    [received] = mailbox.wait_for("p@example.org")
    assert "/accounts/password/reset/" in received.text
    assert Mail.objects.count() == 1
    assert User.objects.get(pk=player.pk).check_password(PASSWORD)  # nothing changed yet


def test_with_smtp_down_the_page_answers_and_the_mail_goes_later_once(client, mailbox, send):
    """The SMTP server away: the request does not wait for it (the mail is the worker's), the
    page says the same, and beat's sender delivers the mail once the server is back."""
    from datetime import timedelta

    from django.utils import timezone

    from mail import sending, tasks

    UserFactory(email="patient@example.org", verified=True)
    mailbox.stop()
    try:
        response = send(client, RESET, {"email": "patient@example.org"})
        assert response.status_code == 302
        mail = Mail.objects.get()
        assert (mail.status, mail.attempts) == ("pending", 1)
    finally:
        mailbox.start()
    assert sending.send_due(now=timezone.now()) == 0  # not due again yet
    assert sending.send_due(now=timezone.now() + timedelta(minutes=1)) == 1
    tasks.send()  # beat's run finds nothing more
    assert len(mailbox.wait_for("patient@example.org")) == 1


def test_staff_see_the_address_check_and_the_last_failure(client):
    from django.utils import timezone

    staff = UserFactory(is_staff=True, is_superuser=True)
    player = UserFactory(email="x@example.org", verified=True)
    Mail.objects.create(
        user=player,
        reason="reset",
        key="k",
        to=player.email,
        template="t",
        language="it",
        next_try_at=timezone.now(),
        status="failed",
        failed_at=timezone.now(),
        last_error="SMTPRecipientsRefused: 550 No such mailbox",
    )
    client.force_login(staff)
    changelist = client.get(reverse("admin:accounts_user_changelist")).content.decode()
    assert "e-mail verificata" in changelist.lower()
    page = client.get(reverse("admin:accounts_user_change", args=[player.pk])).content.decode()
    assert "550 No such mailbox" in page
    assert client.get(reverse("admin:mail_mail_changelist")).status_code == 200
