"""Clubs ("circoli", RULES 12): a club, its members with their role and dates, and the requests
to join it.

A membership is a row with the day it began and the day it ended (`left_at`), never deleted:
who was a member of which club when ("member for the season", RULES 12.3) is read from the
rows, and a deleted account stays in its club's history under its tombstone name. A player has
at most one membership not ended (a unique constraint), and a club at most one president.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from clubs.names import name_key, refused_characters

# accounts.signup_links: a sign-up through a link of this purpose joins the club (RULES 12.4).
LINK_PURPOSE = "club"


def members_place(club_id: int) -> str:
    """The club as a place only its members read (its chat room, RULES 12.5), as the live
    layer names it (`live.pushes.member_group`): a membership's end is pushed there."""
    return f"club.{club_id}"


NAME_MIN, NAME_MAX = 3, 60
SHORT_MIN, SHORT_MAX = 2, 8
DESCRIPTION_MAX = 2000

# The Italian provinces' abbreviations ("sigle"), as the FSI and the F.I.D. list a club's seat.
PROVINCES = sorted(
    """AG AL AN AO AP AQ AR AT AV BA BG BI BL BN BO BR BS BT BZ CA CB CE CH CL CN CO CR CS CT CZ
    EN FC FE FG FI FM FR GE GO GR IM IS KR LC LE LI LO LT LU MB MC ME MI MN MO MS MT NA NO NU
    OR PA PC PD PE PG PI PN PO PR PT PU PV PZ RA RC RE RG RI RM RN RO SA SI SO SP SR SS SU SV
    TA TE TN TO TP TR TS TV UD VA VB VC VE VI VR VT VV""".split()
)


def plain_line(value: str) -> None:
    bad = refused_characters(value)
    if bad:
        raise ValidationError(
            _("Caratteri non ammessi (di controllo o invisibili): %(chars)s."),
            code="control_characters",
            params={"chars": ", ".join(bad[:5])},
        )


def plain_text(value: str) -> None:
    bad = refused_characters(value, multiline=True)
    if bad:
        raise ValidationError(
            _("Caratteri non ammessi (di controllo o invisibili): %(chars)s."),
            code="control_characters",
            params={"chars": ", ".join(bad[:5])},
        )


code_validator = RegexValidator(
    r"^[A-Za-z0-9]{1,12}$", _("Un codice è fatto di lettere e cifre, al più 12."), code="code"
)
short_validator = RegexValidator(
    r"^[A-Za-z0-9]{2,8}$",
    _("La sigla va da 2 a 8 lettere o cifre, senza spazi."),
    code="short_name",
)


class ClubQuerySet(models.QuerySet):
    def active(self):
        """Not dissolved: what holds a name and takes members."""
        return self.filter(dissolved_at__isnull=True)

    def listed(self):
        """What the club list shows: active and not hidden by the staff."""
        return self.active().filter(hidden=False)


