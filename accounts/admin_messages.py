"""The admin's "saved" messages with the article and gender Italian needs.

Django writes them from the model's verbose_name alone: "The {name} “{obj}” was changed
successfully", which Italian renders "Il {name} … è stato modificato" for every model, so staff
read "Il arena «…» è stato modificato". A noun's article and gender are not in Django's model
options, so each ModelAdmin of the site says them (`noun = Noun(...)`, with this mixin) and the
mixin writes the message itself.

Only ModelAdmin's public hooks are used: `response_add`, `response_change`, `response_delete`
and `delete_queryset` note what was done, to this request; `message_user`, through which Django
sends its own message right after, sends ours in its place. Everything else (redirects, popups,
"save and continue") stays Django's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.admin import widgets
from django.contrib.admin.utils import quote
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import capfirst
from django.utils.translation import gettext, npgettext, pgettext

MASCULINE, FEMININE = "m", "f"
_NOTE = "_admin_saved_message"  # the request attribute that carries what was just done


@dataclass(frozen=True)
class Noun:
    """How Italian names one object of a model in a sentence."""

    gender: str  # MASCULINE or FEMININE
    the_name: Any  # with its article, lazily translated: "il torneo", "l'arena"
    another: Any  # "un altro torneo", "un'altra arena"


def _sentence(gender: str, done: str) -> str:
    """The translated sentence of one object `done` ("added", "changed", "deleted")."""
    if gender == FEMININE:
        return {
            "added": pgettext("admin, feminine", "%(the_name)s «%(obj)s» è stata aggiunta."),
            "changed": pgettext("admin, feminine", "%(the_name)s «%(obj)s» è stata modificata."),
            "deleted": pgettext("admin, feminine", "%(the_name)s «%(obj)s» è stata eliminata."),
            "edit_again": pgettext("admin, feminine", "Puoi modificarla di nuovo qui sotto."),
        }[done]
    return {
        "added": pgettext("admin, masculine", "%(the_name)s «%(obj)s» è stato aggiunto."),
        "changed": pgettext("admin, masculine", "%(the_name)s «%(obj)s» è stato modificato."),
        "deleted": pgettext("admin, masculine", "%(the_name)s «%(obj)s» è stato eliminato."),
        "edit_again": pgettext("admin, masculine", "Puoi modificarlo di nuovo qui sotto."),
    }[done]


def saved_message(noun: Noun, done: str, obj_html: str, then: str = "") -> SafeString:
    """The message for one object: `done` is "added", "changed" or "deleted"; `then` is
    "edit_again" or "add_another" (what Django's buttons lead to), or ""."""
    text = _sentence(noun.gender, done) % {
        "the_name": conditional_escape(str(noun.the_name)),
        "obj": obj_html,
    }
    if then == "edit_again":
        text += " " + conditional_escape(_sentence(noun.gender, "edit_again"))
    elif then == "add_another":
        text += " " + conditional_escape(
            pgettext("admin", "Puoi aggiungere %(another)s qui sotto.")
            % {"another": str(noun.another)}
        )
    return mark_safe(capfirst(text))


def deleted_many_message(noun: Noun, count: int, opts: Any) -> str:
    """The bulk delete action's message: "3 arene eliminate.", "1 torneo eliminato."."""
    items = opts.verbose_name if count == 1 else opts.verbose_name_plural
    if noun.gender == FEMININE:
        text = npgettext(
            "admin, feminine",
            "%(count)d %(items)s eliminata.",
            "%(count)d %(items)s eliminate.",
            count,
        )
    else:
        text = npgettext(
            "admin, masculine",
            "%(count)d %(items)s eliminato.",
            "%(count)d %(items)s eliminati.",
            count,
        )
    return text % {"count": count, "items": items}


class NamedModelAdmin:
    """Mix in before admin.ModelAdmin and set `noun`: the add, change and delete messages then
    use its article and gender (module docstring)."""

    noun: Noun

    def formfield_for_dbfield(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        """Django's date-and-time widget writes "Data:" and "Ora:" as bare text before its
        two boxes, which no label names (axe-core's `label`, critical; issue 38): each box
        says its field and its part. Every ModelAdmin of the site mixes this class in."""
        field = super().formfield_for_dbfield(db_field, request, **kwargs)  # type: ignore[misc]
        widget = getattr(field, "widget", None)
        if isinstance(widget, widgets.AdminSplitDateTime):
            date, time = widget.widgets
            date.attrs["aria-label"] = gettext("%(field)s: data") % {"field": field.label}
            time.attrs["aria-label"] = gettext("%(field)s: ora") % {"field": field.label}
        return field

    def _note(self, request: HttpRequest, message: str) -> None:
        setattr(request, _NOTE, message)

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None):
        # The same choice of message as Django's response_add: "save and continue" (or "save as
        # new" that continues) says you may edit it again, "save and add another" says so.
        opts = obj._meta
        url = reverse(
            f"admin:{opts.app_label}_{opts.model_name}_change",
            args=(quote(obj.pk),),
            current_app=self.admin_site.name,
        )
        link = (
            format_html('<a href="{}">{}</a>', url, obj)
            if self.has_change_permission(request, obj)
            else conditional_escape(str(obj))
        )
        continuing = "_continue" in request.POST or (
            "_saveasnew" in request.POST
            and self.save_as_continue
            and self.has_change_permission(request, obj)
        )
        if continuing:
            then = "edit_again" if self.has_change_permission(request, obj) else ""
        else:
            then = "add_another" if "_addanother" in request.POST else ""
        self._note(request, saved_message(self.noun, "added", link, then))
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request: HttpRequest, obj: Any) -> HttpResponse:
        link = format_html('<a href="{}">{}</a>', request.path, obj)
        then = (
            "edit_again"
            if "_continue" in request.POST
            else "add_another"
            if "_addanother" in request.POST
            else ""
        )
        self._note(request, saved_message(self.noun, "changed", link, then))
        return super().response_change(request, obj)

    def response_delete(self, request: HttpRequest, obj_display: str, obj_id: Any):
        self._note(request, saved_message(self.noun, "deleted", conditional_escape(obj_display)))
        return super().response_delete(request, obj_display, obj_id)

    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        count = queryset.count()  # before they go: the action's own count is taken the same way
        super().delete_queryset(request, queryset)
        self._note(request, deleted_many_message(self.noun, count, self.opts))

    def message_user(
        self,
        request: HttpRequest,
        message: str,
        level: int = messages.INFO,
        extra_tags: str = "",
        fail_silently: bool = False,
    ) -> None:
        # The success message Django sends right after the hooks above: ours instead. Any other
        # message (warnings, actions' own messages) goes through untouched.
        ours = getattr(request, _NOTE, None)
        if ours is not None and level == messages.SUCCESS:
            delattr(request, _NOTE)
            message = ours
        super().message_user(request, message, level, extra_tags, fail_silently)
