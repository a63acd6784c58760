"""`{% load ratings_tags %}`: the player page's ratings table and a category filter."""

from __future__ import annotations

from typing import Any

from django import template

from ratings.elo_italia import category
from ratings.models import CATEGORY_LABELS
from ratings.selectors import player_rating_rows

register = template.Library()


@register.inclusion_tag("ratings/player_ratings.html")
def player_ratings(player: Any) -> dict[str, Any]:
    """`{% player_ratings player %}`: ratings by variant and cadence, with charts."""
    return {"player": player, "rows": player_rating_rows(player_id=player.pk)}


@register.filter
def rating_category(value: int | None) -> str:
    """`{{ rating|rating_category }}`: the REI art. 8 category name (RULES 7.1)."""
    if value is None or value == "":
        return ""
    return str(CATEGORY_LABELS[category(int(value))])
