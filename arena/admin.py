"""Staff manage arenas here (RULES 1): filters, the cancel action (live games drawn, nothing
rated), entries and games read only — the run decides them (RULES 8). What every kind's admin
shares is `events.admin`."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.admin_messages import FEMININE, MASCULINE, Noun
from arena import services
from arena.models import Arena, ArenaGame, BattleClub, Entry
from events.admin import EventAdmin, ReadOnlyAdmin, read_only_inline


@admin.register(Arena)
class ArenaAdmin(EventAdmin):
    noun = Noun(FEMININE, _("l'arena"), _("un'altra arena"))
    kind_columns = ["duration_minutes"]
    readonly_fields = [*EventAdmin.readonly_fields, "pairing_due_at"]
    # Each player's state and score, as the run keeps them (RULES 8).
    inlines = [
        read_only_inline(Entry, exclude=["entered_at", "waiting_since"]),
        read_only_inline(BattleClub),  # a club battle's clubs (RULES 12.7)
    ]
    actions = ["cancel_arenas"]
    cancel_event = staticmethod(services.arena_cancel)
    cancelled_note = ngettext_lazy("%(n)d arena annullata.", "%(n)d arene annullate.", "n")

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        if change:  # a moved start or end: into the tick's schedule, and the pages told
            services.arena_staff_saved(arena_id=obj.pk)

    @admin.action(description=_("Annulla le arene selezionate"))
    def cancel_arenas(self, request, queryset) -> None:
        self.cancel_selected(request, queryset)


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    noun = Noun(MASCULINE, _("il partecipante"), _("un altro partecipante"))
    list_display = ["arena", "player", "state", "points", "wins", "games", "rank"]
    list_filter = ["state", "arena__status", "arena__variant"]
    search_fields = ["arena__name", "player__username"]


@admin.register(ArenaGame)
class ArenaGameAdmin(ReadOnlyAdmin):
    noun = Noun(FEMININE, _("la partita dell'arena"), _("un'altra partita dell'arena"))
    list_display = ["arena", "game", "white", "black", "started_at", "ended_at"]
    list_filter = ["arena__status", "arena__variant"]
    search_fields = ["arena__name", "white__player__username", "black__player__username"]
