"""What the admin of every kind of event shares: staff manage events here (RULES 1). A kind's
admin extends `EventAdmin` with its noun, its own columns and read-only fields, and names its
cancel action; the rows its run writes are shown read only (`read_only_inline`, `ReadOnlyAdmin`),
as nothing of a run is started or changed by hand (RULES 4.8, 8). This module registers no
model and imports no kind (STYLE 6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from django.contrib import admin, messages
from django.utils import timezone

from accounts.admin_messages import NamedModelAdmin
from events import reminders
from events.services import EventError


class ReadOnlyInline(admin.TabularInline):
    """Rows the run writes, on their event's (or round's) page: every field but the parent
    and `exclude`, in the model's order unless `fields` says otherwise; none added or removed."""

    extra = 0
    can_delete = False

    def get_fields(self, request, obj=None) -> list[str]:
        if self.fields:
            return list(self.fields)
        hidden = set(self.exclude or ())
        return [
            f.name
            for f in self.model._meta.fields
            if not f.primary_key
            and f.related_model is not self.parent_model
            and f.name not in hidden
        ]

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        return self.get_fields(request, obj)

    def has_add_permission(self, request, obj=None) -> bool:
        return False


def read_only_inline(model, *, exclude=(), fields=None) -> type[ReadOnlyInline]:
    """A `ReadOnlyInline` of `model`: its fields but `exclude`, or `fields` in that order."""
    attrs = {"model": model, "exclude": list(exclude), "fields": fields}
    return type(f"{model.__name__}Inline", (ReadOnlyInline,), attrs)


class ReadOnlyAdmin(NamedModelAdmin, admin.ModelAdmin):
    """A model the run writes: every field shown, nothing added or changed by hand."""

    def get_readonly_fields(self, request, obj=None) -> list[str]:
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class EventAdmin(NamedModelAdmin, admin.ModelAdmin):
    """One kind of event. The kind sets `noun` (accounts.admin_messages), `kind_columns` (shown
    after the start), its `inlines`, `cancel_event` (its service, called with
    `<model name>_id=`, `by=`, `staff=True`), `cancelled_note` (the count of cancelled ones,
    `ngettext_lazy(…, "n")`) and an action named for it that calls `cancel_selected`."""

    kind_columns: ClassVar[list[str]] = []
    list_filter = ["status", "variant", "cadence", "rated", "opening_mode"]
    search_fields = ["name", "opened_by__username"]
    date_hierarchy = "starts_at"
    raw_id_fields = ["opened_by"]
    # Written by the site (the opener's password, the run's times and seed), never by hand.
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
        "next_due_at",
        "start_moved_at",
    ]
    cancel_event: ClassVar[Callable[..., Any]]
    cancelled_note: ClassVar[Any]

    def save_model(self, request, obj, form, change) -> None:
        if change and "starts_at" in form.changed_data:
            # RULES 11.2, as when the opener moves it: everyone reminded of the new start.
            obj.start_moved_at = timezone.now()
            reminders.start_moved(obj)
        super().save_model(request, obj, form, change)

    def get_list_display(self, request) -> list[str]:
        when = ["name", "variant", "cadence", "starts_at", *self.kind_columns]
        return [*when, "status", "rated", "floor", "opened_by"]

    def cancel_selected(self, request, queryset) -> None:
        """Staff cancel whenever an event is live: a running one's live games are drawn and
        nothing of it is rated (the kind's service). One refused does not stop the others."""
        done = 0
        id_name = f"{self.model._meta.model_name}_id"
        for event in queryset:
            try:
                self.cancel_event(**{id_name: event.pk}, by=request.user, staff=True)
                done += 1
            except EventError as error:
                self.message_user(request, f"{event}: {error.message}", messages.WARNING)
        self.message_user(request, self.cancelled_note % {"n": done})
