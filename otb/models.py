"""Over-the-board tournaments ("torneo a tavolino", RULES 13): played at a club's venue, the
site only pairs them, keeps the results the arbiter types and writes what the venue and the
federations need. No game is played on the site and no clock runs: it is not an event of the
events registry, so the one-live-event rule (RULES 1) does not count it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Variant
from ratings.models import CadenceChoice


class FormatChoice(models.TextChoices):
    AUTO = "auto", _("Deciso dal sito (regola 4.4)")
    SWISS = "swiss", _("Svizzero (sistema Lim)")
    ROUND_ROBIN = "round_robin", _("Girone all'italiana (tavole Berger)")


class OtbTournament(models.Model):
    class Status(models.TextChoices):
        ENTRIES = "entries", _("Iscrizioni")
        RUNNING = "running", _("In corso")
        FINISHED = "finished", _("Concluso")

    name = models.CharField(_("nome"), max_length=100)
    variant = models.CharField(
        _("gioco"), max_length=16, choices=Variant.choices, default=Variant.CHESS
    )
    cadence = models.CharField(_("cadenza"), max_length=10, choices=CadenceChoice.choices)
    time_control = models.CharField(_("tempo di riflessione"), max_length=40, blank=True)
    format_choice = models.CharField(
        _("formula"), max_length=12, choices=FormatChoice.choices, default=FormatChoice.AUTO
    )
    # Fixed when round 1 is paired (RULES 13.2): "swiss" or "round_robin".
    format = models.CharField(_("formula decisa"), max_length=12, blank=True, default="")
    rounds_wanted = models.PositiveSmallIntegerField(
        _("turni"), null=True, blank=True, help_text=_("Vuoto: li decide il sito (regola 4.4).")
    )
    total_rounds = models.PositiveSmallIntegerField(_("turni decisi"), null=True, blank=True)
    venue = models.CharField(_("sede di gioco"), max_length=120, blank=True)
    starts_on = models.DateField(_("dal"))
    ends_on = models.DateField(_("al"))
    # Prohibited pairings (RULES 13.7) hold for the first this many rounds.
    prohibited_rounds = models.PositiveSmallIntegerField(
        _("turni con accoppiamenti vietati"), default=0
    )
    prohibit_club = models.BooleanField(
        _("vietati anche tra giocatori dello stesso circolo"), default=False
    )
    first_colour = models.CharField(
        _("colore del n. 1 al primo turno"), max_length=1, default="W"
    )  # Lim 10.5: the lot for #1
    organizer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("organizzatore"),
        null=True,
        on_delete=models.SET_NULL,
        related_name="otb_organized",
    )
    arbiters = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("coarbitri"),
        blank=True,
        related_name="otb_arbitrated",
    )
    status = models.CharField(
        _("stato"), max_length=10, choices=Status.choices, default=Status.ENTRIES
    )
    # Lim 11: no legal pairing existed, so it ended after the rounds played (its pages say so).
    ended_early = models.BooleanField(_("finito prima (Lim 11)"), default=False)
    # Grows with every change pushed to the public page (STYLE 4).
    version = models.PositiveIntegerField(_("versione"), default=0)
    created_at = models.DateTimeField(_("aperto il"), auto_now_add=True)

    class Meta:
        verbose_name = _("torneo a tavolino")
        verbose_name_plural = _("tornei a tavolino")
        ordering = ["-starts_on", "-pk"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_draughts(self) -> bool:
        return self.variant != Variant.CHESS


class OtbPlayer(models.Model):
    class Sex(models.TextChoices):
        MALE = "m", _("M")
        FEMALE = "w", _("F")

    tournament = models.ForeignKey(
        OtbTournament,
        verbose_name=_("torneo a tavolino"),
        on_delete=models.CASCADE,
        related_name="players",
    )
    # The pairing number (RULES 13.3): given when round 1 is paired, by rating; a late entry
    # gets the next free one. 0 until then.
    number = models.PositiveIntegerField(_("numero"), default=0)
    last_name = models.CharField(_("cognome"), max_length=60)
    first_name = models.CharField(_("nome"), max_length=60, blank=True)
    sex = models.CharField(_("sesso"), max_length=1, choices=Sex.choices, blank=True)
    birth_year = models.PositiveSmallIntegerField(_("anno di nascita"), null=True, blank=True)
    fsi_card = models.CharField(_("tessera FSI"), max_length=20, blank=True)
    fid_card = models.CharField(_("tessera F.I.D."), max_length=20, blank=True)
    fide_id = models.PositiveBigIntegerField(_("FIDE ID"), null=True, blank=True)
    club = models.CharField(_("circolo"), max_length=80, blank=True)
    province = models.CharField(_("provincia"), max_length=2, blank=True)
    family = models.CharField(_("famiglia"), max_length=60, blank=True)
    national_rating = models.PositiveSmallIntegerField(
        _("Elo Italia / F.I.D."), null=True, blank=True
    )
    fide_rating = models.PositiveSmallIntegerField(_("Elo FIDE"), null=True, blank=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("utente del sito"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="otb_entries",
    )
    # A late entry: after round N.
    entered_round = models.PositiveSmallIntegerField(_("gioca dal turno"), default=1)
    withdrawn_from = models.PositiveSmallIntegerField(
        _("ritirato dal turno"), null=True, blank=True
    )  # RULES 13.5

    class Meta:
        verbose_name = _("giocatore a tavolino")
        verbose_name_plural = _("giocatori a tavolino")
        ordering = ["number", "last_name", "first_name", "pk"]

    def __str__(self) -> str:
        return self.full_name

    @property
    def full_name(self) -> str:
        return f"{self.last_name} {self.first_name}".strip()

    def plays_in(self, round_number: int) -> bool:
        if round_number < self.entered_round:
            return False
        return self.withdrawn_from is None or round_number < self.withdrawn_from


class OtbBye(models.Model):
    """A round a player asked not to be paired in (RULES 13.4): half a point or nothing."""

    HALF = "half"
    ZERO = "zero"
    KINDS = ((HALF, _("mezzo punto")), (ZERO, _("zero punti")))

    player = models.ForeignKey(
        OtbPlayer, verbose_name=_("giocatore"), on_delete=models.CASCADE, related_name="byes"
    )
    round_number = models.PositiveSmallIntegerField(_("turno"))
    kind = models.CharField(_("valore"), max_length=4, choices=KINDS)

    class Meta:
        verbose_name = _("riposo richiesto")
        verbose_name_plural = _("riposi richiesti")
        constraints = [
            models.UniqueConstraint(fields=["player", "round_number"], name="otb_one_bye_a_round")
        ]

    def __str__(self) -> str:
        return f"{self.player} R{self.round_number} {self.kind}"


class OtbRound(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Da pubblicare")
        PUBLISHED = "published", _("Pubblicato")

    tournament = models.ForeignKey(
        OtbTournament,
        verbose_name=_("torneo a tavolino"),
        on_delete=models.CASCADE,
        related_name="rounds",
    )
    number = models.PositiveSmallIntegerField(_("numero"))
    status = models.CharField(
        _("stato"), max_length=10, choices=Status.choices, default=Status.DRAFT
    )
    # The round's record (RULES 13.6, 13.8): the engine's pairing, every edit with what the
    # checker said of it and any override, every correction of a result.
    record = models.JSONField(_("verbale"), default=list)
    paired_at = models.DateTimeField(_("abbinato il"), auto_now_add=True)

    class Meta:
        verbose_name = _("turno a tavolino")
        verbose_name_plural = _("turni a tavolino")
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="otb_one_round_number")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} R{self.number}"


class OtbBoard(models.Model):
    class Result(models.TextChoices):
        NONE = "", "—"
        WHITE = "1-0", "1-0"
        BLACK = "0-1", "0-1"
        DRAW = "½-½", "½-½"
        WHITE_FORFEIT = "+-", "+/−"  # Black did not come: White wins by forfeit
        BLACK_FORFEIT = "-+", "−/+"
        DOUBLE_FORFEIT = "--", "0/0"  # neither came

    round = models.ForeignKey(
        OtbRound, verbose_name=_("turno"), on_delete=models.CASCADE, related_name="boards"
    )
    board = models.PositiveSmallIntegerField(_("scacchiera"))
    white = models.ForeignKey(
        OtbPlayer, verbose_name=_("bianco"), on_delete=models.PROTECT, related_name="+"
    )
    black = models.ForeignKey(
        OtbPlayer,
        verbose_name=_("nero"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
    )  # none: the pairing-allocated bye (Lim 1), scored at once
    result = models.CharField(
        _("risultato"), max_length=3, choices=Result.choices, blank=True, default=""
    )

    class Meta:
        verbose_name = _("scacchiera a tavolino")
        verbose_name_plural = _("scacchiere a tavolino")
        ordering = ["board"]
        constraints = [
            models.UniqueConstraint(fields=["round", "board"], name="otb_one_board_number")
        ]

    def __str__(self) -> str:
        return f"{self.round} #{self.board}"
