"""One mailbox cannot be mail-bombed from the site (RULES 10.1-10.3), on real PostgreSQL, Redis
and the suite's SMTP server: sign-ups and resets with every spelling of one mailbox, "send
again" presses, accounts racing to verify one address. Each test once showed the flood: 6
sign-ups and 3 resets gave 18 reset mails to one mailbox, and `ſissa@…` spellings of `sissa@…`
each had a fresh reset counter."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import emails, services
from accounts.models import User
from accounts.tests.factories import PASSWORD, UserFactory
from mail.models import Mail, Reason
from tests.concurrency import Raised, run_at_once

pytestmark = pytest.mark.usefixtures("fresh_counters")
SIGNUP = reverse("accounts:signup")
RESET = reverse("accounts:password_reset")
ACCOUNT = reverse("accounts:account")
# One mailbox, spelt as the lookup folds it: case, the long s (NFKC: s), a full-width domain
# (NFKC: ascii), a subaddress with nothing after the "+".
SPELLINGS = [
    "sissa@example.org",
    "SISSA@example.org",
    "Sissa@Example.org",
    "ſissa@example.org",
    "ſiſſa@example.org",
    "sissa@ｅｘａｍｐｌｅ.org",
    "sissa+@example.org",
    "sissa+club@example.org",
]


def to_the_mailbox() -> list[Mail]:
    return list(Mail.objects.filter(to__in=SPELLINGS))


@pytest.mark.django_db
def test_sign_ups_and_resets_with_one_mailbox_mail_it_at_most_the_daily_bound(
    settings, mailbox, send
):
    """Six sign-ups with spellings of one address and three resets each: one verification
    mail for each sign-up and one reset mail for each account were 24 mails; now the
    verification mails stop at MAILBOX_VERIFY_DAILY_LIMIT and an address nobody verified gets
    no reset mail at all."""
    settings.MAILBOX_DAILY_LIMIT, settings.MAILBOX_VERIFY_DAILY_LIMIT = 5, 3
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SIGNUP_ADDRESS_LIMIT = 100  # sign-ups from many addresses
    for n, email in enumerate(SPELLINGS[:6]):
        response = send(
            Client(),
            SIGNUP,
            {"username": f"bomba{n}", "email": email, "password1": PASSWORD, "password2": PASSWORD},
        )
        assert response.status_code == 302
    for email in SPELLINGS[:3]:
        assert send(Client(), RESET, {"email": email}).status_code == 302
    mails = to_the_mailbox()
    assert [m.reason for m in mails] == [Reason.VERIFY] * 3
    assert len(mailbox.to("sissa@example.org")) <= 3


@pytest.mark.django_db
def test_a_verified_mailbox_gets_at_most_the_daily_bound_however_it_is_asked(
    settings, mailbox, send
):
    """Sissa verified her address. Sign-ups with its spellings mail her nothing (the link could
    only be refused); reset requests, spelt any way, reach only her account, and all her
    account mails of the day stop at MAILBOX_DAILY_LIMIT, whatever the requests."""
    settings.MAILBOX_DAILY_LIMIT, settings.PASSWORD_RESET_EMAIL_LIMIT = 4, 100
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SIGNUP_ADDRESS_LIMIT = 100  # sign-ups from many addresses
    sissa = UserFactory(username="sissa", email="sissa@example.org", verified=True)
    for n, email in enumerate(SPELLINGS[1:7]):
        send(
            Client(),
            SIGNUP,
            {"username": f"bomba{n}", "email": email, "password1": PASSWORD, "password2": PASSWORD},
        )
    assert User.objects.filter(username__startswith="bomba").count() == 6
    for n in range(10):
        answer = send(Client(), RESET, {"email": SPELLINGS[n % len(SPELLINGS)]})
        assert answer.status_code == 302  # the same answer, mailed or not
    mails = to_the_mailbox()
    assert len(mails) == 4
    assert {m.reason for m in mails} == {Reason.RESET}
    assert {m.user_id for m in mails} == {sissa.pk}
    assert {m.to for m in mails} == {"sissa@example.org"}  # her own address, not the spelling
    assert len(mailbox.wait_for("sissa@example.org", 4)) == 4


@pytest.mark.django_db
def test_every_spelling_of_a_mailbox_shares_its_reset_counter(settings, mailbox, send):
    """8 requests with 8 spellings: 8 mails when the counter was keyed on lower(); now the
    mailbox's PASSWORD_RESET_EMAIL_LIMIT."""
    settings.PASSWORD_RESET_EMAIL_LIMIT, settings.MAILBOX_DAILY_LIMIT = 3, 100
    UserFactory(email="sissa@example.org", verified=True)
    for email in SPELLINGS:
        assert send(Client(), RESET, {"email": email}).status_code == 302
    assert len(to_the_mailbox()) == 3


@pytest.mark.django_db
def test_an_address_not_verified_gets_no_reset_mail(client, mailbox, send):
    UserFactory(email="nuovo@example.org")
    response = send(client, RESET, {"email": "nuovo@example.org"})
    assert response.url == reverse("accounts:password_reset_done")  # the same answer
    assert not Mail.objects.filter(reason=Reason.RESET).exists()


