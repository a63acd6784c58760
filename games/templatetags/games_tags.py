from __future__ import annotations

from django import template

from games import selectors

register = template.Library()


@register.inclusion_tag("games/_recent_games.html")
def recent_games(player):
    return {"games": selectors.recent_games_of(player.pk)}
