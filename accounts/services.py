"""Writes on accounts. Keyword-only, typed, transactional (STYLE 2)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.models import User


def user_create(*, username: str, password: str, email: str = "") -> User:
    """Create a player. The case-insensitive unique constraint is the final judge: two sign-ups
    racing for "Mario" and "mario" leave exactly one account, the other gets a clear error."""
    user = User(username=username, email=email)
    user.set_password(password)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError:
        raise ValidationError({"username": _("Questo nome utente è già preso.")}) from None
    return user
