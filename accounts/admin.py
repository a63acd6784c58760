import secrets

from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from accounts.models import SignupLink, User
from accounts.services import accounts_deactivated
from live import locks
from mail.models import Mail


@admin.register(User)
class PlayerAdmin(NamedModelAdmin, UserAdmin):
    noun = Noun(MASCULINE, _("il giocatore"), _("un altro giocatore"))
    list_display = (
        "username",
        "email",
        "email_verified",
        "is_bot",
        "is_active",
        "is_staff",
        "date_joined",
    )
    list_filter = ("is_bot", "is_active", "is_staff", "is_superuser", "date_joined")
    search_fields = ("username", "email")
    # Plain multiple selects with their labels: Django's two-box filter puts an aria-label on
    # a bare <span> (axe-core's `aria-prohibited-attr`, serious; issue 38).
    filter_horizontal = ()
    ordering = ("username",)
    fieldsets = (
        *UserAdmin.fieldsets,
        (_("Circolo"), {"fields": ("is_bot", "language", "deleted_at")}),
        (
            _("Posta"),
            {"fields": ("email_verified_at", "last_mail_failure", "remind_by_email")},
        ),
    )
    readonly_fields = ("deleted_at", "last_mail_failure")
    actions = ["mark_bot", "unmark_bot", "deactivate", "send_password_reset"]

    @admin.display(boolean=True, description=_("e-mail verificata"))
    def email_verified(self, obj) -> bool:
        return obj.email_verified

    @admin.display(description=_("ultima mail non consegnata"))
    def last_mail_failure(self, obj) -> str:
        from accounts.selectors import last_failed_mail

        failed = last_failed_mail(obj) if obj.pk else None
        if failed is None:
            return "—"
        return f"{date_format(timezone.localtime(failed.failed_at), 'DATETIME_FORMAT')} · {failed.last_error}"

    @admin.action(description=_("Manda una mail per reimpostare la password"))
    def send_password_reset(self, request, queryset):
        """The player's own "forgot password" mail, sent by the worker (mail/)."""
        from django.contrib.auth.tokens import default_token_generator
        from django.urls import reverse
        from django.utils.encoding import force_bytes
        from django.utils.http import urlsafe_base64_encode

        from accounts import emails

        sent = skipped = 0
        with locks.atomic():
            for user in queryset:
                # RULES 10.2: a reset goes only to a verified address.
                if not user.email_verified or not user.is_active or not user.has_usable_password():
                    skipped += 1
                    continue
                path = reverse(
                    "accounts:password_reset_confirm",
                    kwargs={
                        "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
                        "token": default_token_generator.make_token(user),
                    },
                )
                emails.reset_mail_queue(
                    user, reset_path=path, request_key=f"staff {secrets.token_hex(8)}"
                )
                sent += 1
        self.message_user(
            request,
            ngettext("%d mail in partenza.", "%d mail in partenza.", sent) % sent,
            messages.SUCCESS,
        )
        if skipped:
            self.message_user(
                request,
                ngettext(
                    "%d account senza indirizzo confermato, disattivato o senza password: "
                    "nessuna mail.",
                    "%d account senza indirizzo confermato, disattivati o senza password: "
                    "nessuna mail.",
                    skipped,
                )
                % skipped,
                messages.WARNING,
            )

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

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change and "is_active" in form.changed_data and not obj.is_active:
            accounts_deactivated(user_ids=[obj.pk])  # their open pages' sockets close

    @admin.action(description=_("Disattiva gli account scelti"))
    def deactivate(self, request, queryset):
        chosen = queryset.exclude(pk=request.user.pk)
        user_ids = list(chosen.filter(is_active=True).values_list("pk", flat=True))
        count = chosen.update(is_active=False)
        accounts_deactivated(user_ids=user_ids)  # their open pages' sockets close
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


@admin.register(Mail)
class MailAdmin(NamedModelAdmin, admin.ModelAdmin):
    """What was sent to whom, and what failed (mail/): read only, the outbox is the site's."""

    noun = Noun(FEMININE, _("la mail"), _("un'altra mail"))
    list_display = ("created_at", "user", "reason", "to", "status", "attempts", "failed_at")
    list_filter = ("status", "reason")
    search_fields = ("user__username", "to")
    raw_id_fields = ("user",)
    exclude = ("context",)  # a reset link not yet sent is a key to the account
    readonly_fields = [f.name for f in Mail._meta.fields if f.name != "context"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(SignupLink)
class SignupLinkAdmin(NamedModelAdmin, admin.ModelAdmin):
    """The players' sign-up links (RULES 10.6): who made them, how far they are used; staff
    may revoke them."""

    noun = Noun(MASCULINE, _("il link di iscrizione"), _("un altro link di iscrizione"))
    list_display = ("maker", "uses", "uses_limit", "created_at", "expires_at", "revoked_at")
    list_filter = ("revoked_at", "expires_at")
    search_fields = ("maker__username",)
    raw_id_fields = ("maker",)
    exclude = ("token",)  # the link itself lets people in: the maker hands it out, not staff
    readonly_fields = ("maker", "uses", "created_at", "purpose", "target_id")
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    @admin.action(description=_("Revoca i link scelti"))
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at=None).update(revoked_at=timezone.now())
        self.message_user(
            request,
            ngettext("%d link revocato.", "%d link revocati.", count) % count,
            messages.SUCCESS,
        )
