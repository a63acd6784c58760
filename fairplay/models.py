"""What fair play keeps (RULES §15): the focus lost during one's own turn, and the staff's
marks on a player of an event."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Game


class FocusLoss(models.Model):
    """A player's page lost the focus during their own turn (RULES 15.2): one row per turn at
    most (unique on game, player and ply), so a page that reports a hundred times in one turn
    stores one row, and a game stores at most one row per move played."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="+", verbose_name=_("partita")
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("giocatore"),
    )
    ply = models.PositiveIntegerField(_("semimossa"))
    at = models.DateTimeField(_("quando"), auto_now_add=True)

    class Meta:
        verbose_name = _("perdita del focus")
        verbose_name_plural = _("perdite del focus")
        constraints = [
            models.UniqueConstraint(fields=["game", "player", "ply"], name="focus_loss_once"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} @ {self.game_id}:{self.ply}"


class Review(models.Model):
    """The staff's mark on a player of one event (RULES 15.4): "under review" ("in verifica"),
    shown beside the player's name on the event's standings. The event is named by its kind's
    code (`events.kinds`) and id, as the reminders do."""

    kind = models.CharField(_("tipo di evento"), max_length=20)
    event_id = models.PositiveBigIntegerField(_("evento"))
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        verbose_name=_("giocatore"),
    )
    under_review = models.BooleanField(_("in verifica"), default=False)
    # RULES 15.5: when the staff annulled the player's results in the event (the kind did it).
    annulled_at = models.DateTimeField(_("risultati annullati il"), null=True, blank=True)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("cambiato da"),
    )
    changed_at = models.DateTimeField(_("cambiato il"), auto_now=True)

    class Meta:
        verbose_name = _("verifica")
        verbose_name_plural = _("verifiche")
        constraints = [
            models.UniqueConstraint(fields=["kind", "event_id", "player"], name="review_once"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.event_id}: {self.player_id}"
