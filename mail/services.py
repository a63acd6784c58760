"""Queueing mails (STYLE 2: keyword-only writes). A mail is queued inside the caller's
transaction and sent by the worker after commit (mail/sending.py): a rolled-back change sends
nothing, and no request waits on an SMTP server.

What may be queued at all is decided here, for every caller (RULES 10.2, 10.3): nothing goes
to an address its player has not verified but that address's own verification mail, and the
account mails to one mailbox (mail.mailbox), whatever the account and whatever the request,
are counted per day: past MAILBOX_DAILY_LIMIT (MAILBOX_VERIFY_DAILY_LIMIT for verification
mails) nothing more is queued that day, and the caller answers as it always does.

The count is a PostgreSQL row per mailbox and day (MailboxDay), not a Redis counter: it is
written in the transaction that queues the mail, so a request rolled back counts nothing and
a mail queued is always counted; a conditional UPDATE under the row's lock makes it exact under
any number of concurrent requests; and it survives what Redis may lose (a restart empties the
throttle's counters, which would hand every mailbox a fresh day)."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from mail.mailbox import mailbox_digest, mailbox_key
from mail.models import ACCOUNT_REASONS, Mail, MailboxDay, Reason

log = logging.getLogger(__name__)


def mail_queue(
    *,
    user,
    reason: str,
    key: str,
    template: str,
    language: str,
    context: dict | None = None,
    to: str | None = None,
    useful_until: datetime | None = None,
) -> Mail | None:
    """Queue one mail to `user` (at `to`, by default their address); None when they have no
    address or this (user, reason, key) was queued before: it is never sent twice."""
    created = mail_queue_many(
        [
            Mail(
                user=user,
                reason=reason,
                key=key,
                template=template,
                language=language,
                context=context or {},
                to=to if to is not None else user.email,
                useful_until=useful_until,
            )
        ]
    )
    return created[0] if created else None


def mail_queue_many(mails: Iterable[Mail]) -> list[Mail]:
    """Queue many mails in one statement (the reminders of a whole tournament); those already
    queued, those with no address, those to an address not verified (but a verification) and
    account mails past their mailbox's daily count are left out. Returns the ones queued now."""
    now = timezone.now()
    wanted = []
    for mail in mails:
        if not mail.to:
            continue
        if mail.reason not in ACCOUNT_REASONS and not mail.context.get("unsubscribe_url"):
            raise ValueError(f"a {mail.reason} mail needs context['unsubscribe_url']")
        if not _to_verified_or_verifying(mail):
            log.info("%s mail to an address not verified: not queued", mail.reason)
            continue
        mail.next_try_at = now
        wanted.append(mail)
    if not wanted:
        return []
    with transaction.atomic():
        existing = set(
            Mail.objects.filter(
                user_id__in={m.user_id for m in wanted},
                reason__in={m.reason for m in wanted},
                key__in={m.key for m in wanted},
            ).values_list("user_id", "reason", "key")
        )
        fresh = [m for m in wanted if (m.user_id, m.reason, m.key) not in existing]
        listed = [m for m in fresh if m.reason not in ACCOUNT_REASONS]
        # A concurrent queuer of the same mail: the constraint keeps one, ours is skipped.
        Mail.objects.bulk_create(listed, ignore_conflicts=True)
        queued = listed + [m for m in fresh if m.reason in ACCOUNT_REASONS and _counted(m, now)]
        if queued:
            transaction.on_commit(send_soon)
    return queued


def _to_verified_or_verifying(mail: Mail) -> bool:
    """RULES 10.2: an address gets its own verification mail and nothing else until its player
    has verified it (AUTH_USER_MODEL's `email_verified` and `email`)."""
    if mail.reason == Reason.VERIFY:
        return True
    user = mail.user
    return bool(getattr(user, "email_verified", False)) and mailbox_key(mail.to) == mailbox_key(
        user.email
    )


def _counted(mail: Mail, now: datetime) -> bool:
    """Queue one account mail if its mailbox's count for the day allows it (RULES 10.3). In a
    savepoint: a mail refused, or queued meanwhile by a concurrent request (the unique
    constraint), takes its count back with it."""
    try:
        with transaction.atomic():
            if not mailbox_count(
                to=mail.to, verification=mail.reason == Reason.VERIFY, day=timezone.localdate(now)
            ):
                log.info("%s mail not queued: its mailbox had its mails for the day", mail.reason)
                return False
            mail.save(force_insert=True)
    except IntegrityError:
        return False
    return True


def mailbox_count(*, to: str, verification: bool, day) -> bool:
    """Count one account mail to the mailbox of `to` on `day`; False (and nothing counted) when
    the day's MAILBOX_DAILY_LIMIT, or MAILBOX_VERIFY_DAILY_LIMIT for a verification, is reached.
    Exact under concurrency: the conditional UPDATE waits for the row's lock and reads the
    count committed before it (PostgreSQL re-checks the WHERE on the row it locked)."""
    digest = mailbox_digest(to)
    MailboxDay.objects.bulk_create([MailboxDay(mailbox=digest, day=day)], ignore_conflicts=True)
    rows = MailboxDay.objects.filter(
        mailbox=digest, day=day, mails__lt=settings.MAILBOX_DAILY_LIMIT
    )
    if verification:
        rows = rows.filter(verifications__lt=settings.MAILBOX_VERIFY_DAILY_LIMIT)
    return (
        rows.update(mails=F("mails") + 1, verifications=F("verifications") + int(verification)) == 1
    )


def mailbox_days_prune(*, today) -> int:
    """Forget the counts of days before yesterday (beat's `mail.send`)."""
    return MailboxDay.objects.filter(day__lt=today - timedelta(days=1)).delete()[0]


def send_soon() -> None:
    """Ask the worker to send what is due now. If the broker cannot be reached the mail waits
    in the outbox, and beat's `mail.send` finds it within seconds of the broker's return."""
    try:
        # By name, from Celery's registry (mail.apps imports mail.tasks in every process): the
        # task module is above the sender, which it calls.
        current_app.tasks["mail.send"].apply_async(retry=False)
    except Exception as error:  # the outbox row is the promise; the task only hurries it
        log.warning("mail task not sent, beat will find the mail: %s", error)
