from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.core.validators import MinLengthValidator, RegexValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

USERNAME_MIN = 3
USERNAME_MAX = 20
# A deleted player's name everywhere their games and results still stand: characters no
# sign-up may use, so nobody can take it (accounts.services.user_delete).
TOMBSTONE = "giocatore cancellato #{pk}"
REMIND_MINUTES = [(10, _("10 minuti prima")), (30, _("30 minuti prima")), (60, _("un'ora prima"))]

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
        # Room for the tombstone; the sign-up form allows USERNAME_MAX.
        max_length=40,
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

    # The interface and the mails in this language (the account page, the language switch).
    language = models.CharField(
        _("lingua"), max_length=10, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    # When the address in `email` was shown to be theirs (a link in a mail followed); None:
    # not verified, and reminders are not mailed to it.
    email_verified_at = models.DateTimeField(_("e-mail verificata il"), null=True, blank=True)
    # Reminders before an event they joined (events/reminders.py).
    remind_by_email = models.BooleanField(_("promemoria per e-mail"), default=True)
    remind_minutes = models.PositiveSmallIntegerField(
        _("quanto prima"), choices=REMIND_MINUTES, default=30
    )
    remind_on_site = models.BooleanField(_("avviso sul sito"), default=True)
    remind_in_browser = models.BooleanField(_("notifiche del browser"), default=True)
    # The game page's text mode (the position as text, a move box, announcements): for players
    # who do not see the board; set from the game page and the account page.
    text_mode = models.BooleanField(_("modalità testo"), default=False)
    deleted_at = models.DateTimeField(_("cancellato il"), null=True, blank=True)

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

    @property
    def email_verified(self) -> bool:
        return bool(self.email and self.email_verified_at)

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class DataArchive(models.Model):
    """A player's "download my data" (GDPR art. 15 and 20, docs/rules.md 10.1): asked on the
    account page, built by the worker a chunk of games at a time (accounts/archive.py) into a
    ZIP under VAR_DIR/archives/, kept DATA_ARCHIVE_KEEP_HOURS, then removed. At most one
    unfinished per player (the partial unique constraint), DATA_ARCHIVE_DAILY asked a day."""

    class Status(models.TextChoices):
        REQUESTED = "requested", _("richiesto")
        BUILDING = "building", _("in preparazione")
        READY = "ready", _("pronto")
        FAILED = "failed", _("non riuscito")
        EXPIRED = "expired", _("scaduto")

    UNFINISHED = (Status.REQUESTED, Status.BUILDING)

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="data_archives",
        verbose_name=_("giocatore"),
    )
    status = models.CharField(
        _("stato"), max_length=10, choices=Status.choices, default=Status.REQUESTED
    )
    requested_at = models.DateTimeField(_("richiesto il"))
    # When a chunk last moved it on: the builder takes the unfinished archive moved least
    # recently, and a build none has moved for a while has lost its worker (accounts/archive.py).
    advanced_at = models.DateTimeField(_("ultimo avanzamento"), null=True, blank=True)
    ready_at = models.DateTimeField(_("pronto il"), null=True, blank=True)
    expires_at = models.DateTimeField(_("disponibile fino al"), null=True, blank=True)
    # The name the player's browser saves it under (circolo-<name>-<date>.zip) and its size.
    file_name = models.CharField(_("nome del file"), max_length=100, blank=True)
    size = models.BigIntegerField(_("dimensione (byte)"), default=0)
    # Progress: the pieces (a game in the list, a game in a PGN/PDN file) written of all.
    done = models.PositiveIntegerField(_("fatti"), default=0)
    total = models.PositiveIntegerField(_("in tutto"), default=0)
    # The builder's place: the step, the last key written, the ZIP's entries so far.
    state = models.JSONField(_("stato della preparazione"), default=dict, blank=True)
    # Chunks begun and not finished in a row: a chunk that keeps killing its worker fails the
    # archive instead of being tried for ever.
    attempts = models.PositiveSmallIntegerField(_("tentativi"), default=0)
    error = models.CharField(_("errore"), max_length=300, blank=True)

    class Meta:
        verbose_name = _("archivio dei dati")
        verbose_name_plural = _("archivi dei dati")
        ordering = ["-requested_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player"],
                condition=models.Q(status__in=["requested", "building"]),
                name="data_archive_one_unfinished",
            ),
        ]
        indexes = [models.Index(fields=["player", "requested_at"], name="data_archive_player")]

    def __str__(self) -> str:
        return f"{self.player} · {self.get_status_display()}"

    @property
    def percent(self) -> int:
        return min(99, 100 * self.done // self.total) if self.total else 0
