"""`{% load tournaments_tags %}`: the home page's tournaments."""

from __future__ import annotations

from django import template

from tournaments import selectors

register = template.Library()


@register.inclusion_tag("tournaments/_home.html", takes_context=True)
def home_tournaments(context, limit: int = 5):
    """Running and upcoming tournaments, and the visitor's own (playing or joined)."""
    user = context.get("user")
    sections = selectors.tournament_list()
    return {
        "running": list(sections["running"][:limit]),
        "upcoming": list(sections["upcoming"][:limit]),
        "mine": selectors.tournaments_of(user) if user is not None else [],
    }
