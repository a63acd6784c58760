"""Staff manage team matches here (RULES 1, 16): filters, the cancel action (live games drawn,
not rated), line-ups and boards read only — the captains and the run decide them. What every
kind's admin shares is `events.admin`."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.admin_messages import MASCULINE, Noun
from events.admin import EventAdmin, read_only_inline
from teams import services
from teams.models import Board, Lineup, TeamMatch


@admin.register(TeamMatch)
class TeamMatchAdmin(EventAdmin):
    noun = Noun(MASCULINE, _("l'incontro a squadre"), _("un altro incontro a squadre"))
    kind_columns = ["first_club", "second_club", "boards"]
    raw_id_fields = [*EventAdmin.raw_id_fields, "first_club", "second_club"]
    # A match keeps no end reason (it ends when its boards are done, RULES 16.5).
    readonly_fields = [
        *(f for f in EventAdmin.readonly_fields if f != "end_reason"),
        "opening_number",
        "opening_moves",
        "start_fen",
        "first_points",
        "second_points",
        "first_match_points",
        "second_match_points",
        "version",
    ]
    inlines = [
        read_only_inline(Lineup),
        read_only_inline(Board, exclude=["game1", "game2"]),
    ]
    actions = ["cancel_matches"]
    cancel_event = staticmethod(services.match_cancel)
    cancelled_note = ngettext_lazy(
        "%(n)d incontro a squadre annullato.", "%(n)d incontri a squadre annullati.", "n"
    )

    @admin.action(description=_("Annulla gli incontri selezionati"))
    def cancel_matches(self, request, queryset) -> None:
        self.cancel_selected(request, queryset)