class Club(models.Model):
    name = models.CharField(_("nome"), max_length=NAME_MAX, validators=[plain_line])
    # RULES 12.2: the name as compared (clubs.names), unique among the clubs not dissolved.
    # Text: NFKC may make one character eighteen.
    name_key = models.TextField(_("nome normalizzato"), blank=True, editable=False)
    short_name = models.CharField(
        _("sigla"),
        max_length=SHORT_MAX,
        validators=[short_validator],
        help_text=_("Da 2 a 8 lettere o cifre: si vede accanto al nome dei soci."),
    )
    short_key = models.TextField(_("sigla normalizzata"), blank=True, editable=False)
    city = models.CharField(_("città"), max_length=60, validators=[plain_line])
    province = models.CharField(_("provincia"), max_length=2, choices=[(p, p) for p in PROVINCES])
    description = models.TextField(
        _("descrizione"), blank=True, max_length=DESCRIPTION_MAX, validators=[plain_text]
    )
    fsi_code = models.CharField(
        _("codice FSI"), max_length=12, blank=True, validators=[code_validator]
    )
    fid_code = models.CharField(
        _("codice F.I.D."), max_length=12, blank=True, validators=[code_validator]
    )
    founded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="clubs_founded",
        verbose_name=_("fondato da"),
    )
    created_at = models.DateTimeField(_("fondato il"), auto_now_add=True)
    # The staff's: a hidden club is out of the list and its page is shown only to its members.
    hidden = models.BooleanField(_("nascosto"), default=False)
    dissolved_at = models.DateTimeField(_("sciolto il"), null=True, blank=True)

    objects = ClubQuerySet.as_manager()

    class Meta:
        verbose_name = _("circolo")
        verbose_name_plural = _("circoli")
        ordering = ["name", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["name_key"],
                condition=Q(dissolved_at__isnull=True),
                name="clubs_club_name_unique",
            ),
            models.UniqueConstraint(
                fields=["short_key"],
                condition=Q(dissolved_at__isnull=True),
                name="clubs_club_short_unique",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # The keys follow the names wherever they are written (forms, admin, services).
        self.name_key = name_key(self.name)
        self.short_key = name_key(self.short_name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None:
            kwargs["update_fields"] = {*update_fields, "name_key", "short_key"}
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("clubs:detail", args=[self.pk])

    def clean(self) -> None:
        # The admin's form and the services: a clash is an error on its field, not the
        # constraint's IntegrityError (RULES 12.2).
        super().clean()
        others = Club.objects.active().exclude(pk=self.pk)
        errors = {}
        key = name_key(self.name)
        if not key and self.name:  # an empty name is the field's own error ("obbligatorio")
            errors["name"] = _("Il nome deve contenere lettere o cifre.")
        elif others.filter(name_key=key).exists():
            errors["name"] = _(
                "Esiste già un circolo con questo nome (o con uno che si legge uguale)."
            )
        if self.short_name and others.filter(short_key=name_key(self.short_name)).exists():
            errors["short_name"] = _("Questa sigla è già di un altro circolo.")
        if errors:
            raise ValidationError(errors)

    @property
    def is_active(self) -> bool:
        return self.dissolved_at is None


class Role(models.TextChoices):
    PRESIDENT = "president", _("Presidente")
    OFFICER = "officer", _("Consigliere")
    MEMBER = "member", _("Socio")


# Who may manage members, open the club's events and captain its teams (RULES 12.1).
OFFICERS = (Role.PRESIDENT, Role.OFFICER)


class EndReason(models.TextChoices):
    LEFT = "left", _("Uscito")
    REMOVED = "removed", _("Tolto da un consigliere")
    DISSOLVED = "dissolved", _("Circolo sciolto")
    ACCOUNT_DELETED = "deleted", _("Account cancellato")


class Membership(models.Model):
    """A player in a club from `joined_at` to `left_at` (None: still a member), with a role."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("circolo")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="club_memberships",
        verbose_name=_("giocatore"),
    )
    role = models.CharField(_("ruolo"), max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined_at = models.DateTimeField(_("socio dal"))
    left_at = models.DateTimeField(_("uscito il"), null=True, blank=True)
    end_reason = models.CharField(
        _("motivo dell'uscita"), max_length=10, choices=EndReason.choices, blank=True
    )
    # An officer silenced this member in the club's room (RULES 12.5): they read, not write.
    chat_muted = models.BooleanField(_("zittito nella chat del circolo"), default=False)

    class Meta:
        verbose_name = _("iscrizione al circolo")
        verbose_name_plural = _("iscrizioni ai circoli")
        ordering = ["club", "joined_at", "id"]
        constraints = [
            # RULES 12.3: one club at a time.
            models.UniqueConstraint(
                fields=["user"], condition=Q(left_at__isnull=True), name="clubs_one_club"
            ),
            models.UniqueConstraint(
                fields=["club"],
                condition=Q(left_at__isnull=True, role="president"),
                name="clubs_one_president",
            ),
        ]
        indexes = [models.Index(fields=["club", "left_at"], name="clubs_members")]

    def __str__(self) -> str:
        return f"{self.user} · {self.club}"

    @property
    def is_officer(self) -> bool:
        return self.role in OFFICERS and self.left_at is None


class RequestStatus(models.TextChoices):
    PENDING = "pending", _("In attesa")
    ACCEPTED = "accepted", _("Accettata")
    REFUSED = "refused", _("Rifiutata")
    WITHDRAWN = "withdrawn", _("Ritirata")


class JoinRequest(models.Model):
    """A player asked to join (RULES 12.3); an officer accepts or refuses, and they are told."""

    club = models.ForeignKey(
        Club, on_delete=models.CASCADE, related_name="requests", verbose_name=_("circolo")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="club_requests",
        verbose_name=_("giocatore"),
    )
    status = models.CharField(
        _("stato"), max_length=10, choices=RequestStatus.choices, default=RequestStatus.PENDING
    )
    created_at = models.DateTimeField(_("chiesta il"), auto_now_add=True)
    decided_at = models.DateTimeField(_("decisa il"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("decisa da"),
    )
    # The player closed the notice of the decision (the club list's banner).
    seen = models.BooleanField(_("vista"), default=False)

    class Meta:
        verbose_name = _("richiesta di iscrizione")
        verbose_name_plural = _("richieste di iscrizione")
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user"],
                condition=Q(status="pending"),
                name="clubs_one_pending_request",
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} → {self.club}"
