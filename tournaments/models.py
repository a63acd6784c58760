"""Round tournaments (RULES 4): a concrete `events.models.Event` with its seats, threshold and
rounds, the registrations before the start, and the run (participants, rounds, pairings)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from events.models import Event, OpeningModeChoice, new_invite_token  # noqa: F401 (re-exported)
from tournaments import options


class Format(models.TextChoices):
    ROUND_ROBIN = "round_robin", _("Girone all'italiana")
    SWISS = "swiss", _("Sistema italo-svizzero")


class EndReason(models.TextChoices):
    BELOW_MINIMUM = "below_minimum", _("Iscritti sotto il minimo")
    ROUNDS_DONE = "rounds_done", _("Tutti i turni giocati")
    TIME_UP = "time_up", _("Raggiunta la fine annunciata")
    NO_PAIRING = "no_pairing", _("Nessun accoppiamento possibile (Lim 11)")
    BY_STAFF = "by_staff", _("Annullato dallo staff")


class Tournament(Event):
    back_label = _("Torna al torneo")

    seats = models.PositiveSmallIntegerField(_("posti"), default=16)
    minimum = models.PositiveSmallIntegerField(_("minimo per iniziare"), default=4)
    threshold = models.PositiveSmallIntegerField(_("soglia"), default=7)
    extra_round = models.BooleanField(_("turno extra"), default=False)
    double_games = models.BooleanField(_("andata e ritorno"), default=False)
    # RULES 7.3 Decision: casual for its openings, made rated at the start by four players'
    # forced double games (RULES 4.4).
    rated_by_double_games = models.BooleanField(
        _("valutato per l'andata e ritorno obbligata"), default=False
    )

    # Fixed at the start (RULES 4.3, 4.4, 4.9) by running.tournament_start.
    format = models.CharField(_("formato"), max_length=20, choices=Format.choices, blank=True)
    total_rounds = models.PositiveSmallIntegerField(_("turni"), null=True, blank=True)
    legs = models.PositiveSmallIntegerField(_("partite per accoppiamento"), default=1)  # 4.5
    first_colour = models.CharField(  # Lim 10.5: the lot for #1
        _("colore sorteggiato del n. 1"), max_length=1, default="W"
    )
    started_at = models.DateTimeField(_("iniziato il"), null=True, blank=True)
    announced_end = models.DateTimeField(_("fine annunciata"), null=True, blank=True)
    current_round = models.PositiveSmallIntegerField(_("turno in corso"), default=0)
    end_reason = models.CharField(
        _("motivo della chiusura"), max_length=20, choices=EndReason.choices, blank=True
    )

    class Meta:
        verbose_name = _("torneo")
        verbose_name_plural = _("tornei")
        ordering = ["starts_at", "id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="tournaments_status_start")]
        constraints = [
            # RULES 4.1 limits, kept by the database too.
            models.CheckConstraint(
                condition=Q(seats__gte=options.SEATS_MIN, seats__lte=options.SEATS_MAX),
                name="tournaments_seats_range",
            ),
            models.CheckConstraint(
                condition=Q(minimum__gte=options.MINIMUM_MIN, minimum__lte=models.F("seats")),
                name="tournaments_minimum_range",
            ),
            models.CheckConstraint(
                condition=Q(
                    threshold__gte=options.THRESHOLD_MIN, threshold__lte=options.THRESHOLD_MAX
                ),
                name="tournaments_threshold_range",
            ),
            # RULES 7.2: a floor only on rated tournaments.
            models.CheckConstraint(
                condition=Q(floor__isnull=True) | Q(rated=True), name="tournaments_floor_rated"
            ),
        ]

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("tournaments:detail", args=[self.pk])

    def winner_names(self) -> list[str]:
        return sorted(
            self.registrations.filter(rank=1).values_list("player__username", flat=True),
            key=str.lower,
        )

    def calendar_end(self):
        """The announced end once started (RULES 4.9); before, the same estimate for the
        players registered now (at least the minimum)."""
        if self.announced_end is not None:
            return self.announced_end
        from datetime import timedelta

        from django.conf import settings

        from events.pairing.rounds import MAX_PLAYERS, MIN_PLAYERS, plan_tournament

        players = min(MAX_PLAYERS, max(MIN_PLAYERS, self.minimum, self.registrations.count()))
        plan = plan_tournament(
            players, threshold=self.threshold, extra=self.extra_round, double=self.double_games
        )
        # RULES 4.9 Decision, as running.round_slot: 2 × the estimate per game, + the pause.
        games = 2 if plan.double else 1
        slot = 2 * self.time_control.estimated_seconds * games + settings.ROUND_PAUSE_SECONDS
        return self.starts_at + timedelta(seconds=plan.rounds * slot)

    def game_caption(self, game) -> str:
        """The game's round and board, and which of a double pairing's games it is."""
        from django.utils.translation import gettext

        row = (
            Pairing.objects.filter(Q(game1_id=game.pk) | Q(game2_id=game.pk))
            .values_list("round__number", "board", "game2_id")
            .first()
        )
        if row is None:
            return ""
        number, board, second = row
        caption = gettext("turno %(round)d di %(total)d, scacchiera %(board)d") % {
            "round": number,
            "total": self.total_rounds or number,
            "board": board,
        }
        if self.legs == 2:  # RULES 4.5
            caption += " · " + (gettext("ritorno") if second == game.pk else gettext("andata"))
        return caption

    def game_rounds(self) -> dict[int, str]:
        """Each game's PGN/PDN Round tag: the round's number, and with double games
        (RULES 4.5) which of the pairing's two it is, "3.1" and "3.2". One query."""
        rows = Pairing.objects.filter(round__tournament=self).values_list(
            "round__number", "game1_id", "game2_id"
        )
        rounds: dict[int, str] = {}
        for number, first, second in rows:
            if first is not None:
                rounds[first] = f"{number}.1" if self.legs == 2 else str(number)
            if second is not None:
                rounds[second] = f"{number}.2"
        return rounds

    def game_round(self, game) -> str:
        """One game's Round tag ("-" if it is no game of this tournament)."""
        return self.game_rounds().get(game.pk, "-")


