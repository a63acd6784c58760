"""Staff manage arenas here (RULES 1): filters, the cancel action (live games drawn, nothing
rated), entries and games read only — the run decides them (RULES 8)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from arena import services
from arena.models import Arena, ArenaGame, Entry


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    can_delete = False
    fields = readonly_fields = [
        "player",
        "state",
        "pause_reason",
        "points",
        "wins",
        "games",
        "on_streak",
        "rank",
    ]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Arena)
class ArenaAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("l'arena"), _("un'altra arena"))
    list_display = [
        "name",
        "variant",
        "cadence",
        "starts_at",
        "duration_minutes",
        "status",
        "rated",
        "floor",
        "opened_by",
    ]
    list_filter = ["status", "variant", "cadence", "rated", "opening_mode"]
    search_fields = ["name", "opened_by__username"]
    date_hierarchy = "starts_at"
    raw_id_fields = ["opened_by"]
    readonly_fields = [
        "created_at",
        "cancelled_at",
        "cadence",
        "password_hash",
        "invite_token",
        "seed",
        "started_at",
        "finished_at",
        "end_reason",
        "pairing_due_at",
        "next_due_at",
    ]
    inlines = [EntryInline]
    actions = ["cancel_arenas"]

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change:  # a moved start or end: into the schedule, and the pages told (issue 25.8)
            services.arena_staff_saved(arena_id=obj.pk)

    @admin.action(description=_("Annulla le arene selezionate"))
    def cancel_arenas(self, request, queryset):
        done = 0
        for arena in queryset:
            try:
                services.arena_cancel(arena_id=arena.pk, by=request.user, staff=True)
                done += 1
            except services.ArenaError as error:
                self.message_user(request, f"{arena}: {error.message}", messages.WARNING)
        self.message_user(
            request,
            ngettext("%(n)d arena annullata.", "%(n)d arene annullate.", done) % {"n": done},
        )


@admin.register(Entry)
class EntryAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il partecipante"), _("un altro partecipante"))
    list_display = ["arena", "player", "state", "points", "wins", "games", "rank"]
    list_filter = ["state", "arena__status", "arena__variant"]
    search_fields = ["arena__name", "player__username"]
    readonly_fields = [f.name for f in Entry._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ArenaGame)
class ArenaGameAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("la partita dell'arena"), _("un'altra partita dell'arena"))
    list_display = ["arena", "game", "white", "black", "started_at", "ended_at"]
    list_filter = ["arena__status", "arena__variant"]
    search_fields = ["arena__name", "white__player__username", "black__player__username"]
    readonly_fields = [f.name for f in ArenaGame._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
