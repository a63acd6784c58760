"""Reading games and challenges for pages (STYLE 2)."""

from __future__ import annotations

from django.db.models import Q, QuerySet

from games.models import Challenge, ChallengeStatus, Game, Status
from games.rules import variant


def open_challenges() -> QuerySet[Challenge]:
    """Open challenges everyone may see in the lobby (open ones, not those addressed to one)."""
    return Challenge.objects.filter(
        status=ChallengeStatus.OPEN, opponent__isnull=True
    ).select_related("challenger")


def challenges_of(user_id: int) -> QuerySet[Challenge]:
    """Open challenges the user posted or that are addressed to them."""
    return Challenge.objects.filter(
        Q(challenger_id=user_id) | Q(opponent_id=user_id), status=ChallengeStatus.OPEN
    ).select_related("challenger", "opponent")


def challenges_addressed_to(user_id: int) -> QuerySet[Challenge]:
    return Challenge.objects.filter(
        opponent_id=user_id, status=ChallengeStatus.OPEN
    ).select_related("challenger")


def live_game_id_of(user_id: int) -> int | None:
    return (
        Game.objects.filter(Q(white_id=user_id) | Q(black_id=user_id), status=Status.LIVE)
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )


def live_games(limit: int = 20) -> QuerySet[Game]:
    return Game.objects.filter(status=Status.LIVE).select_related("white", "black")[:limit]


def recent_games_of(player_id: int, limit: int = 20) -> QuerySet[Game]:
    return Game.objects.filter(Q(white_id=player_id) | Q(black_id=player_id)).select_related(
        "white", "black"
    )[:limit]


def game_get(game_id: int) -> Game:
    return Game.objects.select_related("white", "black").get(pk=game_id)


def board_geometry(variant_code: str) -> dict:
    """How the client draws a draughts board: size and (row, col) of each numbered square,
    row 0 at the top, White at the bottom (each federation's own numbering)."""
    rules = variant(variant_code)
    board = getattr(rules, "board", None)
    if board is None:
        return {"size": 8, "squares": []}
    return {"size": board.size, "squares": [list(rc) for rc in board.coords]}


def game_export(game: Game, *, event: str = "Circolo") -> str:
    """The game's PGN (chess) or PDN (draughts); `event` names its event in the headers (every
    header value is escaped by the rules' export)."""
    rules = variant(game.variant)
    headers = {
        "Event": event,
        "White": game.white.username,
        "Black": game.black.username,
        "Date": game.created_at.strftime("%Y.%m.%d"),
        "TimeControl": f"{game.base_seconds}+{game.increment_seconds}",
    }
    result = None
    if game.result and game.result != "0-0":
        from games.rules import Result

        result = Result(game.result)
    start = game.start_fen if game.start_fen != rules.start_fen() else None
    return rules.export(game.moves, start_fen=start, headers=headers, result=result)
