"""The pages of events: those every kind of event has (`EventPages`), and the site's own (the
calendar file, the reminders' notices).

`EventPages` is the web layer of one kind, written once the way Django's ModelAdmin is: an
object whose methods are the views, the kind's specifics as class attributes (its model, forms,
services, words) and hooks (what only its page shows), and `urls()` for the pages every kind
has. A kind subclasses it, adds the pages only it has and appends them to `urls()` in its
urls.py, so a new kind writes what differs and copies nothing. Views stay thin (STYLE 2): forms
check, the kind's services write, its selectors read; each renders the whole page or, for htmx,
the named partial (STYLE 7).

Names follow the model, as Django's generic views do: the URL namespace and the template folder
are the app label ("tournaments", "arena"), the event's name in templates and in the session's
invite key is the model name ("tournament", "arena"), and a kind's services take the event's id
as `<model name>_id`. This module imports no kind (STYLE 6, docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts.redirects import local_next
from accounts.throttle import client_address
from events import calendar, reminders
from events.forms import EventForm, JoinForm, remember_zone, use_zone
from events.kinds import all_kinds, open_live_event
from events.models import Event, Reminder
from events.services import EventError, private_throttled_until
from ratings.models import CadenceChoice, Variant

# The list's sections, in the order a kind shows them (`EventPages.list_order`); the ended
# ones are headed in the kind's words (`EventWords.ended`).
SECTION_HEADINGS = {"running": gettext_lazy("In corso"), "upcoming": gettext_lazy("In programma")}


# A "changed" push reaches every open page of an event at once: each page waits a random part
# of this spread before it re-fetches, and re-fetches at most once per spread
# (static/js/events.js), so a 200-player Swiss's round start or a busy arena's pairings are a
# steady flow of requests, not a wall of them (lichess spreads its tournament reloads the same
# way). The spread grows with the event's players, 25 ms each, so an event's pages ask at most
# about 40 fragments a second however many they are (a fragment costs a server about 5 ms, and
# at 10 ms a player a round's opening queued the pages for half a second, bench/evening.py),
# up to 10 s: a small event's page is refreshed at once, a 200-player Swiss's within 5 s.
REFRESH_SPREAD_MS_PER_PLAYER = 25
REFRESH_SPREAD_MS_MAX = 10_000


def refresh_spread_ms(players: int) -> int:
    return min(REFRESH_SPREAD_MS_MAX, REFRESH_SPREAD_MS_PER_PLAYER * players)


def render_page(request: HttpRequest, template: str, context: dict, partial: str) -> HttpResponse:
    """The whole page, or for htmx its named partial (STYLE 7)."""
    return render(request, f"{template}#{partial}" if request.htmx else template, context)


def with_messages(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """An htmx answer to a step swaps only its fragment, while the step's message (a refusal's
    reason) is for the page's messages (templates/base.html, `#messages`): it comes with the
    fragment, swapped there out of band, and is said there once (read here, so no later page
    says it again)."""
    response.content += render_to_string("events/_messages_oob.html", request=request).encode()
    return response


def is_hint(request: HttpRequest) -> bool:
    """The RULES 7.3 live hint of the form (it also refreshes the thematic picker for the
    variant): nothing is validated, nothing saved."""
    return bool(request.htmx) and request.headers.get("HX-Target") == "rated-hint"


@dataclass(frozen=True)
class EventWords:
    """What a kind's pages say in its own words, lazily translated: Italian agrees with the
    noun ("Arena aggiornata.", "Torneo aggiornato.") and each kind has its own verbs."""

    no_bots: Any  # a bot asks for the form (RULES 1)
    opened: Any  # the event is open: the opener is told to join it too
    not_organizer: Any  # the edit form, to anyone but its opener or after the start
    updated: Any
    invited: Any  # the invite link was followed (a private event)
    cancelled: Any
    ended: Any  # the list's heading of the finished and cancelled ones


class EventPages:
    """The pages every kind of event has (module docstring). The class attributes and the
    hooks below are what a kind says; the views are the methods under them."""

    model: ClassVar[type[Event]]
    form_class: ClassVar[type[EventForm]]  # opens and edits one (`to_options()`)
    words: ClassVar[EventWords]
    list_order: ClassVar[tuple[str, ...]] = ("upcoming", "running", "finished")
    # The kind's reads and writes, wrapped in staticmethod. `sections(variant=, cadence=)` →
    # {"upcoming": …, "running": …, "finished": …}; `describe(event)` → its rules in lines;
    # `outcome(event)` → how it ended, in one sentence. The writes raise `EventError` with the
    # reason to show; all but `create` take the event's id as `<model name>_id`.
    sections: ClassVar[Callable[..., dict]]
    describe: ClassVar[Callable[[Any], list[str]]]
    outcome: ClassVar[Callable[[Any], str]]
    create: ClassVar[Callable[..., Event]]  # (opener=, data=)
    update: ClassVar[Callable[..., Any]]  # (by=, data=)
    cancel_event: ClassVar[Callable[..., Any]]  # (by=)
    regenerate_invite: ClassVar[Callable[..., Any]]  # (by=)
    join_event: ClassVar[Callable[..., Any]]  # (player=, password=, invite_token=, address=)

    def detail_context(self, request: HttpRequest, event: Any, now) -> dict:
        """What only this kind's page shows (its entrants, standings, games)."""
        return {}

    def players_count(self, event: Any) -> int:
        """How many play in the event (the refresh spread grows with them)."""
        return 0

    # --- names, from the model (module docstring) ----------------------------------------------

    @property
    def app(self) -> str:
        return self.model._meta.app_label

    @property
    def code(self) -> str:
        """The kind's code, as `events.kinds` has it: the model name."""
        return self.model._meta.model_name

    def url_name(self, name: str) -> str:
        return f"{self.app}:{name}"

    def template(self, name: str) -> str:
        return f"{self.app}/{name}"

    def named(self, event: Any) -> dict:
        """The event in a template, by its kind's name ("tournament") and as `event`, and the
        kind's code as `kind`."""
        return {"event": event, self.code: event, "kind": self.code}

    def by_id(self, pk: int) -> dict:
        return {f"{self.code}_id": pk}

    def invite_key(self, pk: int) -> str:
        return f"{self.code}_invite_{pk}"

    def urls(self) -> list[URLPattern]:
        """The URLs every kind has; the kind appends its own (joining, its player pages)."""
        return [
            path("", self.event_list, name="list"),
            path("new/", self.new, name="new"),
            path("<int:pk>/", self.detail, name="detail"),
            path("<int:pk>/edit/", self.edit, name="edit"),
            path("<int:pk>/cancel/", self.cancel, name="cancel"),
            path("<int:pk>/invite/regenerate/", self.invite_regenerate, name="invite_regenerate"),
            path("<int:pk>/invite/<str:token>/", self.invite, name="invite"),
        ]

    # --- the list --------------------------------------------------------------------------------

    def event_list(self, request: HttpRequest) -> HttpResponse:
        use_zone(request)
        variant = request.GET.get("variant", "")
        cadence = request.GET.get("cadence", "")
        variant = variant if variant in Variant.values else ""
        cadence = cadence if cadence in CadenceChoice.values else ""
        found = self.sections(variant=variant, cadence=cadence)
        headings = {**SECTION_HEADINGS, "finished": self.words.ended}
        context = {
            "sections": [(headings[key], found[key]) for key in self.list_order],
            "table": self.template("_table.html"),
            "list_url": reverse(self.url_name("list")),
            "new_url": reverse(self.url_name("new")),
            "variants": Variant.choices,
            "cadences": CadenceChoice.choices,
            "variant": variant,
            "cadence": cadence,
        }
        if request.htmx:
            return render(request, "events/list.html#rows", context)
        return render(request, self.template("list.html"), context)

    # --- opening and editing one -----------------------------------------------------------------

    def form_page(self, request: HttpRequest, form, *, event=None, live=None) -> HttpResponse:
        hint = self.form_class.rated_hint(request.POST if request.method == "POST" else None)
        context = {"form": form, **self.named(event), "live_event": live, "hint": hint}
        if is_hint(request):
            return render(request, "events/form.html#opening-section", context)
        part = self._echo_part(request)
        if part:
            return render(request, f"{self.template('form.html')}#{part}", context)
        return render(request, self.template("form.html"), context)

    def _echo_part(self, request: HttpRequest) -> str:
        """The partial htmx asks for to draw part of the form again (`EventForm.echo_parts`)."""
        if not request.htmx:
            return ""
        return self.form_class.echo_parts.get(request.headers.get("HX-Target", ""), "")

    def _is_echo(self, request: HttpRequest) -> bool:
        """The form sent to be drawn again (a search among its choices), not to be saved."""
        return bool(self._echo_part(request)) or any(
            name in request.POST for name in self.form_class.echo_buttons
        )

    @method_decorator(login_required)
    def new(self, request: HttpRequest) -> HttpResponse:
        use_zone(request)
        if request.user.is_bot:  # RULES 1
            messages.error(request, self.words.no_bots)
            return redirect(self.url_name("list"))
        live = open_live_event(request.user.pk)
        if request.method != "POST":
            return self.form_page(request, self.form_class(), live=live)
        if is_hint(request):
            return self.form_page(request, self.form_class.echo(request.POST))
        if self._is_echo(request):
            echoed = self.form_class.echo(request.POST, keep_password=not request.htmx)
            return self.form_page(request, echoed, live=live)
        form = self.form_class(request.POST)
        if form.is_valid():
            remember_zone(request, form)
            try:
                event = self.create(opener=request.user, data=form.to_options())
            except EventError as error:
                form.add_error(None, error.message)
                return self.form_page(request, form, live=error.event)
            messages.success(request, self.words.opened)
            return redirect(self.url_name("detail"), pk=event.pk)
        return self.form_page(request, form, live=live)

    @method_decorator(login_required)
    def edit(self, request: HttpRequest, pk: int) -> HttpResponse:
        use_zone(request)
        event = get_object_or_404(self.model, pk=pk)
        if event.opened_by_id != request.user.pk or event.has_started():  # RULES 4.1, 8
            messages.error(request, self.words.not_organizer)
            return redirect(self.url_name("detail"), pk=pk)
        if request.method != "POST":
            return self.form_page(request, self.form_class(instance=event), event=event)
        if is_hint(request):
            form = self.form_class.echo(request.POST, instance=event)
            return self.form_page(request, form, event=event)
        form = self.form_class(request.POST, instance=event)
        if form.is_valid():
            remember_zone(request, form)
            try:
                self.update(**self.by_id(pk), by=request.user, data=form.to_options())
            except EventError as error:
                # Beside the field it is about (seats, floor), else on top of the form.
                form.add_error(error.code if error.code in form.fields else None, error.message)
                return self.form_page(request, form, event=event)
            messages.success(request, self.words.updated)
            return redirect(self.url_name("detail"), pk=pk)
        return self.form_page(request, form, event=event)

    # --- its page --------------------------------------------------------------------------------

    def detail(self, request: HttpRequest, pk: int) -> HttpResponse:
        use_zone(request)
        event = get_object_or_404(self.model.objects.select_related("opened_by"), pk=pk)
        now = timezone.now()
        invite = request.session.get(self.invite_key(pk), "")
        is_opener = request.user.is_authenticated and event.opened_by_id == request.user.pk
        started = event.has_started(now)
        # What a part of the page shows only in some states is read when the template asks for
        # it (a callable in the context): a running event's live part, which a round start or
        # an arena's pairing has every player re-fetch at once, needs none of it.
        context = {
            **self.named(event),
            "is_opener": is_opener,
            "started": started,
            # The organizer's controls only until the start (RULES 4.1, 8): a refreshed
            # fragment drops them.
            "organizing": is_opener and not started and event.is_live,
            "has_invite": bool(invite) and invite == event.invite_token,
            "outcome": lambda: self.outcome(event),
            "invite_url": lambda: request.build_absolute_uri(
                reverse(self.url_name("invite"), args=[pk, event.invite_token])
            ),
            "login_url": lambda: (
                reverse("accounts:login") + "?" + urlencode({"next": request.path})
            ),
            # Password tries stopped for everyone: its organizer is told until when.
            "private_throttled_until": private_throttled_until(event)
            if is_opener and event.is_private
            else None,
            **self.detail_context(request, event, now),
        }
        if not request.htmx:  # the article, outside the live part, says it once
            context["description"] = self.describe(event)
            context["refresh_spread_ms"] = refresh_spread_ms(self.players_count(event))
        return render_page(request, self.template("detail.html"), context, "live")

    def back(self, request: HttpRequest, pk: int) -> HttpResponse:
        """After a player's action: the page's live part for htmx, with the action's message (a
        refusal's reason, RULES 16.6) for the page's messages; else the page, which says it."""
        if request.htmx:
            return with_messages(request, self.detail(request, pk))
        return redirect(self.url_name("detail"), pk=pk)

    def step(self, request: HttpRequest, service, done, **kwargs) -> None:
        """Call one of the kind's services; its refusal, or `done` (if any), is the next page's
        message."""
        try:
            service(**kwargs)
        except EventError as error:
            messages.error(request, error.message)
        else:
            if done is not None:
                messages.success(request, done)

    # --- the players -----------------------------------------------------------------------------

    def invite(self, request: HttpRequest, pk: int, token: str) -> HttpResponse:
        """The secret link: remembered in the session, it lets the holder in without the
        password. A wrong or old token is not remembered."""
        event = get_object_or_404(self.model, pk=pk)
        if token == event.invite_token:
            request.session[self.invite_key(pk)] = token
            messages.info(request, self.words.invited)
        else:
            messages.error(request, _("Questo link d'invito non è più valido."))
        return redirect(self.url_name("detail"), pk=pk)

    @method_decorator(require_POST)
    def join(self, request: HttpRequest, pk: int) -> HttpResponse:
        if not request.user.is_authenticated:
            detail = reverse(self.url_name("detail"), args=[pk])
            return redirect(reverse("accounts:login") + "?next=" + detail)
        form = JoinForm(request.POST)
        form.is_valid()
        self.step(
            request,
            self.join_event,
            None,  # the page itself says they are in (a message would say it twice)
            **self.by_id(pk),
            player=request.user,
            password=form.cleaned_data.get("password", ""),
            invite_token=request.session.get(self.invite_key(pk), ""),
            address=client_address(request),
        )
        return self.back(request, pk)

    def player_action(self, request: HttpRequest, pk: int, service, done) -> HttpResponse:
        """A player's own step (leave, pause…): `service(<model name>_id=, player=)`."""
        self.step(request, service, done, **self.by_id(pk), player=request.user)
        return self.back(request, pk)

    # --- the organizer ---------------------------------------------------------------------------

    def organizer_action(self, request: HttpRequest, pk: int, service, done) -> HttpResponse:
        """The opener's step (cancel, a new invite link): `service(<model name>_id=, by=)`."""
        self.step(request, service, done, **self.by_id(pk), by=request.user)
        return redirect(self.url_name("detail"), pk=pk)

    @method_decorator([require_POST, login_required])
    def cancel(self, request: HttpRequest, pk: int) -> HttpResponse:
        return self.organizer_action(request, pk, self.cancel_event, self.words.cancelled)

    @method_decorator([require_POST, login_required])
    def invite_regenerate(self, request: HttpRequest, pk: int) -> HttpResponse:
        done = _("Nuovo link d'invito creato; il vecchio non vale più.")
        return self.organizer_action(request, pk, self.regenerate_invite, done)


