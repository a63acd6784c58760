from __future__ import annotations

from django import template

from arena.forms import duration_label

register = template.Library()


@register.filter
def duration(minutes: int) -> str:
    return duration_label(int(minutes))


@register.inclusion_tag("arena/_home.html", takes_context=True)
def home_arenas(context, limit: int = 5):
    """The home page's arenas: running and upcoming ones, and those the visitor is in."""
    from arena import selectors

    user = context.get("user")
    sections = selectors.arena_list()
    return {
        "running": list(sections["running"][:limit]),
        "upcoming": list(sections["upcoming"][:limit]),
        "mine": selectors.arenas_of(user) if user is not None else [],
    }
