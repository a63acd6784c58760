"""The top boards of a running event (a tournament or an arena): its live games, best standing
first, each drawn small on the event's page and followed live ("Prime scacchiere").

Shared by both kinds of event (STYLE 6): each kind gives the ranks of its players, this reads
the games and orders them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from games.models import Game
from games.models import Status as GameStatus
from games.selectors import board_geometry

# At most this many boards, so the page opens at most this many game sockets.
TOP_BOARDS = 6


@dataclass(frozen=True)
class TopBoard:
    number: int  # 1 for the board of the best-placed player
    game_id: int
    white: str
    black: str
    fen: str
    last_move: str


@dataclass(frozen=True)
class TopBoards:
    boards: list[TopBoard]
    variant: str
    geometry_json: str  # how the page draws the board (games.selectors.board_geometry)

    def __bool__(self) -> bool:
        return bool(self.boards)


def top_boards(
    *, kind: str, event_id: int, variant: str, rank_of: dict[int, int], n: int = TOP_BOARDS
) -> TopBoards:
    """The event's live games ordered by the better rank of their two players (user id ->
    rank; a player without one comes last), the first `n`. One query."""
    rows = Game.objects.filter(
        event_type__model=kind, event_id=event_id, status=GameStatus.LIVE
    ).values_list(
        "pk", "white_id", "black_id", "white__username", "black__username", "fen", "moves"
    )
    last = len(rank_of) + 1

    def best(row) -> tuple[int, int]:
        return (min(rank_of.get(row[1], last), rank_of.get(row[2], last)), row[0])

    boards = [
        TopBoard(
            number=i,
            game_id=pk,
            white=white,
            black=black,
            fen=fen,
            last_move=moves[-1] if moves else "",
        )
        for i, (pk, _w, _b, white, black, fen, moves) in enumerate(sorted(rows, key=best)[:n], 1)
    ]
    return TopBoards(
        boards=boards, variant=variant, geometry_json=json.dumps(board_geometry(variant))
    )
