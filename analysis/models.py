"""A finished game's computer analysis (RULES 14), one per game, kept for everyone who opens the
game's analysis board afterwards; and the requests players made, counted per day. Only
`analysis.services` writes these rows."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class GameAnalysis(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued", _("in coda")
        RUNNING = "running", _("in corso")
        DONE = "done", _("pronta")
        FAILED = "failed", _("non riuscita")

    game = models.OneToOneField(
        "games.Game",
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("partita"),
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("chiesta da"),
    )
    state = models.CharField(_("stato"), max_length=8, choices=State.choices, default=State.QUEUED)
    # What did it: "stockfish" with its node budget per position (RULES 14.2), or the draughts
    # tactical check (RULES 14, its own points).
    engine = models.CharField(_("motore"), max_length=40, blank=True, default="")
    nodes = models.PositiveIntegerField(_("nodi per posizione"), default=0)
    # One entry per position, the start first: {"cp", "mate", "best": [UCI…], "best_text"};
    # then one per move (from ply 1): {"mark", "drop", "accuracy"}. Written once, when done.
    positions = models.JSONField(_("valutazioni"), default=list, blank=True)
    moves = models.JSONField(_("giudizi delle mosse"), default=list, blank=True)
    white_accuracy = models.FloatField(_("precisione del bianco"), null=True, blank=True)
    black_accuracy = models.FloatField(_("precisione del nero"), null=True, blank=True)
    # Positions evaluated so far, for the page while it runs.
    done = models.PositiveIntegerField(_("posizioni valutate"), default=0)
    total = models.PositiveIntegerField(_("posizioni"), default=0)
    error = models.CharField(_("errore"), max_length=200, blank=True, default="")
    requested_at = models.DateTimeField(_("chiesta il"))
    started_at = models.DateTimeField(_("iniziata il"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finita il"), null=True, blank=True)

    class Meta:
        verbose_name = _("analisi al computer")
        verbose_name_plural = _("analisi al computer")

    def __str__(self) -> str:
        return f"analysis of game {self.game_id} ({self.state})"


class AnalysisRequest(models.Model):
    """A player asked for a game's analysis: what ANALYSIS_DAILY counts (RULES 14.6). A request
    answered from an analysis already there, or whose analysis failed, does not count."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("giocatore"),
    )
    analysis = models.ForeignKey(
        GameAnalysis,
        on_delete=models.CASCADE,
        related_name="requests",
        verbose_name=_("analisi"),
    )
    asked_at = models.DateTimeField(_("chiesta il"))
    counted = models.BooleanField(_("conta nel limite del giorno"), default=True)

    class Meta:
        verbose_name = _("richiesta di analisi")
        verbose_name_plural = _("richieste di analisi")
        indexes = [models.Index(fields=["player", "asked_at"])]

    def __str__(self) -> str:
        return f"request of {self.player_id} for analysis {self.analysis_id}"
