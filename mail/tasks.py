"""The mail's Celery task (STYLE 5); scheduled in config/celery.py."""

from __future__ import annotations

from celery import shared_task
from django.utils import timezone

from mail import sending, services


@shared_task(name="mail.send", ignore_result=True)
def send() -> None:
    """After every commit that queued a mail, and every few seconds: send what is due (the
    retries, and mails whose task was lost)."""
    sending.send_due()
    services.mailbox_days_prune(today=timezone.localdate())
