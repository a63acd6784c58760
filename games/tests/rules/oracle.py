"""pydraughts as the oracle for our draughts generator (test dependency only)."""

from __future__ import annotations

from draughts import Board as PyBoard
from draughts import Move as PyMove

from games.rules.draughts import DraughtsVariant, Position, format_fen, move_text

# Moves as comparable data: (square path text, frozenset of captured square numbers).
MoveKey = tuple[str, frozenset[int]]


def pydraughts_board(rules: DraughtsVariant, pos: Position) -> PyBoard:
    return PyBoard(rules.code, format_fen(pos))


def oracle_key(move: PyMove) -> MoveKey:
    """A pydraughts move as (square path in our machine form, captured squares)."""
    path = [move.board_move[0][0]] + [step[1] for step in move.board_move]
    sep = "x" if move.captures else "-"
    return sep.join(map(str, path)), frozenset(move.captures or ())


def oracle_moves(board: PyBoard) -> list[MoveKey]:
    """pydraughts' legal moves with the pieces each captures."""
    return [oracle_key(move) for move in board.legal_moves()]


def our_moves(rules: DraughtsVariant, pos: Position) -> list[MoveKey]:
    return [(move_text(m), frozenset(s + 1 for s in m[1])) for m in rules.board.legal_moves(pos)]


def oracle_after(board: PyBoard, path_text: str) -> str:
    """pydraughts' position (FEN) after the move with this square path."""
    for move in board.legal_moves():
        if oracle_key(move)[0] == path_text:
            board.push(move)
            after = board.fen
            board.pop()
            return after
    raise KeyError(path_text)
