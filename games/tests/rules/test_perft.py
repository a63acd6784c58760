"""Perft: leaf counts from the start position (to depth 6 on 8×8, depth 5 on 10×10).

Where the figures come from (never invented):
- English and International: published perft tables (English/checkers 7, 49, 302, 1469, 7361,
  36768; International 9, 81, 658, 4265, 27117 — e.g. the tables of Aart Bik's and Rein
  Halbersma's move generators), and pydraughts 0.6.7 agrees.
- Italian: computed with pydraughts 0.6.7 (``Board.legal_moves``/``push``/``pop``, depth 6 took
  78 s) and equal to ours. The Italian board is the mirror image of the English one, so
  depths 1–5 coincide with English; at depth 6 the capture rules first make them differ.
RULES_PERFT_ORACLE=1 recomputes every figure with pydraughts too (slow, minutes).
"""

import os

import pytest
from draughts import Board as PyBoard

from games.rules import variant

PERFT = {
    "italian": [7, 49, 302, 1469, 7361, 36473],
    "english": [7, 49, 302, 1469, 7361, 36768],
    "international": [9, 81, 658, 4265, 27117],
    # Chess: the standard published figures (chessprogramming wiki), via python-chess.
    "chess": [20, 400, 8902],
}


@pytest.mark.parametrize("code", list(PERFT))
def test_perft_from_start(code: str) -> None:
    rules = variant(code)
    assert [rules.perft(depth) for depth in range(1, len(PERFT[code]) + 1)] == PERFT[code]


def _pydraughts_perft(board: PyBoard, depth: int) -> int:
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        board.push(move)
        total += _pydraughts_perft(board, depth - 1)
        board.pop()
    return total


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("RULES_PERFT_ORACLE"), reason="set RULES_PERFT_ORACLE=1")
@pytest.mark.parametrize("code", ["italian", "english", "international"])
def test_perft_figures_agree_with_pydraughts(code: str) -> None:
    depth = len(PERFT[code])
    assert _pydraughts_perft(PyBoard(code), depth) == PERFT[code][-1]


def test_perft_from_a_position_with_captures() -> None:
    # Italian, after 21-17 10-14 17-13 ... a position where Black must capture: every leaf
    # count agrees with pydraughts (checked the same way as the start position).
    rules = variant("italian")
    fen = rules.replay(["21-17", "10-14", "17-13"])[-1]
    board = PyBoard("italian", fen)
    assert [rules.perft(d, fen) for d in (1, 2, 3)] == [
        _pydraughts_perft(board, d) for d in (1, 2, 3)
    ]
