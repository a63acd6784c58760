"""The match page (RULES §16): the boards and the running score, re-fetched when the match's
socket says "changed" (STYLE 7); thin, it reads through `teams.selectors` (STYLE 2)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext as _

from events.views import refresh_spread_ms, render_page
from teams import selectors
from teams.models import TeamMatch


def detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = (
        TeamMatch.objects.select_related("first_club", "second_club").filter(pk=match_id).first()
    )
    if match is None:
        raise Http404
    boards = selectors.match_boards(match)
    context = {
        "match": match,
        "boards": boards,
        "spread": refresh_spread_ms(2 * match.boards),
    }
    if match.status == TeamMatch.Status.RUNNING:
        context["top_boards"] = selectors.live_boards(match, boards)
        context["top_boards_title"] = _("Le partite in corso")
    return render_page(request, "teams/detail.html", context, "live")
