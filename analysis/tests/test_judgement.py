"""RULES 14.3, 14.4: winning chances, marks and accuracy, pure (no engine, no database)."""

from __future__ import annotations

import pytest

from analysis.judgement import CP_CEILING, Mark, Score, judge, mark_of, move_accuracy, win_percent


def test_win_percent_is_even_at_zero_symmetric_and_clamped():
    assert win_percent(0) == 50
    assert win_percent(300) + win_percent(-300) == pytest.approx(100)
    assert win_percent(100) < win_percent(200) < win_percent(CP_CEILING)
    assert win_percent(5000) == win_percent(CP_CEILING)  # the clamp
    # lichess's published point: +1 pawn is about 59 % for White
    assert win_percent(100) == pytest.approx(59.1, abs=0.1)


def test_a_mate_counts_as_the_ceiling_for_its_side():
    assert Score(mate=3).white_cp() == CP_CEILING
    assert Score(mate=-1).white_cp() == -CP_CEILING
    assert Score(mate=0, cp=-CP_CEILING).white_cp() == -CP_CEILING  # White was mated
    assert Score(cp=2500).white_cp() == CP_CEILING


@pytest.mark.parametrize(
    ("drop", "mark"),
    [
        (0.0, None),
        (4.99, None),
        (5.0, Mark.INACCURACY),
        (9.99, Mark.INACCURACY),
        (10.0, Mark.MISTAKE),
        (14.99, Mark.MISTAKE),
        (15.0, Mark.BLUNDER),
        (60.0, Mark.BLUNDER),
    ],
)
def test_the_mark_thresholds(drop, mark):
    assert mark_of(drop) == mark


def test_move_accuracy_is_100_without_loss_and_falls_with_it():
    assert move_accuracy(60, 60) == 100
    assert move_accuracy(40, 70) == 100  # better than the engine's line: no loss
    assert 90 < move_accuracy(60, 58) < 100
    assert move_accuracy(60, 50) > move_accuracy(60, 40) > move_accuracy(90, 10) >= 0


def test_a_black_blunder_is_blacks_and_a_white_one_whites():
    # Even, even, then Black's move gives White a winning position, then White's move gives it
    # back and more.
    scores = [Score(cp=20), Score(cp=10), Score(cp=600), Score(cp=-700)]
    verdict = judge(scores, white_first=True)
    assert [m.mark for m in verdict.moves] == [None, Mark.BLUNDER, Mark.BLUNDER]
    assert verdict.moves[0].drop == pytest.approx(
        win_percent(20) - win_percent(10)
    )  # White's own loss, from White's side
    # The same evaluations with Black moving first: every move now gains for its mover.
    flipped = judge(scores, white_first=False)
    assert [m.mark for m in flipped.moves] == [None, None, None]
    assert verdict.white_accuracy < 100 and verdict.black_accuracy < 100


def test_a_side_with_only_good_moves_is_accurate_and_one_with_a_blunder_is_not():
    scores = [Score(cp=30), Score(cp=30), Score(cp=30), Score(cp=-500), Score(cp=-500)]
    verdict = judge(scores, white_first=True)
    assert verdict.black_accuracy == 100
    assert verdict.white_accuracy < 70
    assert [m.mark for m in verdict.moves] == [None, None, Mark.BLUNDER, None]


def test_a_line_without_moves_has_no_accuracy():
    verdict = judge([Score(cp=0)], white_first=True)
    assert verdict.moves == () and verdict.white_accuracy is None
    with pytest.raises(ValueError):
        judge([], white_first=True)