class Registration(models.Model):
    """A player registered and not withdrawn (RULES 4.2: withdrawing deletes the row)."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="registrations", verbose_name=_("torneo")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="tournament_registrations",
        verbose_name=_("giocatore"),
    )
    joined_at = models.DateTimeField(_("iscritto il"), auto_now_add=True)

    class Meta:
        verbose_name = _("iscrizione")
        verbose_name_plural = _("iscrizioni")
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"], name="tournaments_registration_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} · {self.tournament}"


class Participant(models.Model):
    """A player present at the start (RULES 4.3), with their number and start rating.

    `number` is the Berger number drawn by lot (round robin, RULES 5.1) or the pairing number
    (Swiss, RULES 5.2: rating descending, then username). The final figures are a cache written
    when the tournament closes (RULES 4.10); pages compute live standings while it runs.
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="participants", verbose_name=_("torneo")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="tournament_participations",
        verbose_name=_("giocatore"),
    )
    number = models.PositiveSmallIntegerField(_("numero"))
    start_rating = models.PositiveSmallIntegerField(_("punteggio all'inizio"))  # RULES 7.1
    rank = models.PositiveSmallIntegerField(_("posizione finale"), null=True, blank=True)
    points = models.PositiveSmallIntegerField(_("punti"), null=True, blank=True)
    buchholz_cut1 = models.PositiveSmallIntegerField(_("Buchholz -1"), null=True, blank=True)
    sonneborn_berger = models.FloatField(_("Sonneborn-Berger"), null=True, blank=True)
    wins = models.PositiveSmallIntegerField(_("vittorie"), null=True, blank=True)
    # RULES 15.5: the staff annulled this player's results before the tournament was rated.
    annulled = models.BooleanField(_("risultati annullati"), default=False)

    class Meta:
        verbose_name = _("partecipante")
        verbose_name_plural = _("partecipanti")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="tournaments_participant_number"
            ),
            models.UniqueConstraint(
                fields=["tournament", "player"], name="tournaments_participant_once"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.number}. {self.player}"


