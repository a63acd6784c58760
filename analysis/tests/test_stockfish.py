"""The engine driver (analysis/stockfish.py) with the real Stockfish (Debian's package, which
`make test` installs) and with engines that are missing or crash."""

from __future__ import annotations

import chess
import pytest
from django.conf import settings

from analysis import stockfish
from analysis.judgement import CP_CEILING, Mark, judge
from analysis.tests.engines import crashing_engine

START = chess.STARTING_FEN
NODES = 60_000  # enough to see a mate in one and a queen hanging; fast

# 1.e4 e5 2.Bc4 Nc6 3.Qh5 Nf6?? 4.Qxf7#: Black's third move loses at once.
SCHOLAR = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]
# 1.f3 e5 2.g4?? Qh4#: White's second move loses at once.
FOOL = ["f2f3", "e7e5", "g2g4", "d8h4"]


def test_the_scholars_mate_marks_blacks_blunder_and_evaluates_for_white():
    evals = stockfish.evaluate_line(settings.STOCKFISH_PATH, START, SCHOLAR, NODES)
    assert len(evals) == len(SCHOLAR) + 1
    verdict = judge([e.score for e in evals], white_first=True)
    # Black's 3...Nf6 (ply 6) is the blunder; no move of White's is.
    assert verdict.moves[5].mark == Mark.BLUNDER
    assert all(m.mark != Mark.BLUNDER for i, m in enumerate(verdict.moves) if i % 2 == 0)
    # After 3...Nf6 White mates in one: a mate for White, positive from White's side.
    assert evals[6].score.mate == 1
    assert evals[6].best[0] == "h5f7"
    # The final position: Black is mated, the evaluation White's ceiling.
    assert evals[7].score.mate == 0 and evals[7].score.white_cp() == CP_CEILING
    # The engine knew better than 3...Nf6: its best move there was another.
    assert evals[5].best and evals[5].best[0] != "g8f6"
    assert verdict.black_accuracy < verdict.white_accuracy


def test_the_fools_mate_marks_whites_blunder_and_evaluates_for_black():
    evals = stockfish.evaluate_line(settings.STOCKFISH_PATH, START, FOOL, NODES)
    verdict = judge([e.score for e in evals], white_first=True)
    assert verdict.moves[2].mark == Mark.BLUNDER  # 2.g4??
    assert verdict.moves[1].mark is None and verdict.moves[3].mark is None
    assert evals[3].score.mate == -1  # Black mates in one: negative from White's side
    assert evals[4].score.white_cp() == -CP_CEILING
    assert evals[0].score.cp is not None and -100 < evals[0].score.cp < 100


def test_one_position_for_the_free_board():
    found = stockfish.evaluate_position(
        settings.STOCKFISH_PATH, "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", NODES
    )
    assert found.score.mate == 1 and found.best[0] == "a1a8"
    with pytest.raises(ValueError):
        stockfish.evaluate_position(settings.STOCKFISH_PATH, "8/8/8/8/8/8/8/8 w - - 0 1", NODES)


def test_an_illegal_move_is_refused_before_the_engine_starts(tmp_path):
    with pytest.raises(ValueError):
        stockfish.evaluate_line(str(tmp_path / "none"), START, ["e2e5"], NODES)


def test_a_missing_engine_is_unavailable(tmp_path):
    assert not stockfish.engine_found(str(tmp_path / "stockfish"))
    with pytest.raises(stockfish.EngineUnavailable):
        stockfish.evaluate_line(str(tmp_path / "stockfish"), START, FOOL, NODES)
    not_an_engine = tmp_path / "not-an-engine"
    not_an_engine.write_text("#!/bin/sh\nexit 0\n")
    not_an_engine.chmod(0o755)
    with pytest.raises((stockfish.EngineUnavailable, stockfish.EngineFailed)):
        stockfish.evaluate_line(str(not_an_engine), START, FOOL, NODES)


def test_an_engine_that_crashes_mid_game_fails_the_analysis(tmp_path):
    engine = crashing_engine(tmp_path, survive=1)
    with pytest.raises(stockfish.EngineFailed):
        stockfish.evaluate_line(engine, START, FOOL, NODES)
