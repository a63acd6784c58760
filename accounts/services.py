"""Writes on accounts. Keyword-only, typed, transactional (STYLE 2)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import emails, personal
from accounts.models import TOMBSTONE, User
from live import locks
from mail.models import Mail


def user_create(*, username: str, password: str, email: str = "") -> User:
    """Create a player. The case-insensitive unique constraint is the final judge: two sign-ups
    racing for "Mario" and "mario" leave exactly one account, the other gets a clear error."""
    user = User(username=username, email=email)
    user.set_password(password)
    try:
        with locks.atomic():
            user.save()
            emails.verify_mail_queue(user)
    except IntegrityError:
        raise ValidationError({"username": _("Questo nome utente è già preso.")}) from None
    return user


def email_change(*, user: User, email: str) -> bool:
    """Set the player's address; a new one is unverified until its link is followed, and the
    mail with the link is queued. Returns whether the address changed."""
    email = User.objects.normalize_email(email.strip())
    if email.lower() == user.email.lower() and user.email_verified_at is not None:
        return False
    with locks.atomic():
        user.email = email
        user.email_verified_at = None
        user.save(update_fields=["email", "email_verified_at"])
        emails.verify_mail_queue(user)
    return True


def email_verify(*, token: str, now=None) -> User:
    """Follow a verification link: the address it was sent to becomes verified, if it is still
    the player's. Raises emails.BadLink (forged, expired, or for an address since changed)."""
    user_id, address = emails.verify_token_read(token)
    with locks.atomic():
        user = User.objects.select_for_update().filter(pk=user_id, deleted_at=None).first()
        if user is None or user.email.lower() != address or not address:
            raise emails.BadLink
        if user.email_verified_at is None:
            user.email_verified_at = now or timezone.now()
            user.save(update_fields=["email_verified_at"])
    return user


def reminders_stop(*, token: str) -> User:
    """The one-click unsubscribe of a reminder mail: no more reminders by e-mail."""
    user_id = emails.unsubscribe_token_read(token)
    user = User.objects.filter(pk=user_id, deleted_at=None).first()
    if user is None:
        raise emails.BadLink
    User.objects.filter(pk=user.pk).update(remind_by_email=False)
    user.remind_by_email = False
    return user


def user_delete(*, user_id: int, now=None) -> User:
    """Delete a player's account (GDPR, art. 17), keeping what others hold: their games,
    results, standings and everyone's ratings stay, under the tombstone name; the address,
    names, password, preferences and mails go; log-in is impossible from then on (an unusable
    password also ends every session: Django checks each session against the password hash).
    Refused with the reasons (ValidationError) while the player is in a live event or game."""
    from live.locks import Rank, lock_one

    with locks.atomic():
        user = lock_one(User, user_id, Rank.USER)
        if user.is_deleted:
            return user
        reasons = personal.blockers(user)
        if reasons:
            raise ValidationError(reasons)
        personal.erase(user)
        user.username = TOMBSTONE.format(pk=user.pk)
        user.email = ""
        user.first_name = ""
        user.last_name = ""
        user.email_verified_at = None
        user.remind_by_email = user.remind_on_site = user.remind_in_browser = False
        user.is_active = user.is_staff = user.is_superuser = False
        user.last_login = None
        user.deleted_at = now or timezone.now()
        user.set_unusable_password()
        user.save()
        user.groups.clear()
        user.user_permissions.clear()
        Mail.objects.filter(user=user).delete()
    return user
