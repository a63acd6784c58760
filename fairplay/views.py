"""Fair play's pages (STYLE 2: thin): the report of an event (RULES 15.1, 15.3), the staff's
mark (RULES 15.4), and the focus report a game page sends (RULES 15.2)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_POST

from analysis.services import AnalysisRefused, event_analyses_request
from events.services import EventError
from fairplay import figures, selectors, services


def _readable_event(request: HttpRequest, kind: str, pk: int):
    """The event, if this viewer may read its report; 404 for anyone else (the report's very
    existence is not shown to players, RULES 15.1)."""
    event = selectors.event_of(kind, pk)
    if event is None or not selectors.may_read_report(request.user, event):
        raise Http404
    return event


@require_GET
def report(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    event = _readable_event(request, kind, pk)
    return render(
        request,
        "fairplay/report.html",
        {
            "event": event,
            "kind": kind,
            "report": selectors.event_report(kind, event),
            "can_mark": request.user.is_staff,
            "min_moves": figures.MIN_MOVES,
            "min_field": figures.MIN_FIELD,
            "outlier_z": figures.OUTLIER_Z,
            "fast_seconds": figures.FAST_MS / 1000,
            "run_moves": figures.RUN_MOVES,
            "opening_moves": figures.OPENING_PLIES // 2,
            "decided_pawns": figures.DECIDED_CP // 100,
        },
    )


@require_POST
def review(request: HttpRequest, kind: str, pk: int, player_id: int) -> HttpResponse:
    event = _readable_event(request, kind, pk)
    under_review = request.POST.get("under_review") == "1"
    try:
        services.review_set(
            kind=kind, event=event, player_id=player_id, under_review=under_review, by=request.user
        )
    except ValueError:
        messages.error(request, _("Questo giocatore non ha giocato nell'evento."))
    else:
        messages.success(
            request,
            _("Segnato «in verifica» in classifica.")
            if under_review
            else _("Tolto il segno «in verifica»."),
        )
    return redirect("fairplay:report", kind=kind, pk=pk)


@require_POST
def annul(request: HttpRequest, kind: str, pk: int, player_id: int) -> HttpResponse:
    event = _readable_event(request, kind, pk)
    try:
        services.review_annul(kind=kind, event=event, player_id=player_id, by=request.user)
    except EventError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request, _("Risultati annullati: la classifica e la valutazione ne tengono conto.")
        )
    return redirect("fairplay:report", kind=kind, pk=pk)


@require_POST
def analyses(request: HttpRequest, kind: str, pk: int) -> HttpResponse:
    """RULES 14.7, 15.2: the report's reader asks for the computer analysis of the event's
    chess games that have none, for the engine's figures."""
    event = _readable_event(request, kind, pk)
    try:
        asked = event_analyses_request(user=request.user, kind=kind, event_id=event.pk)
    except AnalysisRefused as refused:
        messages.error(request, refused.message)
    else:
        if asked.queued:
            messages.success(
                request,
                ngettext(
                    "Chiesta l'analisi di %(n)d partita: il rapporto ne terrà conto quando sarà pronta.",
                    "Chiesta l'analisi di %(n)d partite: il rapporto ne terrà conto quando saranno pronte.",
                    asked.queued,
                )
                % {"n": asked.queued},
            )
            if asked.left:
                # RULES 14.7: a request queues a bounded number; the rest at the next.
                messages.info(
                    request,
                    ngettext(
                        "Ne resta %(n)d da chiedere: chiedila di nuovo quando queste saranno pronte.",
                        "Ne restano %(n)d da chiedere: chiedile di nuovo quando queste saranno pronte.",
                        asked.left,
                    )
                    % {"n": asked.left},
                )
        else:
            messages.info(
                request, _("Nessuna partita da analizzare: sono già analizzate o in corso.")
            )
    return redirect("fairplay:report", kind=kind, pk=pk)


@require_POST
def focus(request: HttpRequest, game_id: int) -> HttpResponse:
    """RULES 15.2: the page of a player lost the focus. Always 204, whatever was stored: the
    page needs no answer, and none tells a client what the report keeps."""
    services.focus_lost_record(game_id=game_id, user=request.user)
    return HttpResponse(status=204)
