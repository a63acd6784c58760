"""Staff manage team matches here (RULES 1, 16): filters, the cancel action (live games drawn,
not rated), line-ups and boards read only — the captains and the run decide them. What every
kind's admin shares is `events.admin`."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from accounts.admin_messages import MASCULINE, NamedModelAdmin, Noun
from events.admin import EventAdmin, read_only_inline
from events.services import EventError
from teams import leagues, services
from teams.models import Board, League, LeagueRound, LeagueTeam, Lineup, TeamMatch


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


@admin.register(League)
class LeagueAdmin(NamedModelAdmin, admin.ModelAdmin):
    """Staff read a league (RULES 16.8) and cancel it; its organizer and the clubs' officers
    run it from its pages. The staff correct its name and description only."""

    noun = Noun(MASCULINE, _("il campionato a squadre"), _("un altro campionato a squadre"))
    list_display = ["name", "season", "status", "system", "first_round_at", "opened_by"]
    list_filter = ["status", "system", "variant"]
    search_fields = ["name", "season"]
    raw_id_fields = ["opened_by"]
    inlines = [
        read_only_inline(LeagueTeam, fields=["club", "name", "number", "seeding", "withdrawn_at"]),
        read_only_inline(LeagueRound, fields=["number", "starts_at", "paired_at", "bye_team"]),
    ]
    actions = ["cancel_leagues"]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        editable = {"name", "description"}  # the season is the rosters' too
        return [f.name for f in League._meta.fields if f.name not in editable]

    def has_add_permission(self, request) -> bool:
        return False  # opened by a club's officer, through its form (RULES 16.8)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # cancelled, never deleted: its games and ratings stay

    @admin.action(description=_("Annulla i campionati selezionati"))
    def cancel_leagues(self, request, queryset) -> None:
        done = 0
        for found in queryset:
            try:
                leagues.league_cancel(league_id=found.pk, by=request.user, staff=True)
                done += 1
            except EventError as error:
                self.message_user(request, f"{found}: {error.message}", messages.WARNING)
        self.message_user(
            request,
            ngettext_lazy("%(n)d campionato annullato.", "%(n)d campionati annullati.", "n")
            % {"n": done},
        )