class Round(models.Model):
    """One round (RULES 4.8): its opening (RULES 6), when it started and ended."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("torneo")
    )
    number = models.PositiveSmallIntegerField(_("turno"))
    opening_number = models.PositiveSmallIntegerField(  # F.I.D. table
        _("apertura F.I.D."), null=True, blank=True
    )
    # Machine form, from the start position.
    opening_moves = models.JSONField(_("mosse dell'apertura"), default=list)
    start_fen = models.TextField(_("posizione iniziale"), blank=True)  # "": the normal start
    started_at = models.DateTimeField(_("iniziato il"))
    # How the pairing was made, decision by decision, as the engine took them (Lim's trace,
    # `events.pairing.lim.Step`; a round robin's Berger row): the round page's "why".
    pairing_trace = models.JSONField(_("come è stato abbinato"), default=list, blank=True)
    ended_at = models.DateTimeField(_("finito il"), null=True, blank=True)

    class Meta:
        verbose_name = _("turno")
        verbose_name_plural = _("turni")
        ordering = ["tournament", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="tournaments_round_once")
        ]

    def __str__(self) -> str:
        return f"{self.tournament} · {self.number}"


class Pairing(models.Model):
    """One board of a round: two players and their one or two games (RULES 4.5), or a bye.

    Points are the tournament's (RULES 4.6: 2/1/0 per game), always from the point of view of
    `white` (White of the first game; with double games they are Black in the second). A leg
    whose points are null has not been scored yet. `played_*` is False for a forfeit or a 0-0
    double absence (never a "game won", RULES 4.10).
    """

    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, related_name="pairings", verbose_name=_("turno")
    )
    board = models.PositiveSmallIntegerField(_("scacchiera"))
    white = models.ForeignKey(
        Participant, on_delete=models.CASCADE, related_name="+", verbose_name=_("bianco")
    )
    black = models.ForeignKey(
        Participant,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("nero"),
    )  # null: the bye ("riposo", RULES 4.6)
    # RULES 4.7: busy, loses by forfeit.
    white_forfeit = models.BooleanField(_("forfait del bianco"), default=False)
    black_forfeit = models.BooleanField(_("forfait del nero"), default=False)
    game1 = models.OneToOneField(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("partita 1"),
    )
    game2 = models.OneToOneField(
        "games.Game",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("partita 2"),
    )
    white_points1 = models.PositiveSmallIntegerField(
        _("punti del bianco, partita 1"), null=True, blank=True
    )
    black_points1 = models.PositiveSmallIntegerField(
        _("punti del nero, partita 1"), null=True, blank=True
    )
    played1 = models.BooleanField(_("partita 1 giocata"), default=False)
    white_points2 = models.PositiveSmallIntegerField(
        _("punti del bianco, partita 2"), null=True, blank=True
    )
    black_points2 = models.PositiveSmallIntegerField(
        _("punti del nero, partita 2"), null=True, blank=True
    )
    played2 = models.BooleanField(_("partita 2 giocata"), default=False)
    done = models.BooleanField(_("concluso"), default=False, db_index=True)

    class Meta:
        verbose_name = _("accoppiamento")
        verbose_name_plural = _("accoppiamenti")
        ordering = ["round", "board"]
        constraints = [
            models.UniqueConstraint(fields=["round", "board"], name="tournaments_pairing_board")
        ]

    def __str__(self) -> str:
        return f"{self.round} · {self.board}"

    @property
    def is_bye(self) -> bool:
        return self.black_id is None
