"""A tournament performance, by FIDE's formula (FIDE Handbook B.02, rating regulations 8.1;
title regulations 1.48): Rp = Ra + dp.

The Elo Italia regulation (the FSI «Regolamento Elo Italia (REI)», docs/rules.md §7.1) gives no performance formula, so the usual
FIDE one is used and the standings' legend says so (RULES 7.1 for what is rated):

- Ra is the average of the opponents' ratings, the ones held at the start of the period;
- p is the score fraction (game points 1 / ½ / 0 over the games played), rounded to the
  hundredth;
- dp comes from FIDE's table 8.1(a) (p → dp); a score of 100 % or 0 % counts as ±800, as in
  FIDE's current table 8.1.1.

Rp is rounded to the unit, .5 up. Byes and forfeits are not games here: the caller passes the
rated games only. Pure Python, exact arithmetic (no float in any rounding).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal

# FIDE table 8.1(a): dp for p from .50 to 1.00 in hundredths; below .50, dp(p) = -dp(1 - p).
# Index i is p = .50 + i/100.
DP_FROM_HALF: tuple[int, ...] = (
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65,  # .50–.59
    72, 80, 87, 95, 102, 110, 117, 125, 133, 141,  # .60–.69
    149, 158, 166, 175, 184, 193, 202, 211, 220, 230,  # .70–.79
    240, 251, 262, 273, 284, 296, 309, 322, 336, 351,  # .80–.89
    366, 383, 401, 422, 444, 470, 501, 538, 589, 677,  # .90–.99
    800,  # 1.00
)  # fmt: skip

HUNDREDTH = Decimal("0.01")


def dp_of(p: Decimal) -> int:
    """The rating difference of a score fraction p (0 ≤ p ≤ 1), FIDE table 8.1(a)."""
    if not Decimal(0) <= p <= Decimal(1):
        raise ValueError(f"score fraction {p} is not between 0 and 1")
    hundredths = int(p.quantize(HUNDREDTH, rounding=ROUND_HALF_UP) * 100)
    if hundredths >= 50:
        return DP_FROM_HALF[hundredths - 50]
    return -DP_FROM_HALF[50 - hundredths]


def performance(opponent_ratings: Sequence[int], score: Decimal) -> int | None:
    """Rp = Ra + dp over the rated games played: one opponent rating per game (repeated for a
    second game against the same player), `score` in game points. None with no game."""
    games = len(opponent_ratings)
    if games == 0:
        return None
    if not Decimal(0) <= score <= games:
        raise ValueError(f"score {score} over {games} games")
    average = Decimal(sum(opponent_ratings)) / games
    rp = average + dp_of(Decimal(score) / games)
    return int(rp.quantize(Decimal(1), rounding=ROUND_HALF_UP))
