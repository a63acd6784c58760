"""A played game is exported from the notation it stored (`export(..., notation=…)`), without
working its moves out again: the text must be the very one the full export writes, game by
game, for every variant, with and without clocks, from the start or from a position, through
castling, promotions, en passant, checks and mates."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import Result, variant

HEADERS = {"Event": "Partita amichevole", "White": "Dora", "Black": "Bruno"}
# Chess positions where the special moves come at once: promotions (with and without capture,
# to a knight), en passant, castling both ways, black to move at move 40.
CHESS_STARTS = [
    None,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 40",
    "r3k2r/1P6/8/2pP4/8/8/6p1/R3K2R w KQkq c6 0 12",
    "8/P6k/8/8/8/8/p6K/8 b - - 0 70",
]


def played(code: str, seed: int, start: str | None, plies: int):
    rules, rng = variant(code), random.Random(seed)
    fen = rules.normalize_fen(start) if start else rules.start_fen()
    moves, notation = [], []
    for _ in range(plies):
        legal = rules.legal_moves(fen)
        if not legal or rules.outcome(fen, []) is not None:
            break
        move = rng.choice(legal)
        notation.append(rules.notation(fen, move, "en"))
        moves.append(move)
        fen = rules.apply(fen, move)
    return moves, notation


@settings(max_examples=120, deadline=None)
@given(
    code=st.sampled_from(["chess", "chess", "italian", "english", "international"]),
    seed=st.integers(0, 10**9),
    start=st.integers(0, len(CHESS_STARTS) - 1),
    plies=st.integers(0, 260),
    clocks=st.booleans(),
    result=st.sampled_from([None, Result.WHITE_WINS, Result.DRAW]),
)
def test_the_stored_notation_writes_the_same_text(code, seed, start, plies, clocks, result):
    start_fen = CHESS_STARTS[start] if code == "chess" else None
    moves, notation = played(code, seed, start_fen, plies)
    times = [max(0, 600_000 - 4_321 * i) for i in range(len(moves))] if clocks else None
    rules = variant(code)
    kwargs = {"start_fen": start_fen, "headers": HEADERS, "result": result, "clocks": times}
    assert rules.export(moves, notation=notation, **kwargs) == rules.export(moves, **kwargs)


@pytest.mark.parametrize("start", CHESS_STARTS[1:])
def test_the_special_moves_are_met(start):
    """The positions above do bring what the property test must cover."""
    seen = set()
    for seed in range(40):
        _moves, notation = played("chess", seed, start, 6)
        for text in notation:
            seen |= {kind for kind, mark in (("ep", "e.p."), ("castle", "0-0")) if mark in text}
            seen |= (
                {"promotion"} if text.rstrip("+#")[-1] in "QRBN" and "x" not in text[:1] else set()
            )
    assert seen & {"ep", "castle", "promotion"}
