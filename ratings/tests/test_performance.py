"""FIDE performance (ratings/performance.py): Rp = Ra + dp, FIDE table 8.1(a). No database."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.performance import dp_of, performance


@pytest.mark.parametrize(
    ("p", "dp"),
    [
        # Rows read straight from FIDE's table 8.1(a).
        ("1", 800),
        ("0.99", 677),
        ("0.90", 366),
        ("0.83", 273),
        ("0.75", 193),
        ("0.67", 125),
        ("0.51", 7),
        ("0.50", 0),
        ("0.49", -7),
        ("0.33", -125),
        ("0.25", -193),
        ("0.10", -366),
        ("0.01", -677),
        ("0", -800),
        # p is rounded to the hundredth first: 2/3 is .67, 1/3 is .33, .125 is .13.
        (str(Decimal(2) / 3), 125),
        (str(Decimal(1) / 3), -125),
        ("0.125", -322),
    ],
)
def test_dp_follows_fides_table(p: str, dp: int) -> None:
    assert dp_of(Decimal(p)) == dp


@pytest.mark.parametrize(
    ("opponents", "score", "rp"),
    [
        # Half the points against 1500s: exactly their average.
        ([1500, 1500], Decimal("1"), 1500),
        # 3 of 4 (p .75, dp 193) against an average of 1600.
        ([1500, 1600, 1700, 1600], Decimal("3"), 1793),
        # All won: Ra + 800; all lost: Ra − 800.
        ([1550], Decimal("1"), 2350),
        ([1550], Decimal("0"), 750),
        # 2.5 of 3 (p .83, dp 273) against an average of 1433.33…: 1706.33 → 1706.
        ([1400, 1400, 1500], Decimal("2.5"), 1706),
        # Ra 1500.5 + 0 rounds half up to 1501.
        ([1500, 1501], Decimal("1"), 1501),
        # Two games against the same player count as two games (RULES 4.5).
        ([1800, 1800, 1500], Decimal("1.5"), 1700),
    ],
)
def test_performance_is_average_plus_dp(opponents: list[int], score: Decimal, rp: int) -> None:
    assert performance(opponents, score) == rp


def test_no_game_no_performance() -> None:
    assert performance([], Decimal(0)) is None


@pytest.mark.parametrize(("opponents", "score"), [([1500], Decimal("1.5")), ([1500], Decimal(-1))])
def test_impossible_scores_are_refused(opponents: list[int], score: Decimal) -> None:
    with pytest.raises(ValueError):
        performance(opponents, score)


@given(
    st.lists(st.integers(600, 2800), min_size=1, max_size=12),
    st.data(),
)
def test_more_points_never_lower_the_performance(opponents: list[int], data) -> None:
    halves = data.draw(st.integers(0, 2 * len(opponents) - 1))
    lower = performance(opponents, Decimal(halves) / 2)
    higher = performance(opponents, Decimal(halves + 1) / 2)
    assert lower is not None and higher is not None and lower <= higher
