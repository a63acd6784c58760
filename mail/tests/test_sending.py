"""The outbox through a real SMTP server (tests/mailbox.py): sent after commit, once, in the
player's language, plain text and HTML; retried with a growing pause while the server is
away and sent once when it is back; refused addresses given up; stale mails dropped."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.tests.factories import UserFactory
from mail import sending
from mail.models import Mail, Reason, Status
from mail.services import mail_queue
from tests.concurrency import run_at_once
from tests.mailbox import REFUSED_DOMAIN

pytestmark = pytest.mark.django_db


def _reset_mail(user, key="r1"):
    return mail_queue(
        user=user,
        reason=Reason.RESET,
        key=key,
        template="accounts/mail/reset",
        language=user.language,
        context={"username": user.username, "reset_url": "http://x/reset/abc/", "valid_for": 3600},
    )


def _reminder(user, key="tournament:1", **extra):
    return mail_queue(
        user=user,
        reason=Reason.REMINDER,
        key=key,
        template="events/mail/reminder",
        language=user.language,
        context={
            "username": user.username,
            "event_name": "Open di Natale",
            "kind": "tournament",
            "starts_at": "2026-12-24T20:30:00+00:00",
            "time_zone": "Europe/Rome",
            "event_url": "http://x/tournaments/1/",
            "calendar_url": "http://x/events/tournament/1/calendar.ics",
            "unsubscribe_url": "http://x/accounts/unsubscribe/tok/",
            "account_url": "http://x/accounts/settings/",
        },
        **extra,
    )


def due_unsent(users) -> None:
    """A reset mail due now for each of `users`, written as rows: queueing would send them at
    once (the commit's task, eager here)."""
    Mail.objects.bulk_create(
        Mail(
            user=user,
            reason=Reason.RESET,
            key="k",
            to=user.email,
            template="accounts/mail/reset",
            language="it",
            context={"username": user.username, "reset_url": "u", "valid_for": 60},
            next_try_at=timezone.now(),
        )
        for user in users
    )


def test_sent_after_commit_once_in_italian_with_both_parts(
    mailbox, django_capture_on_commit_callbacks
):
    user = UserFactory(verified=True, email="mario@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        _reset_mail(user)
        assert mailbox.to("mario@example.org") == []  # nothing inside the transaction
    [received] = mailbox.wait_for("mario@example.org")
    assert received.subject == "Reimposta la tua password"
    assert "http://x/reset/abc/" in received.text
    assert "1 ora" in received.text
    assert 'href="http://x/reset/abc/"' in received.html
    assert "List-Unsubscribe" not in received.message  # an account mail
    mail = Mail.objects.get()
    assert mail.status == Status.SENT and mail.attempts == 1
    assert mail.context == {}  # the link is not kept once sent
    assert sending.send_due() == 0  # nothing twice
    assert len(mailbox.to("mario@example.org")) == 1


def test_english_for_a_player_who_chose_it(mailbox, django_capture_on_commit_callbacks):
    user = UserFactory(verified=True, email="john@example.org", language="en")
    with django_capture_on_commit_callbacks(execute=True):
        _reminder(user)
    [received] = mailbox.wait_for("john@example.org")
    assert received.subject.startswith("Open di Natale: starts")
    assert "Thursday 24 December, 21:30" in received.text  # Rome's time, in English


def test_the_same_mail_is_queued_once(mailbox, django_capture_on_commit_callbacks):
    user = UserFactory(verified=True)
    with django_capture_on_commit_callbacks(execute=True):
        assert _reminder(user) is not None
        assert _reminder(user) is None
    assert Mail.objects.count() == 1
    assert len(mailbox.wait_for(user.email)) == 1


def test_reminders_carry_one_click_unsubscribe(mailbox, django_capture_on_commit_callbacks):
    user = UserFactory(verified=True)
    with django_capture_on_commit_callbacks(execute=True):
        _reminder(user)
    [received] = mailbox.wait_for(user.email)
    assert received.message["List-Unsubscribe"] == "<http://x/accounts/unsubscribe/tok/>"
    assert received.message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert "http://x/accounts/unsubscribe/tok/" in received.text


def test_a_reminder_without_unsubscribe_link_is_refused():
    user = UserFactory(verified=True)
    with pytest.raises(ValueError, match="unsubscribe_url"):
        mail_queue(
            user=user,
            reason=Reason.REMINDER,
            key="k",
            template="events/mail/reminder",
            language="it",
            context={},
        )
    assert not Mail.objects.exists()


def test_a_rolled_back_change_sends_nothing(mailbox, django_capture_on_commit_callbacks):
    user = UserFactory(verified=True)
    with django_capture_on_commit_callbacks(execute=True):
        with pytest.raises(RuntimeError), transaction.atomic():
            _reset_mail(user)
            raise RuntimeError("the change failed")
    assert not Mail.objects.exists()
    assert sending.send_due() == 0
    assert mailbox.to(user.email) == []


def test_smtp_down_then_back_sends_once(mailbox, caplog):
    """The server away for a minute: each try fails and is logged, the pause grows, nothing is
    lost; when it is back the mail goes out once."""
    user = UserFactory(verified=True)
    _reset_mail(user)
    start = timezone.now()
    mailbox.stop()
    try:
        assert sending.send_due(now=start) == 0
        mail = Mail.objects.get()
        assert (mail.status, mail.attempts) == (Status.PENDING, 1)
        assert mail.next_try_at == start + timedelta(seconds=10)
        assert "not sent (attempt 1)" in caplog.text
        # Not due yet: no attempt.
        assert sending.send_due(now=start + timedelta(seconds=5)) == 0
        assert Mail.objects.get().attempts == 1
        assert sending.send_due(now=start + timedelta(seconds=10)) == 0
        mail = Mail.objects.get()
        assert mail.attempts == 2
        assert mail.next_try_at == start + timedelta(seconds=30)
    finally:
        mailbox.start()
    assert sending.send_due(now=start + timedelta(seconds=70)) == 1
    assert sending.send_due(now=start + timedelta(seconds=200)) == 0
    assert len(mailbox.wait_for(user.email)) == 1
    mail = Mail.objects.get()
    assert (mail.status, mail.attempts) == (Status.SENT, 3)


def test_a_refused_address_is_given_up_at_once(mailbox):
    user = UserFactory(verified=True, email=f"nobody@{REFUSED_DOMAIN}")
    other = UserFactory(verified=True)
    _reset_mail(user)
    _reset_mail(other)
    assert sending.send_due() == 1  # the other mail still went
    mail = Mail.objects.get(user=user)
    assert mail.status == Status.FAILED and mail.attempts == 1
    assert "550" in mail.last_error
    assert sending.send_due(now=timezone.now() + timedelta(hours=1)) == 0


def test_given_up_after_the_last_attempt(mailbox, settings):
    settings.MAIL_ATTEMPTS = 2
    user = UserFactory(verified=True)
    _reset_mail(user)
    mailbox.stop()
    try:
        now = timezone.now()
        sending.send_due(now=now)
        sending.send_due(now=now + timedelta(minutes=5))
    finally:
        mailbox.start()
    mail = Mail.objects.get()
    assert (mail.status, mail.attempts) == (Status.FAILED, 2)
    assert sending.send_due(now=now + timedelta(hours=1)) == 0


def test_a_reminder_after_its_event_started_is_dropped(mailbox):
    user = UserFactory(verified=True)
    _reminder(user, useful_until=timezone.now() + timedelta(minutes=1))
    assert sending.send_due(now=timezone.now() + timedelta(minutes=2)) == 0
    assert Mail.objects.get().status == Status.DROPPED
    assert mailbox.to(user.email) == []


def test_retry_pause_grows_to_its_cap(settings):
    settings.MAIL_RETRY_MAX = 600
    assert [sending.retry_pause(n).total_seconds() for n in (1, 2, 3, 6, 7, 12)] == [
        10,
        20,
        40,
        320,
        600,
        600,
    ]


@pytest.mark.django_db(transaction=True)
def test_two_senders_at_once_send_each_mail_once(mailbox):
    users = [UserFactory(verified=True) for _ in range(6)]
    due_unsent(users)
    results = run_at_once(sending.send_due, sending.send_due)
    assert sum(results) == 6
    for user in users:
        assert len(mailbox.wait_for(user.email)) == 1


def test_a_run_gives_the_worker_back_after_its_slice(mailbox, monkeypatch):
    """A long batch is sent in slices, each run queueing the next behind the ticks."""
    from mail import services

    queued = []
    monkeypatch.setattr(sending, "SLICE_SECONDS", 0.0)
    monkeypatch.setattr(services, "send_soon", lambda: queued.append(1))
    users = [UserFactory(verified=True) for _ in range(3)]
    due_unsent(users)
    assert [sending.send_due(), sending.send_due(), sending.send_due()] == [1, 1, 1]
    assert len(queued) == 2  # the last run found nothing more to do
    for user in users:
        assert len(mailbox.wait_for(user.email)) == 1
