"""Staff see, edit, hide and dissolve clubs here (RULES 12.1); memberships and requests are
shown read only with their club (the services decide them)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from clubs import services
from clubs.models import Club, JoinRequest, Membership


class MembershipInline(admin.TabularInline):
    model = Membership
    fields = ["user", "role", "joined_at", "left_at", "end_reason", "chat_muted"]
    # Read only: the services decide memberships (an editable box in a tabular inline has no
    # label of its own either, axe's `label`).
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Club)
class ClubAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il circolo"), _("un altro circolo"))
    list_display = ["name", "short_name", "city", "province", "hidden", "dissolved_at"]
    list_filter = ["hidden", "province", ("dissolved_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "short_name", "city", "fsi_code", "fid_code"]
    readonly_fields = ["founded_by", "created_at", "dissolved_at"]
    inlines = [MembershipInline]
    actions = ["hide_clubs", "show_clubs", "dissolve_clubs"]

    def has_add_permission(self, request) -> bool:
        return False  # founded by a player, with its president (clubs.services.club_found)

    def has_delete_permission(self, request, obj=None) -> bool:
        return False  # dissolved, never deleted: its history stays

    @admin.action(description=_("Nascondi i circoli selezionati"))
    def hide_clubs(self, request, queryset) -> None:
        n = queryset.update(hidden=True)
        self.message_user(
            request, ngettext("%(n)d circolo nascosto.", "%(n)d circoli nascosti.", n) % {"n": n}
        )

    @admin.action(description=_("Mostra di nuovo i circoli selezionati"))
    def show_clubs(self, request, queryset) -> None:
        n = queryset.update(hidden=False)
        self.message_user(
            request, ngettext("%(n)d circolo mostrato.", "%(n)d circoli mostrati.", n) % {"n": n}
        )

    @admin.action(description=_("Sciogli i circoli selezionati"))
    def dissolve_clubs(self, request, queryset) -> None:
        done = 0
        for club in queryset.filter(dissolved_at__isnull=True):
            try:
                services.club_dissolve(club_id=club.pk, by=request.user, staff=True)
            except services.ClubError as error:
                self.message_user(request, f"{club.name}: {error.message}", messages.ERROR)
            else:
                done += 1
        if done:
            self.message_user(
                request,
                ngettext("%(n)d circolo sciolto.", "%(n)d circoli sciolti.", done) % {"n": done},
            )


@admin.register(Membership)
class MembershipAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("l'iscrizione al circolo"), _("un'altra iscrizione al circolo"))
    list_display = ["club", "user", "role", "joined_at", "left_at", "end_reason"]
    list_filter = ["role", "end_reason"]
    search_fields = ["club__name", "user__username"]
    readonly_fields = ["club", "user", "role", "joined_at", "left_at", "end_reason"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(JoinRequest)
class JoinRequestAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("la richiesta di iscrizione"), _("un'altra richiesta di iscrizione"))
    list_display = ["club", "user", "status", "created_at", "decided_at"]
    list_filter = ["status"]
    search_fields = ["club__name", "user__username"]
    readonly_fields = ["club", "user", "status", "created_at", "decided_at", "decided_by", "seen"]

    def has_add_permission(self, request) -> bool:
        return False
