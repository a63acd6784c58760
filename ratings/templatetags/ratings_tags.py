"""`{% load ratings_tags %}`: the player page's ratings table and a category filter."""

from __future__ import annotations

from typing import Any

from django import template

from games.templatetags.games_tags import signed
from ratings.elo_italia import category
from ratings.models import CATEGORY_LABELS, Variant
from ratings.selectors import player_rating_rows

register = template.Library()


@register.inclusion_tag("ratings/player_ratings.html")
def player_ratings(player: Any) -> dict[str, Any]:
    """`{% player_ratings player %}`: ratings by variant and cadence, with charts."""
    rows = player_rating_rows(player_id=player.pk, since=getattr(player, "date_joined", None))
    return {"player": player, "rows": rows}


@register.filter
def rating_category(value: int | None) -> str:
    """`{{ rating|rating_category }}`: the REI art. 8 category name (RULES 7.1)."""
    if value is None or value == "":
        return ""
    return str(CATEGORY_LABELS[category(int(value))])


# `{{ delta|signed }}`: "+12", "−8", "0" (games' filter, the one way a change is written).
register.filter("signed", signed)


@register.simple_tag
def players_with_ratings(players: Any) -> list[tuple[Any, list[Any]]]:
    """`{% players_with_ratings page.object_list as rows %}`: each player with, per variant, the
    rating of the cadence they played most (None if none yet). One query."""
    from ratings.selectors import ratings_by_variant

    players = list(players)
    best = ratings_by_variant(player_ids=[p.pk for p in players])
    return [(p, [best.get((p.pk, code)) for code in Variant.values]) for p in players]


@register.simple_tag
def variant_names() -> list[str]:
    """The variants' names, in the order `players_with_ratings` gives their columns."""
    return [str(label) for label in Variant.labels]


@register.inclusion_tag("ratings/_home.html")
def home_leaders(per_pool: int = 3) -> dict[str, Any]:
    """The home page's top players: for each variant, its busiest leaderboard."""
    from ratings.selectors import leaderboard_pools

    busiest = {}
    for pool in leaderboard_pools():
        if pool.top and len(pool.top) > len(busiest.get(pool.variant, [None, []])[1]):
            busiest[pool.variant] = (pool, pool.top)
    return {"pools": [(pool, top[:per_pool]) for pool, top in busiest.values()]}
