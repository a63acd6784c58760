from __future__ import annotations

from django import template

from games import selectors

register = template.Library()


@register.inclusion_tag("games/_recent_games.html")
def recent_games(player):
    return {"games": selectors.recent_games_of(player.pk)}


@register.inclusion_tag("games/_home_games.html", takes_context=True)
def games_being_played(context, limit: int = 6):
    """The home page's games to watch (issue 16), and the visitor's own game if they play."""
    user = context.get("user")
    mine = (
        selectors.live_game_id_of(user.pk) if user is not None and user.is_authenticated else None
    )
    return {
        "rows": selectors.watch_rows(selectors.games_being_played()[:limit]),
        "count": selectors.live_count(),
        "my_game_id": mine,
    }
