"""Stored ratings (RULES 7.1): one rating per (player, variant, cadence) and its history.

The history is a ledger: every change a rating ever received is one `RatingChange`, grouped by
the `RatingPeriod` (a game or a tournament) that caused it. A rating row is always the initial
rating plus the sum of its changes, which is what the admin's recompute action restores.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.models import Variant  # the one list of variants (RULES 2); re-exported
from games.rules.timecontrol import Cadence
from ratings.elo_italia import Category, category


def initial_rating() -> int:
    """RULES 7.1 Decision: a new player starts at 1500 (setting RATING_INITIAL)."""
    return settings.RATING_INITIAL


class CadenceChoice(models.TextChoices):
    """Django labels for games.rules.timecontrol.Cadence (the same codes)."""

    BULLET = Cadence.BULLET.value, _("Bullet")
    BLITZ = Cadence.BLITZ.value, _("Lampo")
    RAPID = Cadence.RAPID.value, _("Rapido")
    CLASSICAL = Cadence.CLASSICAL.value, _("Classica")


# REI art. 8 names, translatable (the pure module keeps the Italian ones for the CLI).
CATEGORY_LABELS: dict[Category, str] = {
    Category.INTERNATIONAL_MASTER: _("Maestro Internazionale"),
    Category.MASTER: _("Maestro"),
    Category.CANDIDATE_MASTER: _("Candidato Maestro"),
    Category.FIRST_NATIONAL: _("Prima Nazionale"),
    Category.SECOND_NATIONAL: _("Seconda Nazionale"),
    Category.THIRD_NATIONAL: _("Terza Nazionale"),
    Category.FIRST_SOCIAL: _("Prima Sociale"),
    Category.LOWER: _("Categorie Inferiori"),
}


class Rating(models.Model):
    """A player's current rating in one variant and cadence. Written only by ratings.services,
    always under `select_for_update` (see the locking contract there)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="ratings",
        verbose_name=_("giocatore"),
    )
    variant = models.CharField(_("variante"), max_length=20, choices=Variant.choices)
    cadence = models.CharField(_("cadenza"), max_length=20, choices=CadenceChoice.choices)
    value = models.IntegerField(_("punteggio"), default=initial_rating)
    games = models.PositiveIntegerField(_("partite valutate"), default=0)
    peak = models.IntegerField(_("massimo"), default=initial_rating)
    last_change = models.IntegerField(_("ultima variazione"), default=0)
    updated_at = models.DateTimeField(_("aggiornato"), auto_now=True)

    class Meta:
        verbose_name = _("punteggio Elo")
        verbose_name_plural = _("punteggi Elo")
        constraints = [
            models.UniqueConstraint(
                fields=["player", "variant", "cadence"], name="ratings_rating_one_per_pool"
            ),
        ]
        indexes = [
            # Leaderboards: one variant and cadence, best first.
            models.Index(
                fields=["variant", "cadence", "-value"], name="ratings_rating_leaderboard"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} · {self.get_variant_display()} {self.get_cadence_display()}"

    @property
    def category(self) -> Category:
        return category(self.value)

    @property
    def category_label(self) -> str:
        return str(CATEGORY_LABELS[self.category])


class RatingPeriod(models.Model):
    """One rated event: a single game (challenge or arena) or a whole tournament.

    The unique source is the idempotency key: an event can be rated once, ever (RULES 7.1).
    `source_id` is the game's or tournament's primary key; it becomes a real foreign key when
    those models exist.
    """

    class Kind(models.TextChoices):
        GAME = "game", _("partita")
        TOURNAMENT = "tournament", _("torneo")

    kind = models.CharField(_("tipo"), max_length=20, choices=Kind.choices)
    source_id = models.PositiveBigIntegerField(_("id dell'evento"))
    variant = models.CharField(_("variante"), max_length=20, choices=Variant.choices)
    cadence = models.CharField(_("cadenza"), max_length=20, choices=CadenceChoice.choices)
    rated_at = models.DateTimeField(_("valutato il"), auto_now_add=True)

    class Meta:
        verbose_name = _("periodo di valutazione")
        verbose_name_plural = _("periodi di valutazione")
        ordering = ["-rated_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "source_id"], name="ratings_period_once"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.source_id}"


class RatingChange(models.Model):
    """One line of a rating's history: what one period did to it (REI C, D and art. 11)."""

    period = models.ForeignKey(
        RatingPeriod, on_delete=models.PROTECT, related_name="changes", verbose_name=_("periodo")
    )
    rating = models.ForeignKey(
        Rating, on_delete=models.CASCADE, related_name="history", verbose_name=_("punteggio")
    )
    before = models.IntegerField(_("prima"))
    after = models.IntegerField(_("dopo"))
    # REI art. 4: the rating the period was reckoned at, held fixed from its start (a
    # tournament's first day, a game's opening); `before` is the rating the change was added to.
    # None in a line written before it was kept.
    held = models.IntegerField(_("punteggio del periodo"), null=True, blank=True)
    delta = models.IntegerField(_("variazione"))
    games = models.PositiveSmallIntegerField(_("partite"))
    score = models.DecimalField(_("punti (P)"), max_digits=6, decimal_places=1)
    expected = models.DecimalField(_("punti attesi (PA)"), max_digits=6, decimal_places=1)
    k = models.PositiveSmallIntegerField(_("K"))
    first_protected = models.BooleanField(
        _("art. 11"),
        default=False,
        help_text=_("Primo classificato: la variazione negativa non è stata applicata."),
    )
    created_at = models.DateTimeField(_("data"), auto_now_add=True)

    class Meta:
        verbose_name = _("variazione di punteggio")
        verbose_name_plural = _("storico dei punteggi")
        ordering = ["created_at", "id"]
        constraints = [
            # Idempotency, enforced by the database: a period changes a rating at most once.
            models.UniqueConstraint(fields=["period", "rating"], name="ratings_change_once"),
        ]

    def __str__(self) -> str:
        return f"{self.rating}: {self.before} → {self.after}"
