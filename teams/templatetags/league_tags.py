"""The team pages' numbers as they print them (RULES 16.5, 16.8): board points as 3½, on the
match page and the league's alike."""

from __future__ import annotations

from django import template

from teams.rules import board_points_label

register = template.Library()


@register.filter
def board_points(value: int | None) -> str:
    """Board points in the site's units (2 a win) as the federations print them: 3½."""
    return board_points_label(value)
