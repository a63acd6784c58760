"""Staff see over-the-board tournaments here (RULES 13): the tournament with its players and
rounds, each round with its boards, results and record, the players with their requested
byes. Read mostly: the arbiter's table decides pairings, numbers and results (a pairing changed
here would bypass the checker and the round's record, RULES 13.6, 13.8), so staff may only
correct what the organizer typed as text (a name, the venue, the time control). Nothing is
added or deleted here: a board's players are protected rows, and a tournament's history stays."""

from __future__ import annotations

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from events.admin import ReadOnlyAdmin, read_only_inline
from otb import services
from otb.models import FormatChoice, OtbBoard, OtbBye, OtbPlayer, OtbRound, OtbTournament

PLAYER_FIELDS = [
    "number",
    "last_name",
    "first_name",
    "club",
    "national_rating",
    "fide_rating",
    "user",
    "entered_round",
    "withdrawn_from",
]


class RoundInline(read_only_inline(OtbRound, fields=["number", "status", "paired_at"])):
    show_change_link = True  # the round's page: its boards, results and record


class PlayerInline(read_only_inline(OtbPlayer, fields=PLAYER_FIELDS)):
    show_change_link = True


@admin.register(OtbTournament)
class OtbTournamentAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il torneo a tavolino"), _("un altro torneo a tavolino"))
    list_display = [
        "name",
        "variant",
        "cadence",
        "format_decided",
        "status",
        "starts_on",
        "organizer",
    ]
    list_filter = ["status", "variant", "cadence", "format"]
    search_fields = ["name", "venue", "organizer__username"]
    date_hierarchy = "starts_on"
    # What the organizer typed as text staff may correct; the rest is the table's (RULES 13).
    editable = ("name", "venue", "time_control")
    inlines = [RoundInline, PlayerInline]

    def save_model(self, request, obj, form, change) -> None:
        """Only the corrected columns, under the tournament's lock (Django's own save would
        write back a status and version read before an arbiter's change), its pages told."""
        services.tournament_corrected(
            tournament_id=obj.pk,
            by=request.user,
            fields={name: form.cleaned_data[name] for name in self.editable},
        )

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        shown = []
        for f in self.model._meta.fields:
            if f.primary_key or f.name in self.editable:
                continue
            shown.append("format_decided" if f.name == "format" else f.name)
        return [*shown, "arbiters"]

    def get_fields(self, request, obj=None) -> list[str]:
        return [*self.editable, *self.get_readonly_fields(request, obj)]

    @admin.display(description=_("formula decisa"), ordering="format")
    def format_decided(self, obj: OtbTournament) -> str:
        return FormatChoice(obj.format).label if obj.format else "–"

    def has_add_permission(self, request) -> bool:
        return False  # opened by its organizer (otb.services.otb_create)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(OtbPlayer)
class OtbPlayerAdmin(ReadOnlyAdmin):
    noun = Noun(MASCULINE, _("il giocatore a tavolino"), _("un altro giocatore a tavolino"))
    list_display = ["name", "tournament", "number", "club", "national_rating", "fide_rating"]
    list_select_related = ["tournament"]
    list_filter = ["tournament__status", "tournament__variant"]
    search_fields = ["last_name", "first_name", "club", "fsi_card", "fid_card", "tournament__name"]
    inlines = [read_only_inline(OtbBye)]

    @admin.display(description=_("giocatore"), ordering="last_name")
    def name(self, obj: OtbPlayer) -> str:
        return obj.full_name

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(OtbRound)
class OtbRoundAdmin(ReadOnlyAdmin):
    noun = Noun(MASCULINE, _("il turno a tavolino"), _("un altro turno a tavolino"))
    list_display = ["tournament", "number", "status", "paired_at"]
    list_select_related = ["tournament"]
    list_filter = ["status", "tournament__variant"]
    search_fields = ["tournament__name"]
    inlines = [read_only_inline(OtbBoard, fields=["board", "white", "black", "result"])]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(OtbBoard)
class OtbBoardAdmin(ReadOnlyAdmin):
    """The results, searchable by player and tournament across rounds."""

    noun = Noun(FEMININE, _("la scacchiera a tavolino"), _("un'altra scacchiera a tavolino"))
    list_display = ["round", "board", "white", "black", "result"]
    list_select_related = ["round__tournament", "white", "black"]
    list_filter = ["result", "round__tournament__variant"]
    search_fields = ["round__tournament__name", "white__last_name", "black__last_name"]

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
