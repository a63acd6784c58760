"""The games' part of what is personal to a player (accounts.personal): their games in the data
download, as a list and as one PGN file (chess) and one PDN file (the draughts variants), a
page of games at a time; a
live game keeps them from deleting the account; their open challenges and their wait in a pool
go with it."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.personal import Pages
from games.models import Challenge, ChallengeStatus, Game, PoolEntry, Status
from games.rules import variants
from live import locks


def _games(user):
    # In the order they were opened (their ids): a page is the games after the last one's id.
    return Game.objects.filter(Q(white=user) | Q(black=user)).order_by("id")


def _games_count(user) -> int:
    return _games(user).count()


def _games_page(user, after: int, limit: int) -> tuple[list[dict], int | None]:
    games = list(
        _games(user)
        .filter(id__gt=after)
        .select_related("white", "black")
        .only(
            *("id", "variant", "base_seconds", "increment_seconds", "rated", "status"),
            *("result", "reason", "created_at", "finished_at", "white__username"),
            "black__username",
        )[:limit]
    )
    rows = [
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
        for game in games
    ]
    return rows, games[-1].pk if games else None


# The download's list of the player's games, a page at a time (accounts.personal).
games_section = Pages(count=_games_count, page=_games_page)


def games_file(export_format: str) -> Pages:
    """The download's file of the player's games written in `export_format` ("pgn": chess;
    "pdn": the draughts variants), as the variants' list says each is written: a page of
    games at a time, each game's text (`games.selectors.games_texts`)."""
    codes = [v.code for v in variants.VARIANTS if v.export_format == export_format]

    def count(user) -> int:
        return _games(user).filter(variant__in=codes).count()

    def page(user, after: int, limit: int) -> tuple[list[str], int | None]:
        from games.selectors import games_texts

        games = list(
            _games(user)
            .filter(variant__in=codes, id__gt=after)
            # The event's name and round of each game: one query per kind of event, not one
            # per game.
            .select_related("white", "black")
            .prefetch_related("event")[:limit]
        )
        if not games:
            return [], None
        return games_texts(games, site=settings.SITE_URL + "/"), games[-1].pk

    return Pages(count=count, page=page)


def live_game_blocker(user) -> list[str]:
    if Game.objects.filter(Q(white=user) | Q(black=user), status=Status.LIVE).exists():
        return [_("Stai giocando una partita: finiscila prima.")]
    return []


def _open_challenges(user_id: int):
    return Challenge.objects.filter(
        Q(challenger_id=user_id) | Q(opponent_id=user_id), status=ChallengeStatus.OPEN
    )


def lock_challenges(user_id: int) -> None:
    """The deletion's locker (accounts.personal): the player's open challenges, locked before
    their user row (CHALLENGE rank before USER, `live.locks`), as accepting one locks it: a
    deletion and an accept at once queue on the challenge instead of deadlocking."""
    locks.lock_rows(_open_challenges(user_id), locks.Rank.CHALLENGE)


def erase(user) -> None:
    """Open challenges (theirs or to them) are withdrawn, a wait in a pool ends.

    The challenges are those `lock_challenges` locked, unless one was posted between that lock
    and the user row's (its poster held the row): it is not waited for, which could deadlock
    with an accept holding it and waiting for the user row; the deletion is refused instead,
    to be tried again."""
    open_ids = set(_open_challenges(user.pk).values_list("pk", flat=True))
    held = {c.pk for c in locks.lock_rows_free(Challenge.objects.filter(pk__in=open_ids))}
    if open_ids - held:
        raise ValidationError(_("Una tua sfida sta per essere accettata: riprova tra un momento."))
    Challenge.objects.filter(pk__in=held, status=ChallengeStatus.OPEN).update(
        status=ChallengeStatus.CANCELLED
    )
    PoolEntry.objects.filter(player=user).delete()
