"""The abstract event: the options and the life every event has (RULES 1, 4.1, 6, 7, 8).

A round tournament and an arena are concrete `Event`s with their own fields on top. The
statuses are shared: scheduled until the start, running, then finished or cancelled (RULES 1:
"live" means neither). `next_due_at` is when the tick must look at the event next (its start,
its next step, the end of its grace): the tick reads only events that are due, so its cost
follows the due work, not the number of events (bench/tournament.py).
"""

from __future__ import annotations

import secrets

from django.conf import settings
from django.core.validators import MaxLengthValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from events.options import OpeningMode
from events.text import DESCRIPTION_MAX, NAME_MAX, plain_description, plain_name
from games.models import HasVariant, Variant
from games.rules.timecontrol import TimeControl
from ratings.models import CadenceChoice


def new_invite_token() -> str:
    return secrets.token_urlsafe(24)


class OpeningModeChoice(models.TextChoices):
    """RULES 6, with the names the interface uses."""

    FREE = OpeningMode.FREE.value, _("Mossa libera")
    RANDOM_1 = OpeningMode.RANDOM_1.value, _("1 mossa a caso")
    RANDOM_2 = OpeningMode.RANDOM_2.value, _("2 mosse a caso")
    RANDOM_3 = OpeningMode.RANDOM_3.value, _("3 mosse a caso")
    TABLE_1 = OpeningMode.TABLE_1.value, _("Sorteggio dalla tabella F.I.D., fino alla classe 1")
    TABLE_2 = OpeningMode.TABLE_2.value, _("Sorteggio dalla tabella F.I.D., fino alla classe 2")
    TABLE_3 = OpeningMode.TABLE_3.value, _("Sorteggio dalla tabella F.I.D., fino alla classe 3")
    TABLE_ALL = OpeningMode.TABLE_ALL.value, _("Sorteggio dalla tabella F.I.D., tutte le 174")
    THEMATIC = OpeningMode.THEMATIC.value, _("Tematico (un'apertura scelta)")


class EventQuerySet(models.QuerySet):
    def live(self):
        """RULES 1: not finished and not cancelled."""
        return self.exclude(status__in=[Event.Status.FINISHED, Event.Status.CANCELLED])

    def listed(self):
        return self.exclude(status=Event.Status.CANCELLED)

    def due(self, now):
        """What the tick must look at now (`next_due_at` reached)."""
        return self.filter(next_due_at__lte=now).exclude(
            status__in=[Event.Status.FINISHED, Event.Status.CANCELLED]
        )


