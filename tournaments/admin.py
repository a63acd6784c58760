from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from tournaments import services
from tournaments.models import Pairing, Participant, Registration, Round, Tournament


class RegistrationInline(admin.TabularInline):
    model = Registration
    extra = 0
    raw_id_fields = ["player"]
    readonly_fields = ["joined_at"]


class ParticipantInline(admin.TabularInline):
    """Read only: numbers, start ratings and the final standings belong to the run."""

    model = Participant
    extra = 0
    can_delete = False
    fields = readonly_fields = [
        "number",
        "player",
        "start_rating",
        "rank",
        "points",
        "buchholz_cut1",
        "sonneborn_berger",
        "wins",
    ]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


class PairingInline(admin.TabularInline):
    model = Pairing
    extra = 0
    can_delete = False
    fields = readonly_fields = [
        "board",
        "white",
        "black",
        "white_forfeit",
        "black_forfeit",
        "game1",
        "game2",
        "white_points1",
        "black_points1",
        "white_points2",
        "black_points2",
        "done",
    ]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Round)
class RoundAdmin(NamedModelAdmin, admin.ModelAdmin):
    """Read only (RULES 4.8: nothing is ever started or changed by hand)."""

    noun = Noun(MASCULINE, _("il turno"), _("un altro turno"))
    list_display = ["tournament", "number", "opening_number", "started_at", "ended_at"]
    list_filter = ["tournament__status"]
    search_fields = ["tournament__name"]
    readonly_fields = [f.name for f in Round._meta.fields]
    inlines = [PairingInline]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il torneo"), _("un altro torneo"))
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
    readonly_fields = [
        "created_at",
        "cancelled_at",
        "cadence",
        "password_hash",
        "invite_token",
        # Fixed by the run (issue 8); nobody changes them by hand (RULES 4.8).
        "format",
        "total_rounds",
        "legs",
        "first_colour",
        "seed",
        "started_at",
        "announced_end",
        "current_round",
        "finished_at",
        "end_reason",
        "next_due_at",
    ]
    inlines = [RegistrationInline, ParticipantInline]
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
class RegistrationAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("l'iscrizione"), _("un'altra iscrizione"))
    list_display = ["tournament", "player", "joined_at"]
    list_filter = ["tournament__status", "tournament__variant"]
    search_fields = ["tournament__name", "player__username"]
    raw_id_fields = ["tournament", "player"]
