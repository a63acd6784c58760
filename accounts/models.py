from __future__ import annotations

from django.contrib.auth.models import AbstractUser, UserManager
from django.core.validators import MinLengthValidator, RegexValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

USERNAME_MIN = 3
USERNAME_MAX = 20

username_validators = [
    RegexValidator(
        r"^[A-Za-z0-9_-]+$",
        _("Usa solo lettere, cifre, «_» e «-», senza spazi né accenti."),
        code="invalid_characters",
    ),
    MinLengthValidator(USERNAME_MIN),
]


class PlayerManager(UserManager):
    def get_by_natural_key(self, username: str) -> User:
        # Log-in is case-insensitive, like the uniqueness rule.
        return self.get(username__iexact=username)


class User(AbstractUser):
    """A registered player (or staff, or a bot). Usernames are unique ignoring case."""

    username = models.CharField(
        _("nome utente"),
        max_length=USERNAME_MAX,
        unique=True,
        validators=username_validators,
        help_text=_("Da 3 a 20 caratteri: lettere, cifre, «_» e «-»."),
        error_messages={"unique": _("Questo nome utente è già preso.")},
    )
    is_bot = models.BooleanField(
        _("bot"),
        default=False,
        help_text=_("Un account computer: gioca le sfide ma non entra in tornei né arene."),
    )

    objects = PlayerManager()

    class Meta:
        verbose_name = _("giocatore")
        verbose_name_plural = _("giocatori")
        ordering = ["username"]
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.username
