"""`{% load badges %}`: the badge beside a player's name (accounts.player_badges, RULES 12.9)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html

from accounts import player_badges as registry

register = template.Library()


def _id(player: Any) -> int | None:
    if player is None or isinstance(player, int):
        return player
    return getattr(player, "pk", None)


@register.simple_tag
def player_badges(players: Any) -> dict:
    """`{% player_badges players as badges %}`: the badges of many players (users, ids, or rows
    with a `player`/`user` attribute) in one query."""
    ids = []
    for item in players or ():
        found = getattr(item, "player", None) or getattr(item, "user", None) or item
        ids.append(_id(found))
    return registry.badges(ids)


@register.simple_tag
def player_badge(player: Any, badges: dict | None = None) -> str:
    """`{% player_badge player %}` (one query) or `{% player_badge player badges %}`: the
    player's club's short name, linked to the club's page; nothing for a player of no club."""
    pk = _id(player)
    if pk is None:
        return ""
    if not isinstance(badges, dict):  # not given (or not in the context): ask for this one
        badges = registry.badges([pk])
    found = badges.get(pk)
    if found is None:
        return ""
    return format_html(
        '<a class="club-badge" href="{}" title="{}" data-testid="club-badge">{}</a>',
        found.url,
        found.title,
        found.text,
    )


@register.simple_tag
def players_badges_line(white: Any, black: Any) -> str:
    """`{% players_badges_line game.white game.black %}`: a game page's line naming both
    players with their clubs (one query); nothing when neither has a club."""
    found = registry.badges([_id(white), _id(black)])
    if not found:
        return ""
    return format_html(
        '<p class="club-line" data-testid="club-line">{} {} – {} {}</p>',
        getattr(white, "username", ""),
        player_badge(white, found),
        getattr(black, "username", ""),
        player_badge(black, found),
    )
