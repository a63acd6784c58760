from __future__ import annotations

from django import template

from arena.forms import duration_label

register = template.Library()


@register.filter
def duration(minutes: int) -> str:
    return duration_label(int(minutes))
