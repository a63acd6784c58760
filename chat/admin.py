"""The staff's side of the chat (RULES 9.6): the reports with their line, room and author;
silencing an author for a while; removing a line from every page; every line, searchable."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.admin_messages import FEMININE, MASCULINE, NamedModelAdmin, Noun
from chat import services
from chat.models import ClosedRoom, Message, Mute, Report, Silence

_DURATION_LABELS = {
    "1h": _("un'ora"),
    "1d": _("un giorno"),
    "7d": _("sette giorni"),
    "30d": _("trenta giorni"),
}
_SILENCE_ACTIONS = {
    "1h": _("Silenzia l'autore per un'ora"),
    "1d": _("Silenzia l'autore per un giorno"),
    "7d": _("Silenzia l'autore per sette giorni"),
    "30d": _("Silenzia l'autore per trenta giorni"),
}


def _silence_authors(admin_obj, request, authors, duration: str) -> None:
    until = timezone.now() + services.SILENCES[duration]
    count = 0
    for author_id in sorted(set(authors)):
        services.silence(user_id=author_id, until=until, by_id=request.user.pk, reason="")
        count += 1
    admin_obj.message_user(
        request,
        ngettext(
            "%(n)d giocatore silenziato per %(d)s.",
            "%(n)d giocatori silenziati per %(d)s.",
            count,
        )
        % {"n": count, "d": _DURATION_LABELS[duration]},
        messages.SUCCESS,
    )


def _silence_action(duration: str, authors_of):
    def action(admin_obj, request, queryset):
        _silence_authors(admin_obj, request, authors_of(queryset), duration)

    action.__name__ = f"silence_{duration}"
    return admin.action(description=_SILENCE_ACTIONS[duration])(action)


def _remove_action(ids_of):
    def remove_lines(admin_obj, request, queryset):
        count = services.remove_lines(ids_of(queryset))
        admin_obj.message_user(
            request,
            ngettext("%d messaggio tolto.", "%d messaggi tolti.", count) % count,
            messages.SUCCESS,
        )

    return admin.action(description=_("Togli il messaggio da ogni pagina"))(remove_lines)


def _report_authors(queryset):
    return queryset.values_list("message__author_id", flat=True)


def _line_authors(queryset):
    return queryset.values_list("author_id", flat=True)


@admin.register(Report)
class ReportAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("la segnalazione"), _("un'altra segnalazione"))
    list_display = ["created_at", "line", "author", "room", "reporter", "handled"]
    list_filter = ["handled"]
    search_fields = ["message__text", "message__author__username", "reporter__username"]
    list_select_related = ["message__author", "reporter"]
    readonly_fields = ["message", "reporter", "created_at"]
    fields = ["message", "reporter", "created_at", "handled"]
    date_hierarchy = "created_at"
    actions = [
        *(_silence_action(key, _report_authors) for key in services.SILENCES),
        _remove_action(lambda queryset: queryset.values_list("message_id", flat=True)),
        "mark_handled",
    ]

    def has_add_permission(self, request) -> bool:
        return False  # a report is a player's

    @admin.display(description=_("messaggio"))
    def line(self, report: Report) -> str:
        return report.message.text + (" " + str(_("(tolto)")) if report.message.removed else "")

    @admin.display(description=_("autore"))
    def author(self, report: Report) -> str:
        return report.message.author.username

    @admin.display(description=_("stanza"))
    def room(self, report: Report) -> str:
        return report.message.room

    @admin.action(description=_("Segna come esaminate"))
    def mark_handled(self, request, queryset):
        count = queryset.update(handled=True)
        self.message_user(
            request,
            ngettext("%d segnalazione esaminata.", "%d segnalazioni esaminate.", count) % count,
        )


@admin.register(Message)
class MessageAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il messaggio di chat"), _("un altro messaggio di chat"))
    list_display = ["created_at", "author", "room", "text", "removed"]
    list_filter = ["removed"]
    search_fields = ["text", "author__username", "room"]
    list_select_related = ["author"]
    readonly_fields = ["room", "author", "text", "created_at", "removed"]
    date_hierarchy = "created_at"
    actions = [
        *(_silence_action(key, _line_authors) for key in services.SILENCES),
        _remove_action(lambda queryset: queryset.values_list("pk", flat=True)),
    ]

    def has_add_permission(self, request) -> bool:
        return False  # lines are written in the chat


class SilenceForm(forms.ModelForm):
    """How long, as the report's actions offer, or until a time the staff choose."""

    duration = forms.ChoiceField(
        label=_("per"),
        required=False,
        choices=[("", _("fino alla data scritta sotto")), *_DURATION_LABELS.items()],
    )

    class Meta:
        model = Silence
        fields = ["user", "duration", "until", "reason"]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["until"].required = False

    def clean(self):
        data = super().clean()
        duration = data.get("duration")
        if duration:
            data["until"] = timezone.now() + services.SILENCES[duration]
            self.instance.until = data["until"]
        elif not data.get("until"):
            self.add_error("until", _("Scegli per quanto, o fino a quando."))
        return data


@admin.register(Silence)
class SilenceAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il silenzio"), _("un altro silenzio"))
    form = SilenceForm
    list_display = ["user", "until", "reason", "by", "created_at"]
    search_fields = ["user__username"]
    raw_id_fields = ["user"]
    date_hierarchy = "created_at"

    def save_model(self, request, obj, form, change) -> None:
        if obj.by_id is None:
            obj.by = request.user
        super().save_model(request, obj, form, change)


@admin.register(ClosedRoom)
class ClosedRoomAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(FEMININE, _("la chat chiusa"), _("un'altra chat chiusa"))
    list_display = ["room", "closed_by", "closed_at"]
    readonly_fields = ["room", "closed_by", "closed_at"]

    def has_add_permission(self, request) -> bool:
        return False  # closed from the event's page, by its organizer or the staff


@admin.register(Mute)
class MuteAdmin(NamedModelAdmin, admin.ModelAdmin):
    noun = Noun(MASCULINE, _("il giocatore zittito"), _("un altro giocatore zittito"))
    list_display = ["user", "muted", "created_at"]
    search_fields = ["user__username", "muted__username"]
    readonly_fields = ["user", "muted", "created_at"]

    def has_add_permission(self, request) -> bool:
        return False  # a player's own choice
