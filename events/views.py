from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from accounts.redirects import local_next
from events import calendar, reminders
from events.kinds import all_kinds
from events.models import Reminder


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
