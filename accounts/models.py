from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.core.exceptions import ValidationError
from django.core.validators import MinLengthValidator, RegexValidator
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from mail.mailbox import mailbox_digest

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
    # The mailbox `email` reaches (mail.mailbox.mailbox_digest), kept by save(): what the reset
    # lookup finds a player by, and what makes a verified address one account's (RULES 10.1).
    email_key = models.CharField(
        _("casella"), max_length=32, blank=True, default="", db_index=True, editable=False
    )
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
            # RULES 10.1: a mailbox is verified by one account at most.
            models.UniqueConstraint(
                fields=["email_key"],
                condition=models.Q(email_verified_at__isnull=False) & ~models.Q(email_key=""),
                name="accounts_user_verified_mailbox_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.username

    def clean(self) -> None:
        # The admin's form: a verified mailbox another account holds is an error on the form,
        # not the constraint's IntegrityError (RULES 10.1).
        super().clean()
        self.email_key = mailbox_digest(self.email)
        if self.email_key and self.email_verified_at is not None:
            others = User.objects.filter(email_key=self.email_key, email_verified_at__isnull=False)
            if others.exclude(pk=self.pk).exists():
                raise ValidationError(
                    {"email": _("Questo indirizzo è già confermato da un altro account.")}
                )

    def save(self, *args, **kwargs) -> None:
        # The key follows the address wherever it is written (forms, admin, services).
        self.email_key = mailbox_digest(self.email)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "email" in update_fields:
            kwargs["update_fields"] = {*update_fields, "email_key"}
        super().save(*args, **kwargs)

    @property
    def email_verified(self) -> bool:
        return bool(self.email and self.email_verified_at)

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None


class SignupLink(models.Model):
    """A sign-up link a player hands out (RULES 10.6): the accounts made through it are counted
    on it (`uses` of `uses_limit`, until `expires_at`, unless revoked), not on their network
    address, so a club signing up on one Wi-Fi gets in and a script does not.

    `purpose` (with `target_id`) is what joining through the link also does, for the features
    built on it (accounts.signup_links.PURPOSES); "" is a plain sign-up."""

    maker = models.ForeignKey(
        User, on_delete=models.CASCADE, related_name="signup_links", verbose_name=_("autore")
    )
    token = models.CharField(_("codice"), max_length=43, unique=True)
    uses_limit = models.PositiveIntegerField(_("iscrizioni consentite"))
    uses = models.PositiveIntegerField(_("iscrizioni fatte"), default=0)
    created_at = models.DateTimeField(_("creato il"), default=timezone.now)
    expires_at = models.DateTimeField(_("scade il"))
    revoked_at = models.DateTimeField(_("revocato il"), null=True, blank=True)
    purpose = models.CharField(_("scopo"), max_length=30, blank=True, default="")
    target_id = models.PositiveBigIntegerField(_("oggetto dello scopo"), null=True, blank=True)

    class Meta:
        verbose_name = _("link di iscrizione")
        verbose_name_plural = _("link di iscrizione")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.maker} · {self.uses}/{self.uses_limit}"

    def state(self, now=None) -> str:
        """Its state: open, revoked, expired or used_up."""
        now = now or timezone.now()
        # A maker deactivated or deleted takes their links with them.
        if self.revoked_at is not None or not self.maker.is_active:
            return "revoked"
        if self.expires_at <= now:
            return "expired"
        if self.uses >= self.uses_limit:
            return "used_up"
        return "open"


class DataArchive(models.Model):
    """A player's "download my data" (GDPR art. 15 and 20, docs/rules.md 10.7): asked on the
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
