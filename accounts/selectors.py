"""Reads on accounts for the pages."""

from __future__ import annotations

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from accounts.models import SignupLink, User
from live import presence
from live.consumers import SITE_TOPIC
from live.models import Connection
from mail.mailbox import mailbox_digest


def player_list(*, query: str = "", online_only: bool = False) -> QuerySet[User]:
    players = User.objects.filter(is_active=True).order_by("username")
    if query:
        players = players.filter(username__icontains=query)
    if online_only:
        fresh = presence.now_ms() - presence.STALE_MS
        here = Connection.objects.filter(topic=SITE_TOPIC, seen_ms__gte=fresh)
        players = players.filter(pk__in=here.values("user_id"))
    return players


def online_ids(player_ids) -> set[int]:
    """Who of these players has a page of the site open now (the site socket, one query)."""
    return presence.online(topic=SITE_TOPIC, user_ids=player_ids)


def player_get(*, username: str) -> User:
    return get_object_or_404(User, username__iexact=username, is_active=True)


def last_failed_mail(user: User):
    """The player's latest mail that could not be delivered, if the address has failed since it
    last worked (the account page and the admin say so)."""
    from mail.models import Mail, Status

    mails = Mail.objects.filter(user=user)
    failed = mails.filter(failed_at__isnull=False).order_by("-failed_at").first()
    if failed is None:
        return None
    later = mails.filter(status=Status.SENT, sent_at__gt=failed.failed_at).exists()
    return None if later else failed


def mailbox_taken(*, email: str, by_other_than: User | None = None) -> bool:
    """Whether another account has verified the mailbox `email` reaches (RULES 10.1)."""
    key = mailbox_digest(email)
    others = User.objects.filter(email_key=key, email_verified_at__isnull=False)
    if by_other_than is not None:
        others = others.exclude(pk=by_other_than.pk)
    return bool(key) and others.exists()


def signup_link_get(*, token: str) -> SignupLink | None:
    """The sign-up link of `token`, whatever its state (the page says why one is closed)."""
    if not token or len(token) > 43:
        return None
    return SignupLink.objects.select_related("maker").filter(token=token).first()


def signup_links_of(*, maker: User) -> list[SignupLink]:
    """The player's links for the account page: the open ones, then those closed in the last
    SIGNUP_LINK_DAYS (older ones are of no more use to show)."""
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone

    now = timezone.now()
    since = now - timedelta(days=settings.SIGNUP_LINK_DAYS)
    found = SignupLink.objects.select_related("maker").filter(maker=maker, expires_at__gt=since)
    links = list(found[:20])
    # The open ones first (the ones to copy), newest first within each.
    return sorted(links, key=lambda link: link.state(now) != "open")
