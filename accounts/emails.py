"""The account's mails: the address check and the password reset (both account mails, with no
unsubscribe link), and the signed links mails carry (verification, one-click unsubscribe).

A link's token is signed with the site's key (django.core.signing): it names the player, and
for a verification the address it was sent to, so a link for an address since changed proves
nothing."""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from mail.models import Reason
from mail.services import mail_queue

VERIFY_SALT = "accounts.email-verify"
UNSUBSCRIBE_SALT = "accounts.unsubscribe"
# One verification mail per address in each such slot, however often "send again" is pressed:
# the outbox's (player, reason, object) rule does the counting.
VERIFY_SLOT_SECONDS = 300


def absolute(path: str) -> str:
    return settings.SITE_URL + path


def verify_token(user: User) -> str:
    return signing.dumps({"u": user.pk, "e": user.email.lower()}, salt=VERIFY_SALT)


def verify_mail_queue(user: User, *, now: datetime | None = None) -> bool:
    """Queue the mail that checks `user.email` is theirs; False if one already went in this
    slot, there is no address, another account has verified its mailbox (the link could only
    be refused: RULES 10.1), or the mailbox had its mails for the day (RULES 10.3, the
    outbox's count)."""
    from accounts.selectors import mailbox_taken

    if not user.email or mailbox_taken(email=user.email, by_other_than=user):
        return False
    now = now or timezone.now()
    slot = int(now.timestamp()) // VERIFY_SLOT_SECONDS
    url = absolute(reverse("accounts:email_verify", args=[verify_token(user)]))
    return (
        mail_queue(
            user=user,
            reason=Reason.VERIFY,
            key=f"{user.email.lower()} {slot}",
            template="accounts/mail/verify",
            language=user.language,
            context={
                "username": user.username,
                "verify_url": url,
                "valid_for": settings.EMAIL_VERIFY_TIMEOUT,
            },
        )
        is not None
    )


class MailboxTaken(Exception):
    """The address's mailbox is verified by another account (RULES 10.1)."""


class BadLink(Exception):
    """A link that is forged, expired, or for an address no longer the player's."""

    def __init__(self, expired: bool = False) -> None:
        super().__init__("expired" if expired else "invalid")
        self.expired = expired


def verify_token_read(token: str) -> tuple[int, str]:
    """(player id, address) of a verification link; BadLink if it is not one of ours or is
    older than EMAIL_VERIFY_TIMEOUT."""
    try:
        found = signing.loads(token, salt=VERIFY_SALT, max_age=settings.EMAIL_VERIFY_TIMEOUT)
    except signing.SignatureExpired:
        raise BadLink(expired=True) from None
    except signing.BadSignature:
        raise BadLink from None
    if not isinstance(found, dict) or not isinstance(found.get("u"), int):
        raise BadLink
    return found["u"], str(found.get("e", ""))


def reset_mail_queue(user: User, *, reset_path: str, request_key: str) -> bool:
    """Queue a password-reset mail with the one-time link Django's token generator made; False
    when the address is not verified or its mailbox had its mails for the day (the outbox
    decides both: RULES 10.2, 10.3)."""
    return (
        mail_queue(
            user=user,
            reason=Reason.RESET,
            key=request_key,
            template="accounts/mail/reset",
            language=user.language,
            context={
                "username": user.username,
                "reset_url": absolute(reset_path),
                "valid_for": settings.PASSWORD_RESET_TIMEOUT,
            },
        )
        is not None
    )


def unsubscribe_url(user: User) -> str:
    """The one-click link that stops reminder mails (List-Unsubscribe): it never expires."""
    token = signing.dumps({"u": user.pk}, salt=UNSUBSCRIBE_SALT)
    return absolute(reverse("accounts:unsubscribe", args=[token]))


def unsubscribe_token_read(token: str) -> int:
    try:
        found = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except signing.BadSignature:
        raise BadLink from None
    if not isinstance(found, dict) or not isinstance(found.get("u"), int):
        raise BadLink
    return found["u"]
