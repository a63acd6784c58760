from django.contrib import admin

from mail.models import Mail


@admin.register(Mail)
class MailAdmin(admin.ModelAdmin):
    """What was sent to whom, and what failed: read only (the outbox is written by the site)."""

    list_display = ("created_at", "user", "reason", "to", "status", "attempts", "failed_at")
    list_filter = ("status", "reason")
    search_fields = ("user__username", "to")
    raw_id_fields = ("user",)
    exclude = ("data",)  # a reset link not yet sent is a key to the account
    readonly_fields = [f.name for f in Mail._meta.fields if f.name != "data"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
