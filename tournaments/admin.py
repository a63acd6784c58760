"""Staff manage tournaments here (RULES 1): filters, registrations, the cancel action (live
games drawn, nothing rated); rounds, pairings and standings read only, as the run decides them
(RULES 4.8). What every kind's admin shares is `events.admin`."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.admin_labels import LabelledInlineFormSet
from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from events.admin import EventAdmin, ReadOnlyAdmin, read_only_inline
from tournaments import services
from tournaments.models import Pairing, Participant, Registration, Round, Tournament


class RegistrationInline(admin.TabularInline):
    model = Registration
    formset = LabelledInlineFormSet
    extra = 0
    raw_id_fields = ["player"]
    readonly_fields = ["joined_at"]


# Numbers, start ratings and the final standings belong to the run (RULES 4.3, 4.10).
PARTICIPANT_FIELDS = [
    "number",
    "player",
    "start_rating",
    "rank",
    "points",
    "buchholz_cut1",
    "sonneborn_berger",
    "wins",
]


@admin.register(Round)
class RoundAdmin(ReadOnlyAdmin):
    noun = Noun(MASCULINE, _("il turno"), _("un altro turno"))
    list_display = ["tournament", "number", "opening_number", "started_at", "ended_at"]
    list_filter = ["tournament__status"]
    search_fields = ["tournament__name"]
    inlines = [read_only_inline(Pairing, exclude=["played1", "played2"])]


@admin.register(Tournament)
class TournamentAdmin(EventAdmin):
    noun = Noun(MASCULINE, _("il torneo"), _("un altro torneo"))
    kind_columns = ["seats"]
    list_filter = [*EventAdmin.list_filter, "double_games"]
    # Fixed by the run at the start; nobody changes them by hand (RULES 4.8).
    readonly_fields = [
        *EventAdmin.readonly_fields,
        "format",
        "total_rounds",
        "legs",
        "first_colour",
        "announced_end",
        "current_round",
    ]
    inlines = [RegistrationInline, read_only_inline(Participant, fields=PARTICIPANT_FIELDS)]
    actions = ["cancel_tournaments"]
    cancel_event = staticmethod(services.tournament_cancel)
    cancelled_note = ngettext_lazy("%(n)d torneo annullato.", "%(n)d tornei annullati.", "n")

    @admin.action(description=_("Annulla i tornei selezionati"))
    def cancel_tournaments(self, request, queryset) -> None:
        self.cancel_selected(request, queryset)


@admin.register(Registration)
class RegistrationAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("l'iscrizione"), _("un'altra iscrizione"))
    list_display = ["tournament", "player", "joined_at"]
    list_filter = ["tournament__status", "tournament__variant"]
    search_fields = ["tournament__name", "player__username"]
    raw_id_fields = ["tournament", "player"]
