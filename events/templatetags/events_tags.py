"""`{% load events_tags %}`: countdowns with their units ("23:38" on a list reads as a time of
day), and an event's pages by kind. The server writes the first text, so a fragment swapped in by htmx never shows
an empty countdown; `static/js/events.js` then ticks it with the same words."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import get_language
from django.utils.translation import gettext as _

register = template.Library()

# Unit words of both languages, the same as events.js writes.
UNITS = {
    "it": {"d": "g", "h": "h", "m": "min", "s": "s"},
    "en": {"d": "d", "h": "h", "m": "min", "s": "s"},
}


def countdown_words(seconds: int, *, language: str = "it", coarse: bool = False) -> str:
    """`seconds` left in words: "2 g 3 h", "1 h 05 min", "23 min 08 s", "38 s".

    Coarse (lists): minutes at most, "23 min"; under a minute "1 min"."""
    u = UNITS.get((language or "it")[:2], UNITS["it"])
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} {u['d']} {hours} {u['h']}"
    if hours:
        return f"{hours} {u['h']} {minutes:02d} {u['m']}"
    if coarse:
        return f"{max(1, minutes + (secs > 0))} {u['m']}"
    if minutes:
        return f"{minutes} {u['m']} {secs:02d} {u['s']}"
    return f"{secs} {u['s']}"


def _left(when: datetime | None) -> int:
    if when is None:
        return 0
    return int((when - timezone.now()).total_seconds())


@register.filter
def countdown(when: datetime | None) -> str:
    """`{{ t.starts_at|countdown }}`: the time left until `when`, to the second."""
    return countdown_words(_left(when), language=get_language())


@register.filter
def countdown_short(when: datetime | None) -> str:
    """`{{ t.starts_at|countdown_short }}`: the time left until `when`, to the minute."""
    return countdown_words(_left(when), language=get_language(), coarse=True)


@register.filter
def starts_in(when: datetime | None) -> str:
    """`{{ t.starts_at|starts_in }}`: "tra 24 min" within a day, else "" (lists show the date)."""
    left = _left(when)
    if not 0 < left < 86400:
        return ""
    return _("tra %s") % countdown_words(left, language=get_language(), coarse=True)


@register.simple_tag
def starts_in_format() -> str:
    """The words around a list's countdown, for events.js ("tra %s")."""
    return _("tra %s")


@register.simple_tag
def event_url(event, name: str) -> str:
    """`{% event_url event "edit" %}`: the page `name` of this event, whatever its kind (a
    kind's URL namespace is its app label, `events.views`)."""
    return reverse(f"{event._meta.app_label}:{name}", args=[event.pk])
