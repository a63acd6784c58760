"""Sending the outbox (the worker's `mail.send` task, after every commit that queued a mail and
on beat's schedule).

One sender at a time over the whole site (a PostgreSQL advisory lock, tried, not waited for):
the worker's other process stays free for the timed work of games and events however many
mails a tournament's reminders queue, and one SMTP connection carries them all. Each mail is
sent in a transaction of its own that holds its row: two senders never send one mail, and a
sender killed after the SMTP server took a mail but before its row was marked sent is the only
way a mail goes twice (its Message-ID is the same both times, so a mail client shows one).

A failure is retried with a growing pause (MAIL_RETRY_MAX at most), MAIL_ATTEMPTS times; an
address the server refuses for good (a 5xx answer) is not tried again. Every failure is logged
on one line and kept on the row (the admin shows it beside the player)."""

from __future__ import annotations

import logging
import smtplib
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMultiAlternatives, get_connection
from django.db import connection, transaction
from django.template.loader import render_to_string
from django.utils import timezone, translation

from mail.models import Mail, Status

log = logging.getLogger(__name__)

# The advisory lock of the one sender: a single 64-bit key ("mail" in ASCII), a space apart
# from the two-key locks of live.locks.
SENDER_LOCK = 0x6D61696C
BATCH = 500
# A run sends for at most this long, then gives its worker process back and queues the next
# run: the sender holds one of the worker's processes, and a tournament's worth of mails to a
# slow relay (tens of ms each) must not keep it from the timed work for the whole batch.
SLICE_SECONDS = 2.0


def retry_pause(attempts: int) -> timedelta:
    """After the n-th failed attempt: 10 s, 20 s, 40 s, … up to MAIL_RETRY_MAX."""
    return timedelta(seconds=min(10 * 2 ** max(attempts - 1, 0), settings.MAIL_RETRY_MAX))


def is_permanent(error: Exception) -> bool:
    """The server refused this mail for good (a 5xx reply, every recipient refused): trying
    again would get the same answer. A connection refused, a timeout, a 4xx: try again."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _msg in error.recipients.values())
    code = getattr(error, "smtp_code", None)
    return isinstance(code, int) and code >= 500


def message(mail: Mail) -> EmailMultiAlternatives:
    """The mail as its player reads it: in their language, plain text and HTML."""
    context = {**mail.context, "site_url": settings.SITE_URL, "mail": mail}
    with translation.override(mail.language or settings.LANGUAGE_CODE):
        subject = " ".join(render_to_string(f"{mail.template}_subject.txt", context).split())
        text = render_to_string(f"{mail.template}.txt", context)
        html = render_to_string(f"{mail.template}.html", context)
    domain = settings.SITE_URL.split("://", 1)[-1].split(":")[0] or "localhost"
    # The same Message-ID whenever this row is sent: a copy sent again after a crash is one
    # message to the mail client.
    headers = {"Message-ID": f"<circolo-mail-{mail.pk}@{domain}>"}
    if not mail.is_account_mail:
        # RFC 2369 and RFC 8058: the mail client's own "unsubscribe" button, one click.
        headers["List-Unsubscribe"] = f"<{mail.context['unsubscribe_url']}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    email = EmailMultiAlternatives(subject, text, to=[mail.to], headers=headers)
    email.attach_alternative(html, "text/html")
    return email


def send_due(*, now: datetime | None = None) -> int:
    """Send the mails due at `now`; return how many went out. Does nothing (0) while another
    sender runs: that one sends what is due."""
    if connection.vendor != "postgresql":
        return _send_batch(now or timezone.now(), None)[0]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [SENDER_LOCK])
        if not cursor.fetchone()[0]:
            return 0
    deadline = time.monotonic() + SLICE_SECONDS
    try:
        sent = 0
        while True:
            count, more = _send_batch(now or timezone.now(), deadline)
            sent += count
            if not more:
                return sent
            if time.monotonic() >= deadline:
                break
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [SENDER_LOCK])
    # More is due: the next run goes to the back of the queue, behind the ticks.
    from mail.services import send_soon

    send_soon()
    return sent


def _send_batch(now: datetime, deadline: float | None) -> tuple[int, bool]:
    """Send the due mails, oldest first, until none is left, the server is unreachable or the
    deadline passed; returns how many went and whether more may be due."""
    due = list(
        Mail.objects.filter(status=Status.PENDING, next_try_at__lte=now)
        .order_by("next_try_at", "id")
        .values_list("pk", flat=True)[:BATCH]
    )
    smtp = get_connection(fail_silently=False)
    sent = 0
    try:
        for index, pk in enumerate(due):
            outcome = _send_one(pk, smtp, now)
            if outcome is None:  # the server is unreachable: the rest waits for the next run
                return sent, False
            sent += outcome
            # At least one mail a run, so a run always makes progress.
            if deadline is not None and time.monotonic() >= deadline:
                return sent, index + 1 < len(due) or len(due) == BATCH
    finally:
        try:
            smtp.close()
        except Exception:  # closing a connection that already broke
            pass
    return sent, len(due) == BATCH


def _send_one(pk: int, smtp, now: datetime) -> int | None:
    """1 if sent, 0 if not (done by another, no longer useful, refused for good), None if the
    server could not be reached or answered 'later' (the mail is rescheduled)."""
    with transaction.atomic():
        mail = (
            Mail.objects.select_for_update(skip_locked=True)
            .filter(pk=pk, status=Status.PENDING)
            .first()
        )
        if mail is None:
            return 0
        if mail.useful_until is not None and now >= mail.useful_until:
            mail.status = Status.DROPPED
            mail.save(update_fields=["status"])
            return 0
        try:
            email = message(mail)
        except Exception as error:  # a template that cannot render: no retry will help
            log.exception("mail %s cannot be written", mail.pk)
            _failed(mail, now, error, permanent=True)
            return 0
        try:
            smtp.send_messages([email])
        except (smtplib.SMTPException, OSError) as error:
            permanent = is_permanent(error)
            _failed(mail, now, error, permanent=permanent)
            log.warning(
                "mail %s to %s not sent (attempt %d%s): %s",
                mail.pk,
                mail.to,
                mail.attempts,
                ", given up" if mail.status == Status.FAILED else "",
                error,
            )
            return 0 if permanent else None
        mail.status = Status.SENT
        mail.sent_at = timezone.now()
        mail.attempts += 1
        if mail.is_account_mail:
            mail.context = {}  # a reset or verification link is a key: not kept once it is sent
        mail.save(update_fields=["status", "sent_at", "attempts", "context"])
        return 1


def _failed(mail: Mail, now: datetime, error: Exception, *, permanent: bool) -> None:
    mail.attempts += 1
    mail.failed_at = now
    mail.last_error = f"{type(error).__name__}: {error}"[:500]
    if permanent or mail.attempts >= settings.MAIL_ATTEMPTS:
        mail.status = Status.FAILED
    else:
        mail.next_try_at = now + retry_pause(mail.attempts)
    mail.save(update_fields=["attempts", "failed_at", "last_error", "status", "next_try_at"])
