"""The outbox: every mail the site sends is a row here first, written in the transaction that
decided it, and sent by the worker after commit (mail/sending.py). A row is one
(player, reason, object): the unique constraint makes a second request for the same mail a
no-op, so a tick or a task run twice never sends it twice."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class Reason(models.TextChoices):
    VERIFY = "verify", _("Verifica dell'indirizzo")
    RESET = "reset", _("Reimpostazione della password")
    REMINDER = "reminder", _("Promemoria di un evento")
    CANCELLED = "cancelled", _("Evento annullato")
    ARCHIVE = "archive", _("Dati pronti")
    CLUB = "club", _("Notizie del circolo")


# Mails about the account itself: always sent, with no unsubscribe link (the player asked for
# them: a check, a reset, the data archive they asked for). Every other reason carries
# List-Unsubscribe (RFC 8058).
ACCOUNT_REASONS = frozenset({Reason.VERIFY, Reason.RESET, Reason.ARCHIVE})


class Status(models.TextChoices):
    PENDING = "pending", _("Da inviare")
    SENT = "sent", _("Inviata")
    FAILED = "failed", _("Non recapitabile")
    DROPPED = "dropped", _("Non più utile")


class Mail(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="mails",
        verbose_name=_("giocatore"),
    )
    reason = models.CharField(_("motivo"), max_length=20, choices=Reason.choices)
    # What the mail is about: "tournament:12", the address being verified, a reset request.
    key = models.CharField(_("oggetto"), max_length=200)
    to = models.EmailField(_("a"))
    # Templates `<template>_subject.txt`, `<template>.txt` and `<template>.html`, rendered in
    # `language` with `context` when the mail is sent.
    template = models.CharField(_("modello"), max_length=100)
    context = models.JSONField(_("contesto"), default=dict, blank=True)
    language = models.CharField(_("lingua"), max_length=10)
    status = models.CharField(
        _("stato"), max_length=10, choices=Status.choices, default=Status.PENDING
    )
    created_at = models.DateTimeField(_("creata il"), auto_now_add=True)
    next_try_at = models.DateTimeField(_("prossimo tentativo"))
    # A mail past this is no longer worth sending (a reminder after its event started).
    useful_until = models.DateTimeField(_("utile fino a"), null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(_("tentativi"), default=0)
    sent_at = models.DateTimeField(_("inviata il"), null=True, blank=True)
    failed_at = models.DateTimeField(_("ultimo errore il"), null=True, blank=True)
    last_error = models.CharField(_("ultimo errore"), max_length=500, blank=True)

    class Meta:
        verbose_name = _("mail")
        verbose_name_plural = _("mail")
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "reason", "key"], name="mail_once"),
        ]
        indexes = [
            models.Index(
                fields=["next_try_at"],
                name="mail_due",
                condition=models.Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_reason_display()} → {self.to}"

    @property
    def is_account_mail(self) -> bool:
        return self.reason in ACCOUNT_REASONS


class MailboxDay(models.Model):
    """How many account mails were queued to one mailbox on one day (RULES 10.3): counted in
    the transaction that queues each of them, so a rolled-back request counts nothing, and
    kept apart from the mails, so deleting an account (and its mails) gives its mailbox no
    fresh allowance. The mailbox is a digest of its key (mail.mailbox), not the address."""

    mailbox = models.CharField(_("casella"), max_length=32)
    day = models.DateField(_("giorno"))
    mails = models.PositiveIntegerField(_("mail"), default=0)
    verifications = models.PositiveIntegerField(_("verifiche"), default=0)

    class Meta:
        verbose_name = _("mail a una casella in un giorno")
        verbose_name_plural = _("mail alle caselle per giorno")
        constraints = [
            models.UniqueConstraint(fields=["mailbox", "day"], name="mailbox_day_once"),
        ]
        indexes = [models.Index(fields=["day"], name="mailbox_day_day")]

    def __str__(self) -> str:
        return f"{self.mailbox} {self.day}: {self.mails}"
