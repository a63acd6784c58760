"""The match page (RULES §16): thin, it reads through `teams.selectors` (STYLE 2)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from teams import selectors
from teams.models import TeamMatch


def detail(request: HttpRequest, match_id: int) -> HttpResponse:
    match = (
        TeamMatch.objects.select_related("first_club", "second_club").filter(pk=match_id).first()
    )
    if match is None:
        raise Http404
    return render(
        request,
        "teams/detail.html",
        {"match": match, "boards": selectors.match_boards(match)},
    )
