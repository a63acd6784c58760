from __future__ import annotations

from django import template

from games import selectors

register = template.Library()


@register.filter
def signed(change: int | None) -> str:
    """`{{ delta|signed }}`: a rating change as people write it, "+12", "−8" (a true minus
    sign, as wide as the plus), "0"; empty for None (no change known)."""
    if change is None or change == "":
        return ""
    change = int(change)
    if change > 0:
        return f"+{change}"
    return f"\u2212{-change}" if change < 0 else "0"


@register.inclusion_tag("games/_recent_games.html")
def recent_games(player):
    """`{% recent_games player %}`: the player page's recent games, from the player's side."""
    return {"player": player, "rows": selectors.player_game_rows(player.pk)}


@register.inclusion_tag("games/_home_games.html", takes_context=True)
def games_being_played(context, limit: int = 6):
    """The home page's games to watch, and the visitor's own game if they play."""
    user = context.get("user")
    mine = (
        selectors.live_game_id_of(user.pk) if user is not None and user.is_authenticated else None
    )
    return {
        "rows": selectors.watch_rows(selectors.games_being_played()[:limit]),
        "count": selectors.live_count(),
        "my_game_id": mine,
    }
