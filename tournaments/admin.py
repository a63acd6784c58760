from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from tournaments import services
from tournaments.models import Registration, Tournament


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    raw_id_fields = ["player"]
    readonly_fields = ["joined_at"]


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "variant",
        "cadence",
        "starts_at",
        "status",
        "rated",
        "floor",
        "seats",
        "opened_by",
    ]
    list_filter = ["status", "variant", "cadence", "rated", "opening_mode", "double_games"]
    search_fields = ["name", "opened_by__username"]
    date_hierarchy = "starts_at"
    raw_id_fields = ["opened_by"]
    readonly_fields = ["created_at", "cancelled_at", "cadence", "password_hash", "invite_token"]
    inlines = [RegistrationInline]
    actions = ["cancel_tournaments"]

    @admin.action(description=_("Annulla i tornei selezionati"))
    def cancel_tournaments(self, request, queryset):
        done = 0
        for tournament in queryset:
            try:
                services.tournament_cancel(tournament_id=tournament.pk, by=request.user, staff=True)
                done += 1
            except services.TournamentError as error:
                self.message_user(request, f"{tournament}: {error.message}", messages.WARNING)
        self.message_user(
            request,
            ngettext("%(n)d torneo annullato.", "%(n)d tornei annullati.", done) % {"n": done},
        )


@admin.register(Registration)
class RegistrationAdmin(admin.ModelAdmin):
    list_display = ["tournament", "player", "joined_at"]
    list_filter = ["tournament__status", "tournament__variant"]
    search_fields = ["tournament__name", "player__username"]
    raw_id_fields = ["tournament", "player"]