@pytest.mark.django_db
def test_send_again_presses_stop_at_the_verification_bound(client, settings, mailbox, send):
    """ "Manda di nuovo il link" pressed again and again, in new slots of VERIFY_SLOT_SECONDS
    (each a fresh outbox key): the mailbox's verification count is the bound."""
    settings.MAILBOX_VERIFY_DAILY_LIMIT = 2
    user = UserFactory(email="lento@example.org")
    client.force_login(user)
    later = timezone.now()
    for n in range(6):
        with transaction.atomic():
            emails.verify_mail_queue(user, now=later + timedelta(minutes=6 * n))
    send(client, reverse("accounts:account_email"), {"resend": "1"})
    assert Mail.objects.filter(to="lento@example.org").count() == 2


@pytest.mark.django_db(transaction=True)
def test_twenty_account_mails_at_once_to_one_mailbox_queue_exactly_the_bound(settings):
    """Concurrent requests, each queueing a verification mail for its own account with a
    spelling of one mailbox: the count is exact (the conditional UPDATE under the row's lock);
    without it every one of them queued its mail."""
    settings.MAILBOX_VERIFY_DAILY_LIMIT, settings.MAILBOX_DAILY_LIMIT = 3, 5
    users = [
        UserFactory(email=SPELLINGS[n % len(SPELLINGS)], username=f"corsa{n}") for n in range(20)
    ]

    def verify(user):
        def job():
            with transaction.atomic():
                return emails.verify_mail_queue(User.objects.get(pk=user.pk))

        return job

    results = run_at_once(*(verify(u) for u in users))
    assert sorted(results) == [False] * 17 + [True] * 3
    assert len(to_the_mailbox()) == 3


@pytest.mark.django_db
def test_verifying_a_mailbox_another_account_verified_is_refused(client):
    UserFactory(username="sissa", email="sissa@example.org", verified=True)
    other = UserFactory(username="altra", email="ſissa@example.org")
    response = client.get(reverse("accounts:email_verify", args=[emails.verify_token(other)]))
    assert response.status_code == 409
    assert "già confermato da un altro account" in response.content.decode()
    other.refresh_from_db()
    assert other.email_verified_at is None


@pytest.mark.django_db(transaction=True)
def test_two_accounts_verifying_one_mailbox_at_once_leave_one_verified():
    a = UserFactory(username="prima", email="sissa@example.org")
    b = UserFactory(username="seconda", email="SISSA@example.org")
    results = run_at_once(
        *(lambda u=u: services.email_verify(token=emails.verify_token(u)) for u in (a, b)),
        errors=True,
    )
    refused = [r for r in results if isinstance(r, Raised)]
    assert len(refused) == 1 and isinstance(refused[0].error, emails.MailboxTaken)
    assert User.objects.filter(email_verified_at__isnull=False).count() == 1


@pytest.mark.django_db
def test_changing_to_a_mailbox_another_account_verified_is_refused_by_the_form(client):
    UserFactory(email="sissa@example.org", verified=True)
    user = UserFactory(email="mia@example.org", verified=True)
    client.force_login(user)
    response = client.post(
        reverse("accounts:account_email"), {"email": "Sissa+x@example.org", "password": PASSWORD}
    )
    assert response.status_code == 400
    assert "già confermato da un altro account" in response.content.decode()
    user.refresh_from_db()
    assert user.email == "mia@example.org" and user.email_verified_at is not None


@pytest.mark.django_db
def test_deleting_the_account_gives_its_mailbox_no_fresh_day(settings, mailbox, send):
    """The count is the mailbox's, not the account's mails: they go with the account, the
    count stays."""
    settings.MAILBOX_VERIFY_DAILY_LIMIT = 1
    first = UserFactory(email="sissa@example.org")
    with transaction.atomic():
        assert emails.verify_mail_queue(first)
    Mail.objects.filter(user=first).delete()
    first.delete()
    second = UserFactory(email="sissa@example.org")
    with transaction.atomic():
        assert not emails.verify_mail_queue(second)


@pytest.mark.django_db
def test_the_sign_up_form_and_the_account_page_say_a_reset_needs_a_verified_address(client):
    page = client.get(SIGNUP).content.decode()
    assert re.search(r"password si recupera solo con un indirizzo confermato", page)
    client.force_login(UserFactory(email="nuovo@example.org"))
    page = client.get(ACCOUNT).content.decode()
    assert "senza un indirizzo confermato non potrai recuperare la password" in page


@pytest.mark.django_db
def test_the_admin_refuses_a_second_account_verified_on_one_mailbox(client):
    """Staff marking an address verified that another account verified: the form says so (it
    was the constraint's IntegrityError, a 500)."""
    UserFactory(email="sissa@example.org", verified=True)
    other = UserFactory(email="SISSA@example.org")
    staff = UserFactory(is_staff=True, is_superuser=True)
    client.force_login(staff)
    url = reverse("admin:accounts_user_change", args=[other.pk])
    form = client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and not isinstance(v, list)}
    data.update(
        {
            "email_verified_at_0": "2026-12-01",
            "email_verified_at_1": "10:00:00",
            "date_joined_0": "2026-11-01",
            "date_joined_1": "10:00:00",
            "last_login_0": "",
            "last_login_1": "",
        }
    )
    response = client.post(url, data)
    assert response.status_code == 200
    assert "già confermato da un altro account" in response.content.decode()
    other.refresh_from_db()
    assert other.email_verified_at is None