class Event(HasVariant, models.Model):
    class Status(models.TextChoices):
        SCHEDULED = "scheduled", _("In programma")
        RUNNING = "running", _("In corso")
        FINISHED = "finished", _("Concluso")
        CANCELLED = "cancelled", _("Annullato")

    name = models.CharField(_("nome"), max_length=NAME_MAX, validators=[plain_name])
    description = models.TextField(
        _("descrizione"),
        blank=True,
        max_length=DESCRIPTION_MAX,
        validators=[MaxLengthValidator(DESCRIPTION_MAX), plain_description],
    )
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="%(class)ss_opened",
        verbose_name=_("aperto da"),
    )
    variant = models.CharField(_("variante"), max_length=20, choices=Variant.choices)
    base_seconds = models.PositiveIntegerField(_("tempo base (secondi)"))
    increment_seconds = models.PositiveIntegerField(_("incremento (secondi)"))
    # Derived from the time control when saved; stored so lists filter on it (RULES 2).
    cadence = models.CharField(_("cadenza"), max_length=20, choices=CadenceChoice.choices)
    starts_at = models.DateTimeField(_("inizio"))  # UTC in the database (USE_TZ)
    opening_mode = models.CharField(
        _("aperture"), max_length=20, choices=OpeningModeChoice.choices, default="free"
    )
    thematic_opening = models.PositiveSmallIntegerField(
        _("apertura tematica"), null=True, blank=True
    )
    rated = models.BooleanField(_("valutato"), default=True)
    # RULES 7.3: the opener asked for rated, the openings made it casual; the page says so.
    rated_switched_off = models.BooleanField(_("valutazione tolta dalle aperture"), default=False)
    floor = models.PositiveSmallIntegerField(_("sbarramento"), null=True, blank=True)
    password_hash = models.CharField(_("password (cifrata)"), max_length=200, blank=True)
    invite_token = models.CharField(
        _("codice d'invito"), max_length=64, unique=True, default=new_invite_token
    )
    # RULES 12.6: only this club's members join (fixed when the event is opened).
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="%(class)ss",
        verbose_name=_("solo i soci del circolo"),
    )
    status = models.CharField(
        _("stato"), max_length=20, choices=Status.choices, default=Status.SCHEDULED
    )
    created_at = models.DateTimeField(_("creato il"), auto_now_add=True)
    cancelled_at = models.DateTimeField(_("annullato il"), null=True, blank=True)
    # When the start was last moved after the event was opened (RULES 11.2: who joined before
    # is reminded of the new start even inside their lead).
    start_moved_at = models.DateTimeField(_("inizio spostato il"), null=True, blank=True)
    seed = models.BigIntegerField(_("seme del sorteggio"), default=0)  # the opening draws (RULES 6)
    finished_at = models.DateTimeField(_("concluso il"), null=True, blank=True)
    next_due_at = models.DateTimeField(_("prossima scadenza"), null=True, blank=True, db_index=True)

    objects = EventQuerySet.as_manager()

    # What a game's page of this kind of event does (the games layer names no kind): the words
    # of its way back; whether a finished game's page takes the player back to the event and a
    # new game of theirs opens at once there (an arena's, RULES 8); whether its games offer
    # the boost (RULES 8).
    back_label = _("Torna all'evento")
    game_page_returns = False
    game_boost = False

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # Until the start, the event is due at its start, whoever moved it (the opener's form,
        # the admin): the tick starts it then.
        if self.status == self.Status.SCHEDULED:
            self.next_due_at = self.starts_at
            fields = kwargs.get("update_fields")
            if fields is not None and "next_due_at" not in fields:
                kwargs["update_fields"] = [*fields, "next_due_at"]
        super().save(*args, **kwargs)

    @property
    def time_control(self) -> TimeControl:
        return TimeControl(self.base_seconds, self.increment_seconds)

    @property
    def is_private(self) -> bool:
        return bool(self.password_hash)

    @property
    def is_live(self) -> bool:
        return self.status not in (self.Status.FINISHED, self.Status.CANCELLED)

    @property
    def opening(self):
        from games.rules import openings

        return openings.by_number(self.thematic_opening) if self.thematic_opening else None

    def game_caption(self, game) -> str:
        """Where a game stands in this event, for its page beside the event's name ("turno 3,
        scacchiera 2"): the game page reads it from the game's event without knowing its
        kind. Each kind says what it can; by default nothing."""
        return ""

    def winner_names(self) -> list[str]:
        """Who finished first (ties share), for the club's page (RULES 12.5): each kind says;
        by default nobody."""
        return []

    def calendar_end(self):
        """When the event is expected to end, for calendars (".ics"): each kind says."""
        from datetime import timedelta

        return self.starts_at + timedelta(hours=1)

    def has_started(self, now=None) -> bool:
        """RULES 4.2: from the start on the door is shut (arenas let people in, RULES 8)."""
        now = now or timezone.now()
        return self.status != self.Status.SCHEDULED or now >= self.starts_at


# What a notice is about: the start coming (a reminder) or the event cancelled. Any other topic
# is a kind's own notice (teams: a player named in a line-up, the line-ups closed), written by
# that kind and said by its `EventKind.notice_template` from the row's `detail`.
START = "start"


class Reminder(models.Model):
    """A player was reminded of an event they joined (events/reminders.py): one row per player,
    event and topic, so the tick reminds once however often it runs. The notice on the site's
    pages reads these rows (name, page, start copied here: one query per page, no join)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="reminders",
        verbose_name=_("giocatore"),
    )
    kind = models.CharField(_("tipo di evento"), max_length=20)  # events.kinds code
    event_id = models.PositiveBigIntegerField(_("evento"))
    name = models.CharField(_("nome"), max_length=NAME_MAX)
    url = models.CharField(_("pagina"), max_length=200)
    starts_at = models.DateTimeField(_("inizio"))
    created_at = models.DateTimeField(_("inviato il"), auto_now_add=True)
    dismissed = models.BooleanField(_("chiuso dal giocatore"), default=False)
    # The event was cancelled (RULES 11.3): the notice says so for a day, or until closed.
    cancelled_at = models.DateTimeField(_("evento annullato il"), null=True, blank=True)
    # `START` (the reminder, or the cancellation), or a kind's own notice, which `detail` says.
    topic = models.CharField(_("argomento"), max_length=20, default=START)
    detail = models.JSONField(_("dettagli"), default=dict, blank=True)

    class Meta:
        verbose_name = _("promemoria")
        verbose_name_plural = _("promemoria")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "kind", "event_id", "topic"], name="reminder_once"
            ),
        ]
        indexes = [models.Index(fields=["user", "starts_at"], name="reminder_user_start")]

    def __str__(self) -> str:
        return f"{self.user} · {self.name}"
