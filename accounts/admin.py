from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin_messages import MASCULINE, NamedModelAdmin, Noun
from accounts.models import User


@admin.register(User)
class PlayerAdmin(NamedModelAdmin, UserAdmin):
    noun = Noun(MASCULINE, _("il giocatore"), _("un altro giocatore"))
    list_display = ("username", "email", "is_bot", "is_active", "is_staff", "date_joined")
    list_filter = ("is_bot", "is_active", "is_staff", "is_superuser", "date_joined")
    search_fields = ("username", "email")
    ordering = ("username",)
    fieldsets = (*UserAdmin.fieldsets, (_("Circolo"), {"fields": ("is_bot",)}))
    actions = ["mark_bot", "unmark_bot", "deactivate"]

    @admin.action(description=_("Segna come bot"))
    def mark_bot(self, request, queryset):
        count = queryset.update(is_bot=True)
        self.message_user(
            request,
            ngettext("%d account segnato come bot.", "%d account segnati come bot.", count) % count,
        )

    @admin.action(description=_("Togli il segno di bot"))
    def unmark_bot(self, request, queryset):
        count = queryset.update(is_bot=False)
        self.message_user(
            request,
            ngettext("%d account non è più bot.", "%d account non sono più bot.", count) % count,
        )

    @admin.action(description=_("Disattiva gli account scelti"))
    def deactivate(self, request, queryset):
        count = queryset.exclude(pk=request.user.pk).update(is_active=False)
        self.message_user(
            request,
            ngettext("%d account disattivato.", "%d account disattivati.", count) % count,
            messages.SUCCESS,
        )


# Django's own group admin, with its noun for the saved messages (accounts/admin_messages.py).
admin.site.unregister(Group)


@admin.register(Group)
class StaffGroupAdmin(NamedModelAdmin, GroupAdmin):
    noun = Noun(MASCULINE, _("il gruppo"), _("un altro gruppo"))
