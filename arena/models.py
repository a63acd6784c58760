"""Arenas (RULES 8): a concrete `events.models.Event` with a duration instead of rounds, the
players in it (`Entry`), and its games (`ArenaGame`).

An entry's points, wins and games are a cache of its score sheet (`arena.engine.sheet`), always
recomputed from the entry's finished games in order, never incremented (`services`), so the
leaderboard sorts in the database.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from events.models import Event

DURATION_MIN, DURATION_MAX = 10, 8 * 60  # RULES 8: minutes


class EndReason(models.TextChoices):
    TIME_UP = "time_up", _("Tempo scaduto")
    BY_STAFF = "by_staff", _("Annullata dallo staff")
    BY_OPENER = "by_opener", _("Annullata da chi l'ha aperta")


class Arena(Event):
    back_label = _("Torna all'arena")
    game_page_returns = True  # RULES 8: back to the arena, re-paired at once
    game_boost = True  # RULES 8

    duration_minutes = models.PositiveSmallIntegerField(_("durata (minuti)"), default=60)
    started_at = models.DateTimeField(_("iniziata il"), null=True, blank=True)
    end_reason = models.CharField(
        _("motivo della chiusura"), max_length=20, choices=EndReason.choices, blank=True
    )
    # A pairing pass was asked for and will run at this instant (passes are coalesced, RULES 8).
    pairing_due_at = models.DateTimeField(_("prossimo abbinamento"), null=True, blank=True)
    # A club battle (RULES 12.7): a club's score is the sum of its N best scorers; None for an
    # arena of no clubs. Its clubs are `battle_clubs`.
    battle_top_n = models.PositiveSmallIntegerField(
        _("battaglia tra circoli: migliori che contano"), null=True, blank=True
    )

    class Meta:
        verbose_name = _("arena")
        verbose_name_plural = _("arene")
        ordering = ["starts_at", "id"]
        indexes = [models.Index(fields=["status", "starts_at"], name="arena_status_start")]
        constraints = [
            models.CheckConstraint(
                condition=Q(duration_minutes__gte=DURATION_MIN, duration_minutes__lte=DURATION_MAX),
                name="arena_duration_range",
            ),
            # RULES 7.2: a floor only on rated arenas.
            models.CheckConstraint(
                condition=Q(floor__isnull=True) | Q(rated=True), name="arena_floor_rated"
            ),
            # RULES 12.7: N from 3 to 10.
            models.CheckConstraint(
                condition=Q(battle_top_n__isnull=True)
                | Q(battle_top_n__gte=3, battle_top_n__lte=10),
                name="arena_battle_top_n_range",
            ),
        ]

    def get_absolute_url(self) -> str:
        from django.urls import reverse

        return reverse("arena:detail", args=[self.pk])

    def winner_names(self) -> list[str]:
        return sorted(
            self.entries.filter(rank=1).values_list("player__username", flat=True), key=str.lower
        )

    def calendar_end(self):
        return self.ends_at

    @property
    def is_battle(self) -> bool:
        return self.battle_top_n is not None

    @property
    def ends_at(self):
        """RULES 8: the arena lasts its duration from the announced start."""
        from datetime import timedelta

        return self.starts_at + timedelta(minutes=self.duration_minutes)


class EntryState(models.TextChoices):
    ACTIVE = "active", _("In gara")
    PAUSED = "paused", _("In pausa")
    LEFT = "left", _("Uscito")


class PauseReason(models.TextChoices):
    NONE = "", _("—")
    BY_PLAYER = "by_player", _("Pausa chiesta dal giocatore")
    ABSENT = "absent", _("Partita persa senza muovere")
    OTHER_ARENA = "other_arena", _("Entrato in un'altra arena")


class Entry(models.Model):
    """A player in an arena: whether they want to be paired now, and their score (a cache)."""

    arena = models.ForeignKey(
        Arena, on_delete=models.CASCADE, related_name="entries", verbose_name=_("arena")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="arena_entries",
        verbose_name=_("giocatore"),
    )
    state = models.CharField(
        _("stato"), max_length=10, choices=EntryState.choices, default=EntryState.ACTIVE
    )
    pause_reason = models.CharField(
        _("motivo della pausa"), max_length=20, choices=PauseReason.choices, blank=True
    )
    entered_at = models.DateTimeField(_("entrato il"), auto_now_add=True)
    # Since when the player waits for an opponent (entered, came back, their game ended):
    # with an odd number the one who waited least waits (RULES 8).
    waiting_since = models.DateTimeField(_("in attesa dal"), null=True, blank=True)
    points = models.PositiveIntegerField(_("punti"), default=0)
    wins = models.PositiveIntegerField(_("vittorie"), default=0)
    games = models.PositiveIntegerField(_("partite"), default=0)
    on_streak = models.BooleanField(_("in serie"), default=False)
    rank = models.PositiveIntegerField(_("posizione finale"), null=True, blank=True)
    # The club the player scores for in a club battle (RULES 12.7), theirs when they entered.
    club = models.ForeignKey(
        "clubs.Club",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("circolo"),
    )

    class Meta:
        verbose_name = _("partecipante")
        verbose_name_plural = _("partecipanti")
        ordering = ["arena", "-points", "-wins", "id"]
        constraints = [models.UniqueConstraint(fields=["arena", "player"], name="arena_entry_once")]
        indexes = [models.Index(fields=["arena", "-points", "-wins"], name="arena_leaderboard")]

    def __str__(self) -> str:
        return f"{self.player} · {self.arena}"


class ArenaGame(models.Model):
    """One game of an arena: who had which colour, its opening, and whether it is scored."""

    arena = models.ForeignKey(
        Arena, on_delete=models.CASCADE, related_name="arena_games", verbose_name=_("arena")
    )
    game = models.OneToOneField(
        "games.Game",
        on_delete=models.PROTECT,
        related_name="arena_game",
        verbose_name=_("partita"),
    )
    white = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="+", verbose_name=_("bianco")
    )
    black = models.ForeignKey(
        Entry, on_delete=models.CASCADE, related_name="+", verbose_name=_("nero")
    )
    opening_number = models.PositiveSmallIntegerField(  # F.I.D. table
        _("apertura F.I.D."), null=True, blank=True
    )
    opening_moves = models.JSONField(_("mosse dell'apertura"), default=list)
    started_at = models.DateTimeField(_("iniziata il"))
    ended_at = models.DateTimeField(_("finita il"), null=True, blank=True)  # set when scored

    class Meta:
        verbose_name = _("partita dell'arena")
        verbose_name_plural = _("partite dell'arena")
        ordering = ["arena", "started_at", "id"]
        indexes = [models.Index(fields=["arena", "ended_at"], name="arena_game_open")]

    def __str__(self) -> str:
        return f"{self.arena} · #{self.game_id}"


class BattleClub(models.Model):
    """A club invited to a club battle (RULES 12.7): 2 to 10 per battle."""

    arena = models.ForeignKey(
        Arena, on_delete=models.CASCADE, related_name="battle_clubs", verbose_name=_("arena")
    )
    club = models.ForeignKey(
        "clubs.Club", on_delete=models.PROTECT, related_name="battles", verbose_name=_("circolo")
    )

    class Meta:
        verbose_name = _("circolo in battaglia")
        verbose_name_plural = _("circoli in battaglia")
        ordering = ["arena", "id"]
        constraints = [
            models.UniqueConstraint(fields=["arena", "club"], name="arena_battle_club_once")
        ]

    def __str__(self) -> str:
        return f"{self.club} · {self.arena}"
