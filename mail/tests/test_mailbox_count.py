"""The outbox's rules for every caller (RULES 10.1-10.3): one key per mailbox, nothing but its
verification to an address not verified, account mails counted per mailbox and day."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.apps import apps
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from accounts.tests.factories import UserFactory
from mail.mailbox import mailbox_digest, mailbox_key
from mail.models import Mail, MailboxDay, Reason
from mail.services import mail_queue, mailbox_days_prune


@pytest.mark.parametrize(
    "spelling",
    [
        "sissa@example.org",
        " SISSA@EXAMPLE.ORG ",
        "ſissa@example.org",
        "sissa@ｅｘａｍｐｌｅ.org",
        "ｓｉｓｓａ@example.org",
        "sissa+@example.org",
        "Sissa+Circolo@example.org",
    ],
)
def test_every_spelling_of_a_mailbox_has_its_key(spelling):
    assert mailbox_key(spelling) == "sissa@example.org"


def test_a_key_however_long_is_stored_as_a_digest_of_fixed_length():
    """NFKC may make one character eighteen: the stored key is a digest, never too long."""
    address = "a@" + "\ufdfa" * 200 + ".org"
    assert len(mailbox_key(address)) > 254
    assert len(mailbox_digest(address)) == 32 and mailbox_digest("") == ""


def test_other_mailboxes_have_other_keys():
    keys = {mailbox_key(a) for a in ["sissa@example.org", "sisa@example.org", "sissa@example.com"]}
    assert len(keys) == 3 and mailbox_key("") == ""


def queue(user, reason=Reason.RESET, key="k1"):
    context = {"username": user.username, "reset_url": "http://x/r/", "valid_for": 3600}
    if reason == Reason.REMINDER:
        context["unsubscribe_url"] = "http://x/u/"
    with transaction.atomic():
        return mail_queue(
            user=user,
            reason=reason,
            key=key,
            template="accounts/mail/reset",
            language="it",
            context=context,
        )


@pytest.mark.django_db
def test_an_address_not_verified_gets_only_its_verification():
    user = UserFactory(email="nuovo@example.org")
    assert queue(user, Reason.RESET) is None
    assert queue(user, Reason.REMINDER) is None
    assert queue(user, Reason.VERIFY) is not None
    assert list(Mail.objects.values_list("reason", flat=True)) == [Reason.VERIFY]


@pytest.mark.django_db
def test_account_mails_to_one_mailbox_stop_at_the_daily_bound_whatever_the_account(settings):
    settings.MAILBOX_DAILY_LIMIT = 3
    owner = UserFactory(email="sissa@example.org", verified=True)
    others = [UserFactory(email="SISSA+x@example.org") for _ in range(3)]
    assert [queue(owner, key=f"r{n}") is not None for n in range(2)] == [True, True]
    assert [queue(u, Reason.VERIFY) is not None for u in others] == [True, False, False]
    assert queue(owner, key="r9") is None
    # Reminders are not account mails: the player chose them, and they can unsubscribe.
    assert queue(owner, Reason.REMINDER) is not None


@pytest.mark.django_db
def test_a_rolled_back_request_counts_nothing(settings):
    settings.MAILBOX_DAILY_LIMIT = 1
    user = UserFactory(email="sissa@example.org", verified=True)
    with pytest.raises(RuntimeError), transaction.atomic():
        queue(user, key="lost")
        raise RuntimeError("the request failed after queueing")
    assert queue(user, key="kept") is not None


@pytest.mark.django_db
def test_a_mail_queued_twice_is_counted_once(settings):
    settings.MAILBOX_DAILY_LIMIT = 2
    user = UserFactory(email="sissa@example.org", verified=True)
    assert queue(user, key="same") is not None
    assert queue(user, key="same") is None
    assert queue(user, key="other") is not None
    assert MailboxDay.objects.get().mails == 2


@pytest.mark.django_db
def test_a_new_day_is_a_new_count_and_old_days_are_forgotten(settings):
    settings.MAILBOX_DAILY_LIMIT = 1
    user = UserFactory(email="sissa@example.org", verified=True)
    assert queue(user, key="a") is not None
    MailboxDay.objects.update(day=timezone.localdate() - timedelta(days=1))
    assert queue(user, key="b") is not None
    assert mailbox_days_prune(today=timezone.localdate() + timedelta(days=1)) == 1
    assert MailboxDay.objects.count() == 1


@pytest.mark.django_db
def test_the_migration_keeps_a_shared_verified_mailbox_for_its_first_verifier():
    """Accounts from before the rule sharing a verified mailbox: the first to verify keeps it."""
    import importlib

    fill = importlib.import_module(
        "accounts.migrations.0004_signup_links_and_mailbox"
    ).fill_mailbox_keys
    now = timezone.now()
    first = UserFactory(email="a@example.org", email_verified_at=now - timedelta(days=2))
    later = UserFactory(email="b@example.org", email_verified_at=now - timedelta(days=1))
    User.objects.filter(pk=later.pk).update(email="SISSA@example.org")
    User.objects.filter(pk=first.pk).update(email="sissa@example.org")
    fill(apps, None)
    first.refresh_from_db()
    later.refresh_from_db()
    assert first.email_key == later.email_key == mailbox_digest("sissa@example.org")
    assert first.email_verified_at is not None and later.email_verified_at is None
