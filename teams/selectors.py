"""Reading team matches (RULES §16) for their pages and for the other apps' registries."""

from __future__ import annotations

import json
from datetime import timedelta

from django.db.models import Q
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from events.top_boards import TopBoard, TopBoards
from games.commitments import Commitment
from games.models import Status as GameStatus
from games.selectors import board_geometry
from teams.models import LineupEntry, TeamMatch

# How far ahead a match warns its players in the lobby (as a tournament's start, RULES 4.7).
SOON = timedelta(hours=2)


def commitments_of(club_id: int, user_id: int) -> list[str]:
    """RULES 16.6: the club's matches not over in whose line-up the player is named (they stay
    a member until it is over, RULES 12.3)."""
    return list(
        LineupEntry.objects.filter(lineup__club_id=club_id, player_id=user_id)
        .exclude(lineup__match__status__in=[TeamMatch.Status.FINISHED, TeamMatch.Status.CANCELLED])
        .values_list("lineup__match__name", flat=True)
        .order_by("lineup__match__starts_at")
    )


def match_boards(match: TeamMatch) -> list:
    """The boards of a started match, in order, with their players and games."""
    return list(
        match.board_rows.select_related(
            "first_player",
            "second_player",
            "game1__white",
            "game1__black",
            "game2__white",
            "game2__black",
        ).order_by("number")
    )


def soon_commitments_of(user_id: int) -> list[Commitment]:
    """RULES 16.4, 16.6: the matches starting within `SOON` in whose line-up the player is
    named, or for which they said they are available, so that the lobby and the challenge
    notices warn before they take on another game. One query."""
    now = timezone.now()
    matches = (
        TeamMatch.objects.filter(
            Q(lineups__entries__player_id=user_id) | Q(availabilities__player_id=user_id),
            status=TeamMatch.Status.SCHEDULED,
            starts_at__lte=now + SOON,
        )
        .distinct()
        .order_by("starts_at", "pk")
    )
    found = []
    for match in matches:
        at = formats.time_format(timezone.localtime(match.starts_at), "TIME_FORMAT")
        found.append(
            Commitment(
                event=match.name,
                url=match.get_absolute_url(),
                due_at=match.starts_at,
                warning=_(
                    "L'incontro a squadre «%(name)s» inizia alle %(time)s: se a quell'ora sei in "
                    "un'altra partita, non giochi e la tua scacchiera passa a chi ti segue "
                    "(regola 16.4)."
                )
                % {"name": match.name, "time": at},
            )
        )
    return found


def live_boards(match: TeamMatch, boards: list) -> TopBoards:
    """RULES 16.4: each board's game being played, small and moving on the match's page, by
    its board number (a match has at most 12 boards and one live game on each: at most 12
    game sockets on the page)."""
    shown = []
    for board in boards:
        game = board.game2 if board.game2_id else board.game1
        if game is None or game.status != GameStatus.LIVE:
            continue
        shown.append(
            TopBoard(
                number=board.number,
                game_id=game.pk,
                white=game.white.username,
                black=game.black.username,
                fen=game.fen,
                last_move=game.moves[-1] if game.moves else "",
            )
        )
    return TopBoards(
        boards=shown, variant=match.variant, geometry_json=json.dumps(board_geometry(match.variant))
    )
