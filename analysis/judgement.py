"""How an engine's evaluations become marks and accuracy (RULES 14.3, 14.4). Pure: numbers in,
numbers out, no Django and no engine (STYLE 1).

The formulas are lichess's published ones (its page "Accuracy", https://lichess.org/page/accuracy,
and its source, lila's modules/analyse: WinPercent, AccuracyPercent, Advice), written here in our
own words; where our reading had to choose, RULES 14 says so:

- an evaluation is in centipawns from White's side, clamped to +-1000; a mate counts as the
  clamp, for the side that mates (lila does the same);
- a side's winning chance is 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1) per cent;
- a move's drop is the mover's winning chance before it (the engine's best play there) less
  after it; 5 points or more is an inaccuracy, 10 a mistake, 15 a blunder (lila's 0.1, 0.2, 0.3
  on its -1..1 scale of winning chances);
- a move's accuracy is 103.1668 * exp(-0.04354 * drop) - 3.1669, plus 1, within 0..100;
- a side's accuracy is the mean of two means of its moves' accuracies: one weighted by how
  sharp the game was around each move (the spread of the winning chances in a window of
  moves), one harmonic.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

CP_CEILING = 1000  # centipawns; a mate counts as this much


@dataclass(frozen=True, slots=True)
class Score:
    """An evaluation from White's side: centipawns, or a mate in `mate` moves (positive: White
    mates). A position where mate has been given has `mate` 0 and `cp` at the ceiling of the
    side that gave it."""

    cp: int | None = None
    mate: int | None = None

    def white_cp(self) -> int:
        """Centipawns for White within the ceiling; a mate is the ceiling for its side."""
        if self.mate:
            return CP_CEILING if self.mate > 0 else -CP_CEILING
        return max(-CP_CEILING, min(CP_CEILING, self.cp or 0))


class Mark(StrEnum):
    INACCURACY = "inaccuracy"
    MISTAKE = "mistake"
    BLUNDER = "blunder"


# Drops in winning-chance points (RULES 14.3), largest first.
THRESHOLDS: tuple[tuple[float, Mark], ...] = (
    (15.0, Mark.BLUNDER),
    (10.0, Mark.MISTAKE),
    (5.0, Mark.INACCURACY),
)
# The NAG a mark is written with in PGN (PGN 10: $6 ?!, $2 ?, $4 ??).
NAGS = {Mark.INACCURACY: 6, Mark.MISTAKE: 2, Mark.BLUNDER: 4}


def win_percent(white_cp: int) -> float:
    """White's winning chance, in per cent, from an evaluation in centipawns."""
    cp = max(-CP_CEILING, min(CP_CEILING, white_cp))
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * cp)) - 1)


def mark_of(drop: float) -> Mark | None:
    for threshold, mark in THRESHOLDS:
        if drop >= threshold:
            return mark
    return None


def move_accuracy(before: float, after: float) -> float:
    """A move's accuracy from the mover's winning chances before and after it."""
    if after >= before:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * (before - after)) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1))


@dataclass(frozen=True, slots=True)
class MoveJudgement:
    drop: float  # winning-chance points the mover lost, 0 when none
    accuracy: float
    mark: Mark | None


@dataclass(frozen=True, slots=True)
class GameJudgement:
    moves: tuple[MoveJudgement, ...]
    white_accuracy: float | None  # None for a side with no move
    black_accuracy: float | None


def judge(scores: Sequence[Score], white_first: bool) -> GameJudgement:
    """Marks and accuracy of a line: `scores` are the evaluations of its positions, the start
    first, one more than its moves; `white_first` whether White played the first move."""
    if not scores:
        raise ValueError("a line has at least its start position")
    wins = [win_percent(score.white_cp()) for score in scores]
    moves: list[MoveJudgement] = []
    for index in range(1, len(wins)):
        white_moved = (index % 2 == 1) == white_first
        before, after = wins[index - 1], wins[index]
        if not white_moved:
            before, after = 100 - before, 100 - after
        drop = max(0.0, before - after)
        moves.append(MoveJudgement(drop, move_accuracy(before, after), mark_of(drop)))
    white, black = _sides_accuracy(wins, moves, white_first)
    return GameJudgement(tuple(moves), white, black)


def _sides_accuracy(
    wins: list[float], moves: list[MoveJudgement], white_first: bool
) -> tuple[float | None, float | None]:
    """Each side's accuracy: the mean of the volatility-weighted mean and the harmonic mean of
    its moves' accuracies. A move's weight is the standard deviation of White's winning chances
    in the window of positions ending after it (the first windows repeat the first one), kept
    within 0.5..12, so a calm stretch weighs less than a sharp one."""
    if not moves:
        return None, None
    size = max(2, min(8, len(moves) // 10))
    first = wins[:size]
    windows = [first] * max(0, min(size, len(wins)) - 2)
    windows += [wins[i : i + size] for i in range(0, max(1, len(wins) - size + 1))]
    weights = [max(0.5, min(12.0, statistics.pstdev(w))) for w in windows]
    sides: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
    for index, move in enumerate(moves):
        white_moved = (index % 2 == 0) == white_first
        weight = weights[index] if index < len(weights) else weights[-1]
        sides[white_moved].append((move.accuracy, weight))
    return _accuracy(sides[True]), _accuracy(sides[False])


def _accuracy(pairs: list[tuple[float, float]]) -> float | None:
    if not pairs:
        return None
    weighted = sum(a * w for a, w in pairs) / sum(w for _, w in pairs)
    # A move of accuracy 0 would make the harmonic mean 0: lila takes it at 0 the same way
    # (its harmonic mean of a list holding 0 is 0); a floor of a hundredth keeps it finite.
    harmonic = len(pairs) / sum(1 / max(a, 0.01) for a, _ in pairs)
    return round((weighted + harmonic) / 2, 1)
