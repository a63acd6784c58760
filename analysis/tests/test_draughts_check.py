"""The draughts tactical check (RULES 14.10): a known shot in each variant is found and the move
that allowed it is marked; its lines are legal by pydraughts; bad input fails cleanly.

Pure: no database. Each position is small enough to read by hand (the diagram in the comment:
square numbers as each federation writes them, w/b men, W/B kings).
"""

from __future__ import annotations

import random

import pytest
from draughts import Board as PyBoard

from analysis.draughts.check import (
    BLUNDER_MEN,
    MISTAKE_MEN,
    NotDraughts,
    PlyCheck,
    check_game,
    mark_for,
)
from analysis.draughts.search import Searcher
from games.rules.base import IllegalMove, InvalidPosition
from games.rules.variants import info
from games.tests.rules.oracle import oracle_key

BUDGET = 6000


# (variant, position, the move that allows the shot, the shot, a move that loses nothing)
SHOTS = [
    # Italian: White to move. 19-15 empties 19, and Black's 12 takes 15 and 22 at once
    # (12x19x26); any other move keeps the men.
    ("italian", "W:W5,19,22:B4,6,12,21", "19-15", "12x19x26", "5-2"),
    # English: Black to move (Black moves first in English). 11-15 lets White's 19 take 15
    # and 7 and crown on 3 (19x10x3).
    ("english", "B:W19,21,29,31:B7,9,11,22", "11-15", "19x10x3", "9-14"),
    # International: White to move. 29-24 lets Black's 30 capture backwards (men do, in
    # International) over 24 and 13: 30x19x8.
    ("international", "W:W13,16,27,29:B10,30,37", "29-24", "30x19x8", "13-8"),
]


def pydraughts_line(code: str, fen: str, line: tuple[str, ...]) -> None:
    """Plays `line` on pydraughts' board from `fen`; fails on the first move it does not
    know as legal."""
    board = PyBoard(code, fen)
    for text in line:
        legal = {oracle_key(m)[0]: m for m in board.legal_moves()}
        assert text in legal, f"{text} is not legal by pydraughts in {board.fen}"
        board.push(legal[text])


@pytest.mark.parametrize(("code", "fen", "bad", "shot", "quiet"), SHOTS)
def test_the_move_that_allows_a_shot_is_a_blunder_and_the_shot_its_refutation(
    code, fen, bad, shot, quiet
):
    (check,) = check_game(code, [bad], node_budget=BUDGET, start_fen=fen)
    assert check.ply == 1
    assert check.loss >= 2.0  # two men
    assert check.mark == "blunder"
    assert check.refutation[0] == shot
    assert check.best and check.best[0] != bad
    # Every line it gives is legal by the oracle, from the position it starts from.
    rules = info(code).rules
    pydraughts_line(code, rules.apply(fen, bad), check.refutation)
    pydraughts_line(code, fen, check.best)


@pytest.mark.parametrize(("code", "fen", "bad", "shot", "quiet"), SHOTS)
def test_a_move_that_keeps_the_men_is_not_marked(code, fen, bad, shot, quiet):
    (check,) = check_game(code, [quiet], node_budget=BUDGET, start_fen=fen)
    assert check.mark is None
    assert check.loss < MISTAKE_MEN
    assert check.refutation == ()


@pytest.mark.parametrize(("code", "fen", "bad", "shot", "quiet"), SHOTS)
def test_the_shot_itself_is_what_the_search_plays(code, fen, bad, shot, quiet):
    rules = info(code).rules
    after = rules.position(rules.apply(fen, bad))
    searcher = Searcher(rules.board)
    result = searcher.analyse(after, node_budget=BUDGET)
    assert result.best[0] == rules.find_move(after, shot)
    assert result.score - searcher.material(after) >= 190  # two men won by the side that shoots


