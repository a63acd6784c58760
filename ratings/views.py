"""Leaderboard pages. Thin: selectors build the data, templates render it (STYLE 2)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from ratings import selectors
from ratings.models import CadenceChoice, Variant

PAGE_SIZE = 50


def leaderboards(request: HttpRequest) -> HttpResponse:
    """Every variant and cadence with its top players."""
    return render(request, "ratings/index.html", {"pools": selectors.leaderboard_pools()})


def leaderboard(request: HttpRequest, variant: str, cadence: str) -> HttpResponse:
    """One pool's ranking, paginated; htmx page changes get only the table fragment."""
    if variant not in Variant.values or cadence not in CadenceChoice.values:
        raise Http404
    page = Paginator(selectors.leaderboard(variant=variant, cadence=cadence), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    template = "ratings/leaderboard.html"
    if getattr(request, "htmx", False):
        template += "#board"
    return render(
        request,
        template,
        {
            "page": page,
            "variant": variant,
            "variant_label": Variant(variant).label,
            "cadence": cadence,
            "cadence_label": CadenceChoice(cadence).label,
        },
    )
