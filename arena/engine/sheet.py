"""A player's arena score sheet and the ranking (RULES 8), pure.

Points are computed from the player's results in order, never incremented: replaying or
repairing the results always gives the same number.

- A win is worth 2, a draw 1, a loss 0.
- Streak: from the third consecutive win on, each win is worth 3; a draw or a loss ends it.
  **Decision**: a game nobody scored (0–0, neither player sat) ends a streak like a loss.
- Boost: a won game taken with boost counts double (2 → 4, 3 → 6); a boosted draw or loss is
  worth what it is.
- Ranking: points, then games won; equal players share a rank (1, 1, 3, …).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

WIN_POINTS, STREAK_WIN_POINTS, DRAW_POINTS = 2, 3, 1
STREAK_FROM = 3  # the third consecutive win is the first worth 3


class Outcome(StrEnum):
    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    NIL = "nil"  # 0–0: the game counted for nobody (RULES 3, both absent)


@dataclass(frozen=True)
class Result:
    """One finished game of the player, in the order they were played."""

    outcome: Outcome
    boosted: bool = False


@dataclass(frozen=True)
class Mark:
    """What one result was worth on the sheet (the leaderboard draws these)."""

    outcome: Outcome
    points: int
    streak: bool  # a win worth 3 (or 6): the player was on a streak
    boosted: bool


@dataclass(frozen=True)
class Sheet:
    marks: tuple[Mark, ...]
    points: int
    wins: int
    games: int
    on_streak: bool  # the next win is worth 3 (the last two or more results were wins)


def sheet(results: Iterable[Result]) -> Sheet:
    marks: list[Mark] = []
    run = 0  # consecutive wins so far
    for result in results:
        if result.outcome is Outcome.WIN:
            run += 1
            streak = run >= STREAK_FROM
            points = STREAK_WIN_POINTS if streak else WIN_POINTS
            if result.boosted:
                points *= 2
        else:
            run = 0
            streak = False
            points = DRAW_POINTS if result.outcome is Outcome.DRAW else 0
        marks.append(Mark(result.outcome, points, streak, result.boosted))
    return Sheet(
        marks=tuple(marks),
        points=sum(m.points for m in marks),
        wins=sum(m.outcome is Outcome.WIN for m in marks),
        games=len(marks),
        on_streak=run >= STREAK_FROM - 1,
    )


def ranks(scores: Sequence[tuple[int, int]]) -> list[int]:
    """The rank of each (points, wins), in the given order: points first, then wins; equal
    scores share a rank, and the next rank skips as many places (1, 1, 3)."""
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
    result = [0] * len(scores)
    for place, i in enumerate(order, start=1):
        if place > 1 and scores[i] == scores[order[place - 2]]:
            result[i] = result[order[place - 2]]
        else:
            result[i] = place
    return result
