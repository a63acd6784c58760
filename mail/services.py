"""Queueing mails (STYLE 2: keyword-only writes). A mail is queued inside the caller's
transaction and sent by the worker after commit (mail/sending.py): a rolled-back change sends
nothing, and no request waits on an SMTP server."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime

from celery import current_app
from django.db import transaction
from django.utils import timezone

from mail.models import ACCOUNT_REASONS, Mail

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
    queued, and those with no address, are left out. Returns the ones queued now."""
    now = timezone.now()
    wanted = []
    for mail in mails:
        if not mail.to:
            continue
        if mail.reason not in ACCOUNT_REASONS and not mail.context.get("unsubscribe_url"):
            raise ValueError(f"a {mail.reason} mail needs context['unsubscribe_url']")
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
        # A concurrent queuer of the same mail: the constraint keeps one, ours is skipped.
        Mail.objects.bulk_create(fresh, ignore_conflicts=True)
        transaction.on_commit(send_soon)
    return fresh


def send_soon() -> None:
    """Ask the worker to send what is due now. If the broker cannot be reached the mail waits
    in the outbox, and beat's `mail.send` finds it within seconds of the broker's return."""
    try:
        # By name, from Celery's registry (mail.apps imports mail.tasks in every process): the
        # task module is above the sender, which it calls.
        current_app.tasks["mail.send"].apply_async(retry=False)
    except Exception as error:  # the outbox row is the promise; the task only hurries it
        log.warning("mail task not sent, beat will find the mail: %s", error)
