"""Admin for ratings: ratings and their history are read-only; the ledger is the
truth, and the one staff action rebuilds a player's ratings from it."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from ratings.models import Rating, RatingChange, RatingPeriod
from ratings.services import player_ratings_recompute

CHANGE_FIELDS = (
    "period",
    "rating",
    "held",
    "before",
    "after",
    "delta",
    "games",
    "score",
    "expected",
    "k",
    "first_protected",
    "created_at",
)


class ReadOnlyMixin:
    """History is written only by ratings.services (RULES 7.1): nobody edits it by hand."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class RatingChangeInline(ReadOnlyMixin, admin.TabularInline):
    model = RatingChange
    fields = CHANGE_FIELDS
    readonly_fields = CHANGE_FIELDS
    extra = 0
    ordering = ("created_at", "id")
    show_change_link = True


class HistoryOfRatingInline(RatingChangeInline):
    fk_name = "rating"


class HistoryOfPeriodInline(RatingChangeInline):
    fk_name = "period"


@admin.register(Rating)
class RatingAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il punteggio Elo"), _("un altro punteggio Elo"))
    list_display = (
        "player",
        "variant",
        "cadence",
        "value",
        "category_name",
        "games",
        "peak",
        "last_change",
        "updated_at",
    )
    list_filter = ("variant", "cadence")
    search_fields = ("player__username",)
    list_select_related = ("player",)
    ordering = ("variant", "cadence", "-value")
    readonly_fields = (
        "player",
        "variant",
        "cadence",
        "value",
        "games",
        "peak",
        "last_change",
        "updated_at",
    )
    inlines = [HistoryOfRatingInline]
    actions = ["recompute_from_history"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # a rating appears with its first rated game

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False  # deleting would cut the history the ledger is built on

    @admin.display(description=_("categoria"))
    def category_name(self, obj: Rating) -> str:
        return obj.category_label

    @admin.action(description=_("Ricalcola i punteggi dei giocatori dallo storico"))
    def recompute_from_history(self, request: HttpRequest, queryset: QuerySet[Rating]) -> None:
        player_ids = sorted(set(queryset.values_list("player_id", flat=True)))
        for player_id in player_ids:
            player_ratings_recompute(player_id=player_id)
        self.message_user(
            request,
            ngettext(
                "Punteggi ricalcolati dallo storico per %(count)d giocatore.",
                "Punteggi ricalcolati dallo storico per %(count)d giocatori.",
                len(player_ids),
            )
            % {"count": len(player_ids)},
            messages.SUCCESS,
        )


@admin.register(RatingPeriod)
class RatingPeriodAdmin(NamedModelAdmin, ReadOnlyMixin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il periodo di valutazione"), _("un altro periodo di valutazione"))
    list_display = ("__str__", "kind", "source_id", "variant", "cadence", "rated_at")
    list_filter = ("kind", "variant", "cadence")
    search_fields = ("source_id",)
    readonly_fields = ("kind", "source_id", "variant", "cadence", "rated_at")
    inlines = [HistoryOfPeriodInline]


@admin.register(RatingChange)
class RatingChangeAdmin(NamedModelAdmin, ReadOnlyMixin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("la variazione di punteggio"), _("un'altra variazione di punteggio"))
    list_display = ("rating", "period", "before", "after", "delta", "games", "created_at")
    list_filter = ("rating__variant", "rating__cadence", "period__kind", "first_protected")
    search_fields = ("rating__player__username",)
    list_select_related = ("rating__player", "period")
    readonly_fields = CHANGE_FIELDS