def event_calendar(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """ "Aggiungi al calendario": the event as an .ics file, for anyone who can see its page."""
    found = {k.code: k for k in all_kinds()}.get(kind)
    if found is None:
        raise Http404("no such kind of event")
    event = get_object_or_404(found.model.objects.listed(), pk=pk)
    url = request.build_absolute_uri(event.get_absolute_url())
    text = calendar.event_ics(
        uid=f"{kind}-{event.pk}@{request.get_host().split(':')[0]}",
        name=event.name,
        starts_at=event.starts_at,
        ends_at=event.calendar_end(),
        url=url,
        description=calendar.description(event, url),
        now=timezone.now(),
    )
    response = HttpResponse(text, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="circolo-{kind}-{event.pk}.ics"'
    return response


def reminder_notices(request: HttpRequest) -> HttpResponse:
    """The notices of the site's pages (events/_reminders.html), re-fetched when the site
    socket says "reminder"."""
    return render(
        request,
        "events/_reminders.html",
        {"reminders": reminders.notices_for(request.user)},
    )


@require_POST
def reminder_dismiss(request: HttpRequest, pk: int) -> HttpResponse:
    if request.user.is_authenticated:
        Reminder.objects.filter(pk=pk, user=request.user).update(dismissed=True)
    if request.htmx:
        return reminder_notices(request)
    return redirect(local_next(request, request.POST.get("next")) or "/")
