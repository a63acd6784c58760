"""The staff's view of the computer analyses (RULES 14): each game's analysis with its state,
who asked and when, when it ran, and why it failed; the requests made for it. Read only:
`analysis.services` alone writes these rows (a request queues, the worker's run writes), and
a failed analysis is asked for again from the game's page."""

from __future__ import annotations

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from accounts.admin_messages import FEMININE, NamedModelAdmin, Noun
from analysis.models import AnalysisRequest, GameAnalysis


class ReadOnly:
    """Shown, never added, changed or deleted here."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


class AnalysisRequestInline(ReadOnly, admin.TabularInline):
    model = AnalysisRequest
    fields = ["player", "asked_at", "counted"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(GameAnalysis)
class GameAnalysisAdmin(ReadOnly, NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("l'analisi al computer"), _("un'altra analisi al computer"))
    list_display = [
        "game",
        "state",
        "engine",
        "requested_by",
        "requested_at",
        "started_at",
        "finished_at",
        "error",
    ]
    list_filter = ["state", "engine"]
    list_select_related = ["game__white", "game__black", "requested_by"]
    search_fields = ["=game__id", "requested_by__username", "game__white__username"]
    date_hierarchy = "requested_at"
    fields = [
        "game",
        "board",
        "state",
        "engine",
        "nodes",
        "requested_by",
        "requested_at",
        "started_at",
        "finished_at",
        "done",
        "total",
        "white_accuracy",
        "black_accuracy",
        "error",
    ]
    readonly_fields = fields
    inlines = [AnalysisRequestInline]

    @admin.display(description=_("scacchiera d'analisi"))
    def board(self, analysis: GameAnalysis) -> str:
        url = reverse("games:analysis", args=[analysis.game_id])
        return format_html('<a href="{}">{}</a>', url, _("Apri l'analisi della partita"))
