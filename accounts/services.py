"""Writes on accounts. Keyword-only, typed, transactional (STYLE 2)."""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import emails, personal, selectors, signup_links
from accounts.models import TOMBSTONE, SignupLink, User
from live import locks
from mail.models import Mail


class SignupLinkClosed(Exception):
    """The sign-up link was revoked, expired or used up before this sign-up could count on it."""


def user_create(
    *, username: str, password: str, email: str = "", link: SignupLink | None = None
) -> User:
    """Create a player, through `link` if given (RULES 10.6: counted on the link, in this
    transaction, by a conditional UPDATE: of any number of sign-ups at once at most its
    remaining uses get in; SignupLinkClosed when none is left). The case-insensitive unique
    constraint is the final judge: two sign-ups racing for "Mario" and "mario" leave exactly
    one account, the other gets a clear error (and gives its use of the link back)."""
    user = User(username=username, email=email)
    user.set_password(password)
    try:
        with locks.atomic():
            if link is not None:
                # The maker's state read apart: a condition through a join would make the
                # UPDATE an `id IN (subquery)`, whose count PostgreSQL does not re-check on the
                # row it locks (concurrent sign-ups then all got in).
                if not User.objects.filter(pk=link.maker_id, is_active=True).exists():
                    raise SignupLinkClosed
                counted = SignupLink.objects.filter(
                    pk=link.pk,
                    revoked_at=None,
                    expires_at__gt=timezone.now(),
                    uses__lt=F("uses_limit"),
                ).update(uses=F("uses") + 1)
                if not counted:
                    raise SignupLinkClosed
            user.save()
            emails.verify_mail_queue(user)
            if link is not None:
                signup_links.joined(user=user, link=link)
    except IntegrityError:
        raise ValidationError({"username": _("Questo nome utente è già preso.")}) from None
    return user


def signup_link_create(
    *,
    maker: User,
    purpose: str = "",
    target_id: int | None = None,
    uses_limit: int | None = None,
    days: int | None = None,
    now: datetime | None = None,
) -> SignupLink:
    """A new sign-up link of `maker` (RULES 10.6): SIGNUP_LINK_USES sign-ups, SIGNUP_LINK_DAYS
    days, or fewer of either when the feature making it asks (a club's invite, RULES 12.4: its
    own bound, never above the site's). Refused (ValidationError) unless the maker's address is verified, or when they hold
    SIGNUP_LINK_LIVE links not expired, leaving out those revoked before anyone used them
    (counted under the maker's row lock, so two presses at once cannot make one too many): at
    most SIGNUP_LINK_LIVE x SIGNUP_LINK_USES accounts through one player's links a period."""
    now = now or timezone.now()
    with locks.atomic():
        maker = User.objects.select_for_update().get(pk=maker.pk)
        if not maker.email_verified:
            raise ValidationError(
                _("Conferma prima il tuo indirizzo e-mail: poi potrai creare link di iscrizione.")
            )
        # A link someone signed up through holds its place until it expires, revoked or not:
        # revoking and making another would otherwise be a fresh SIGNUP_LINK_USES each time.
        live = SignupLink.objects.filter(maker=maker, expires_at__gt=now).exclude(
            revoked_at__isnull=False, uses=0
        )
        if live.count() >= settings.SIGNUP_LINK_LIVE:
            raise ValidationError(
                _("Hai già %(n)d link attivi: revocane uno o aspetta che scada.")
                % {"n": settings.SIGNUP_LINK_LIVE}
            )
        uses = min(uses_limit or settings.SIGNUP_LINK_USES, settings.SIGNUP_LINK_USES)
        days = min(days or settings.SIGNUP_LINK_DAYS, settings.SIGNUP_LINK_DAYS)
        return SignupLink.objects.create(
            maker=maker,
            token=secrets.token_urlsafe(24),
            uses_limit=max(1, uses),
            created_at=now,
            expires_at=now + timedelta(days=max(1, days)),
            purpose=purpose,
            target_id=target_id,
        )


def signup_link_revoke(*, maker: User, link_id: int, now: datetime | None = None) -> bool:
    """Revoke one of `maker`'s links; False if there is no such link of theirs still open."""
    return bool(
        SignupLink.objects.filter(pk=link_id, maker=maker, revoked_at=None).update(
            revoked_at=now or timezone.now()
        )
    )


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
    the player's. Raises emails.BadLink (forged, expired, or for an address since changed), and
    emails.MailboxTaken when another account has verified that mailbox (RULES 10.1: the
    unique constraint decides between two accounts verifying it at once)."""
    user_id, address = emails.verify_token_read(token)
    with locks.atomic():
        user = User.objects.select_for_update().filter(pk=user_id, deleted_at=None).first()
        if user is None or user.email.lower() != address or not address:
            raise emails.BadLink
        if user.email_verified_at is None:
            if selectors.mailbox_taken(email=user.email, by_other_than=user):
                raise emails.MailboxTaken
            user.email_verified_at = now or timezone.now()
            try:
                with transaction.atomic():
                    user.save(update_fields=["email_verified_at"])
            except IntegrityError:
                raise emails.MailboxTaken from None
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
    Refused with the reasons (ValidationError) while the player is in a live event or game.

    Locks in the site's order (`live.locks`): what the apps' erasers change of a lower rank
    first (`personal.lock`: the open challenges), then the player's row. Every action that adds
    something of the player's (a join, an entry, an accepted challenge, a chat line) locks the
    same row and refuses a closed account under it, so of a deletion and one of them at once
    exactly one goes through. After commit every open socket of the player closes (4403)."""
    from live import pushes
    from live.locks import Rank, lock_one

    with locks.atomic():
        personal.lock(user_id)
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
        pushes.account_closed_on_commit([user.pk])
    return user


def account_open(user) -> bool:
    """Whether `user` (a row read under its lock, with `is_active` and `deleted_at`) may still
    act: neither deleted nor deactivated by the staff."""
    return bool(user.is_active) and user.deleted_at is None


def account_lock_open(*, user_id: int) -> User | None:
    """The player's user row, locked until the end of the transaction (USER rank,
    `live.locks`), or None when the account is closed (deleted, deactivated or absent): what
    every action that adds something of a player's checks under the lock the deletion takes."""
    rows = locks.lock_rows(
        User.objects.filter(pk=user_id).only("pk", "is_active", "deleted_at"), locks.Rank.USER
    )
    return rows[0] if rows and account_open(rows[0]) else None


def accounts_deactivated(*, user_ids) -> None:
    """The staff deactivated these accounts (the admin): after commit their open sockets
    close (4403), as a deleted account's do."""
    from live import pushes

    pushes.account_closed_on_commit(user_ids)