def test_a_whole_game_is_checked_ply_by_ply_with_legal_lines():
    """Random games of each variant: one check per ply, every line legal by pydraughts, the
    mark agreeing with the loss."""
    for code in ("italian", "english", "international"):
        rules = info(code).rules
        rng = random.Random(7)
        fen, moves, fens = rules.start_fen(), [], []
        for _ in range(24):
            legal = rules.legal_moves(fen)
            if not legal:
                break
            move = rng.choice(legal)
            fens.append(fen)
            moves.append(move)
            fen = rules.apply(fen, move)
        checks = check_game(code, moves, node_budget=800)
        assert [c.ply for c in checks] == list(range(1, len(moves) + 1))
        for check, before, move in zip(checks, fens, moves, strict=True):
            assert isinstance(check, PlyCheck)
            assert check.loss >= 0
            assert check.mark == mark_for(check.loss)
            if check.best:
                pydraughts_line(code, before, check.best)
            if check.refutation:
                pydraughts_line(code, rules.apply(before, move), check.refutation)
            else:
                assert check.mark is None


def test_marks_follow_the_thresholds():
    assert mark_for(0.0) is None
    assert mark_for(MISTAKE_MEN - 0.1) is None
    assert mark_for(MISTAKE_MEN) == "mistake"
    assert mark_for(1.5) == "mistake"  # a king on 8×8
    assert mark_for(BLUNDER_MEN) == "blunder"
    assert mark_for(3.0) == "blunder"  # a king on 10×10


def test_a_move_that_loses_the_game_within_the_horizon_is_a_blunder():
    # Italian, White to move with one man on 19 against Black's men on 12 and 21... after
    # 19-15 Black takes it (12x19) and White, with no piece left, has lost.
    fen = "W:W19:B12,21"
    checks = check_game("italian", ["19-15"], node_budget=BUDGET, start_fen=fen)
    assert checks[0].mark == "blunder"
    assert checks[0].refutation[0] == "12x19"


def test_the_only_legal_move_is_not_searched():
    # Italian: White's 22 must take 18 (a capture is compulsory) and has nothing else.
    (check,) = check_game("italian", ["22x13"], node_budget=BUDGET, start_fen="W:W22:B18,1")
    assert check == PlyCheck(ply=1, loss=0.0, best=(), refutation=(), mark=None)


def test_bad_input_fails_cleanly():
    with pytest.raises(NotDraughts):
        check_game("chess", ["e2e4"], node_budget=100)
    with pytest.raises(NotDraughts):
        check_game("checkers-of-mars", [], node_budget=100)
    with pytest.raises(IllegalMove):
        check_game("italian", ["22-18", "22-18"], node_budget=100)
    with pytest.raises(InvalidPosition):
        check_game("italian", [], node_budget=100, start_fen="not a position")
    with pytest.raises(ValueError):
        check_game("italian", ["22-18"], node_budget=0)
    assert check_game("italian", [], node_budget=100) == []


def test_the_node_budget_bounds_the_search():
    rules = info("international").rules
    start = rules.position(rules.start_fen())
    searcher = Searcher(rules.board)
    small = searcher.analyse(start, node_budget=500)
    large = Searcher(rules.board).analyse(start, node_budget=20_000)
    # The first iteration always completes; then the budget stops the next one.
    assert small.nodes <= 500 + 2_000
    assert large.nodes <= 20_000 + 1
    assert large.depth > small.depth


def test_the_hash_follows_the_moves():
    """The incremental Zobrist key of a position equals the key computed from scratch."""
    for code in ("italian", "english", "international"):
        rules = info(code).rules
        searcher = Searcher(rules.board)
        rng = random.Random(3)
        pos = rules.position(rules.start_fen())
        key = searcher.key(pos)
        for _ in range(60):
            moves = rules.board.legal_moves(pos)
            if not moves:
                break
            after = rules.board.apply(pos, rng.choice(moves))
            key = searcher._rekey(key, pos, after)
            assert key == searcher.key(after)
            pos = after
