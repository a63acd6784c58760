"""The games' part of what is personal to a player (accounts.personal): their games in the data
download, as a list and as one PGN file (chess) and one PDN file (the draughts variants); a
live game keeps them from deleting the account; their open challenges and their wait in a pool
go with it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _

from games.models import Challenge, ChallengeStatus, Game, PoolEntry, Status


def _games(user):
    return (
        Game.objects.filter(Q(white=user) | Q(black=user))
        .select_related("white", "black")
        .order_by("created_at", "id")
    )


def games_section(user) -> list[dict]:
    return [
        {
            "id": game.pk,
            "url": settings.SITE_URL + reverse("games:game", args=[game.pk]),
            "variant": game.variant,
            "time_control": str(game.time_control),
            "rated": game.rated,
            "white": game.white.username,
            "black": game.black.username,
            "status": game.status,
            "result": game.result,
            "reason": game.reason,
            "started_at": game.created_at.isoformat(),
            "finished_at": game.finished_at.isoformat() if game.finished_at else None,
        }
        for game in _games(user)
    ]


def games_file(export_format: str) -> Callable[[Any], str]:
    """The download's file of the player's games written in `export_format` ("pgn": chess;
    "pdn": the draughts variants), as the variants' list says each is written."""

    def games_in_format(user) -> str:
        from games.selectors import games_export

        games = [g for g in _games(user) if g.variant_info.export_format == export_format]
        return games_export(games, site=settings.SITE_URL + "/") if games else ""

    return games_in_format


def live_game_blocker(user) -> list[str]:
    if Game.objects.filter(Q(white=user) | Q(black=user), status=Status.LIVE).exists():
        return [_("Stai giocando una partita: finiscila prima.")]
    return []


def erase(user) -> None:
    """Open challenges (theirs or to them) are withdrawn, a wait in a pool ends."""
    Challenge.objects.filter(
        Q(challenger=user) | Q(opponent=user), status=ChallengeStatus.OPEN
    ).update(status=ChallengeStatus.CANCELLED)
    PoolEntry.objects.filter(player=user).delete()
