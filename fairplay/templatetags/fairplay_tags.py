"""Fair play on other apps' pages, loaded by name (the pages' apps import nothing of it):
`{% focus_watch game %}` on the game page (RULES 15.2), `{% fairplay_link event %}` on an
event's page for its organizer and the staff (RULES 15.1), `{% under_review event as ids %}`
for the standings (RULES 15.4)."""

from __future__ import annotations

from django import template

from fairplay import figures, selectors

register = template.Library()


@register.inclusion_tag("fairplay/_focus_watch.html", takes_context=True)
def focus_watch(context, game):
    """The focus watcher, for a player of a live game of an event only: nobody else's focus
    is of any interest, and a casual game's never."""
    request = context.get("request")
    user = getattr(request, "user", None)
    watching = (
        user is not None
        and user.is_authenticated
        and game.is_live
        and game.event_type_id is not None
        and user.pk in (game.white_id, game.black_id)
    )
    return {"watching": watching, "game": game}


@register.inclusion_tag("fairplay/_link.html", takes_context=True)
def fairplay_link(context, event):
    request = context.get("request")
    user = getattr(request, "user", None)
    shown = user is not None and selectors.may_read_report(user, event)
    return {"shown": shown, "kind": event._meta.model_name, "event": event}


@register.simple_tag
def under_review(event) -> frozenset[int]:
    """The ids of the players of `event` marked "under review" (one query)."""
    return selectors.under_review_ids(event._meta.model_name, event.pk)


@register.simple_tag
def figure_cell(scored, figure: str) -> dict | None:
    """One figure of a report row for its cell: the value (a share also as a percentage), its
    z-score and whether it is an outlier; None when the player has no such figure."""
    cell = scored.get(figures.Figure(figure))
    if cell is None:
        return None
    return {"value": cell.value, "percent": cell.value * 100, "z": cell.z, "outlier": cell.outlier}
