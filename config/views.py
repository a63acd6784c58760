from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def section(title, text):
    """A section whose pages arrive with a later issue: an honest page instead of a 404, so the
    navigation is whole from day one."""

    def view(request: HttpRequest) -> HttpResponse:
        return render(request, "section.html", {"title": title, "text": text})

    return view


arenas = section(_("Arene"), _("Nessuna arena in programma per ora."))
