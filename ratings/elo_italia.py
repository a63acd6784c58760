"""Elo Italia: the Italian federation's rating maths (the FSI «Regolamento Elo Italia», REI;
RULES 7.1).

Pure Python: nothing here imports Django, so the rules are tested on their own and the command
line works without settings::

    python -m ratings.elo_italia --rating 1830 \\
        --opponents 1824,1898,1830,1850,1720,1800,1860,1790 --score 5 --explain

One *period* is what the regulation rates at once: a single game (challenges and arena games,
RULES 7.1) or a whole tournament. The player's own rating and every opponent's rating are the
ones held at the start of the period (REI art. 4).

All arithmetic is exact: percentages are whole numbers, so the expected total is kept in
hundredths, points in halves and the change in tenths; no float takes part in any rounding.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from enum import StrEnum

# REI "Sistema di calcolo" A: a difference above 350 points counts as 350.
DIFFERENCE_CAP = 350

# REI "Tabella Elo": (largest difference of the row, expected % of the higher-rated player).
# The lower-rated player expects the complement (100 - %). Rows are contiguous from 0; the last
# row ("345 e oltre") covers everything up to the cap, so it is written with the cap itself.
EXPECTATION_TABLE: tuple[tuple[int, int], ...] = (
    (3, 50),
    (10, 51),
    (17, 52),
    (25, 53),
    (32, 54),
    (39, 55),
    (46, 56),
    (53, 57),
    (61, 58),
    (68, 59),
    (76, 60),
    (83, 61),
    (91, 62),
    (98, 63),
    (106, 64),
    (113, 65),
    (121, 66),
    (129, 67),
    (137, 68),
    (145, 69),
    (153, 70),
    (162, 71),
    (170, 72),
    (179, 73),
    (188, 74),
    (197, 75),
    (206, 76),
    (215, 77),
    (225, 78),
    (235, 79),
    (245, 80),
    (256, 81),
    (267, 82),
    (278, 83),
    (290, 84),
    (302, 85),
    (315, 86),
    (328, 87),
    (344, 88),
    (DIFFERENCE_CAP, 89),
)


def expected_percent(rating: int, opponent: int) -> int:
    """The percentage `rating` is expected to score against `opponent` (REI table, art. A)."""
    difference = min(abs(rating - opponent), DIFFERENCE_CAP)  # REI A: over 350 counts as 350
    for upper, higher_percent in EXPECTATION_TABLE:
        if difference <= upper:
            return higher_percent if rating >= opponent else 100 - higher_percent
    raise AssertionError("unreachable: the table's last row is the cap")  # pragma: no cover


def round_expected_tenths(total_percent: int) -> int:
    """PA in tenths of a point from the sum of the percentages (hundredths of a point).

    REI B: the second decimal 1-5 rounds down to zero, 6-9 rounds up to the next tenth
    (4,15 -> 4,1; 4,16 -> 4,2). RULES 7.1 restates it.
    """
    if total_percent < 0:
        raise ValueError("the expected total cannot be negative")
    tenths, second_decimal = divmod(total_percent, 10)
    return tenths + 1 if second_decimal >= 6 else tenths


def k_factor(rating: int) -> int:
    """REI C, as RULES 7.1 states it by rating: 30 below 2200, 20 for 2200-2399, 10 from 2400."""
    if rating >= 2400:
        return 10
    if rating >= 2200:
        return 20
    return 30


class Category(StrEnum):
    """REI art. 8 categories, by code; the Italian names are in CATEGORY_NAMES."""

    INTERNATIONAL_MASTER = "MI"
    MASTER = "M"
    CANDIDATE_MASTER = "CM"
    FIRST_NATIONAL = "1N"
    SECOND_NATIONAL = "2N"
    THIRD_NATIONAL = "3N"
    FIRST_SOCIAL = "1S"
    LOWER = "NC"


# RULES 7.1 (REI art. 8 thresholds): the first row whose threshold the rating reaches.
CATEGORY_THRESHOLDS: tuple[tuple[int, Category], ...] = (
    (2400, Category.INTERNATIONAL_MASTER),
    (2200, Category.MASTER),
    (2000, Category.CANDIDATE_MASTER),
    (1800, Category.FIRST_NATIONAL),
    (1600, Category.SECOND_NATIONAL),
    (1500, Category.THIRD_NATIONAL),
    (1400, Category.FIRST_SOCIAL),
)

# The federation's own names (REI art. 8), for the command line; the site translates them.
CATEGORY_NAMES: dict[Category, str] = {
    Category.INTERNATIONAL_MASTER: "Maestro Internazionale",
    Category.MASTER: "Maestro",
    Category.CANDIDATE_MASTER: "Candidato Maestro",
    Category.FIRST_NATIONAL: "Prima Nazionale",
    Category.SECOND_NATIONAL: "Seconda Nazionale",
    Category.THIRD_NATIONAL: "Terza Nazionale",
    Category.FIRST_SOCIAL: "Prima Sociale",
    Category.LOWER: "Categorie Inferiori",
}


def category(rating: int) -> Category:
    """The category shown beside a rating (RULES 7.1): below 1400, Categorie Inferiori."""
    for threshold, name in CATEGORY_THRESHOLDS:
        if rating >= threshold:
            return name
    return Category.LOWER


@dataclass(frozen=True)
class Expectation:
    """One game of the period: the opponent's rating, the signed difference, the expected %."""

    opponent: int
    difference: int
    percent: int


@dataclass(frozen=True)
class PeriodResult:
    """The outcome of one rating period, with every intermediate figure of the regulation."""

    rating: int
    k: int
    expectations: tuple[Expectation, ...]
    expected_percent_total: int  # sum of the percentages, in hundredths of a point
    expected_tenths: int  # PA, rounded per REI B, in tenths of a point
    score_halves: int  # P, in half points
    change_tenths: int  # V = K x (P - PA), in tenths of a point, before Art. 11
    first_protected: bool  # Art. 11 cancelled a negative change
    new_rating: int

    @property
    def games(self) -> int:
        return len(self.expectations)

    @property
    def expected(self) -> Decimal:
        """PA as a decimal number of points (one decimal)."""
        return Decimal(self.expected_tenths) / 10

    @property
    def score(self) -> Decimal:
        return Decimal(self.score_halves) / 2

    @property
    def change(self) -> Decimal:
        """V as the regulation computes it, before rounding and before Art. 11."""
        return Decimal(self.change_tenths) / 10

    @property
    def delta(self) -> int:
        """What is actually added to the rating: new rating minus old rating."""
        return self.new_rating - self.rating


def score_to_halves(score: Decimal | int | str) -> int:
    """Points (1, ½, 0 per game, summed) as a whole number of half points."""
    try:
        value = Decimal(str(score).replace(",", "."))  # "4,5" is how Italians write 4.5
    except InvalidOperation:
        raise ValueError(f"not a score: {score!r}") from None
    doubled = value * 2
    if doubled != doubled.to_integral_value():
        raise ValueError(f"a score is a whole or half number of points: {score!r}")
    return int(doubled)


def rate_period(
    rating: int,
    opponents: Sequence[int],
    score: Decimal | int | str,
    *,
    k: int | None = None,
    first: bool = False,
) -> PeriodResult:
    """Rate one period: NI = I + K(P - PA), rounded to the unit (REI C and D).

    `opponents` are the opponents' ratings, one per game (the same opponent twice in a double
    round counts twice); `score` is the points scored in those games. `k` overrides the factor
    the rating gives; `first=True` is REI art. 11: the player finished first (ex aequo
    included), so a negative change is not applied.
    """
    score_halves = score_to_halves(score)
    if not 0 <= score_halves <= 2 * len(opponents):
        raise ValueError(f"a score of {score} is impossible in {len(opponents)} game(s)")
    k_used = k_factor(rating) if k is None else k
    if k_used < 0:
        raise ValueError("K cannot be negative")

    expectations = tuple(
        Expectation(
            opponent=opponent,
            difference=rating - opponent,
            percent=expected_percent(rating, opponent),
        )
        for opponent in opponents
    )
    total_percent = sum(e.percent for e in expectations)
    expected_tenths = round_expected_tenths(total_percent)  # REI B
    change_tenths = k_used * (score_halves * 5 - expected_tenths)  # REI C, in tenths

    first_protected = first and change_tenths < 0  # REI art. 11
    applied_tenths = 0 if first_protected else change_tenths
    # REI D: ,1-,4 down, ,5-,9 up (towards the higher rating).
    new_rating = (rating * 10 + applied_tenths + 5) // 10

    return PeriodResult(
        rating=rating,
        k=k_used,
        expectations=expectations,
        expected_percent_total=total_percent,
        expected_tenths=expected_tenths,
        score_halves=score_halves,
        change_tenths=change_tenths,
        first_protected=first_protected,
        new_rating=new_rating,
    )


# ---------------------------------------------------------------------------------------------
# Command line


def _format_points(value: Decimal) -> str:
    return f"{value:.1f}".replace(".", ",")


def explain(result: PeriodResult) -> str:
    """A table in the regulation's layout (`ESEMPIO DI CALCOLO`), followed by the totals."""
    lines = [f"{'#':>3} {'Avv.':>6} {'Diff.':>6} {'%':>4}"]
    for number, e in enumerate(result.expectations, start=1):
        lines.append(f"{number:>3} {e.opponent:>6} {e.difference:>+6d} {e.percent:>4}")
    total = Decimal(result.expected_percent_total) / 100
    lines += [
        f"Somma delle percentuali: {total:.2f}".replace(".", ","),
        f"PA = {_format_points(result.expected)}",
        f"P = {_format_points(result.score)}",
        f"K = {result.k}",
        f"V = K(P-PA) = {result.k}({_format_points(result.score)}-"
        f"{_format_points(result.expected)}) = {_format_points(result.change)}",
    ]
    if result.first_protected:
        lines.append("Art. 11: primo classificato, la variazione negativa non viene applicata")
    lines.append(f"Nuovo indice = {result.new_rating}")
    return "\n".join(lines)


def _ratings_list(text: str) -> list[int]:
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"a comma-separated list of ratings: {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ratings.elo_italia",
        description="Elo Italia (REI): the new rating after one period of games.",
    )
    parser.add_argument("--rating", type=int, required=True, help="the player's rating")
    parser.add_argument(
        "--opponents",
        type=_ratings_list,
        required=True,
        help="the opponents' ratings, comma-separated, one per game",
    )
    parser.add_argument("--score", required=True, help="points scored (1 / 0.5 / 0 per game)")
    parser.add_argument("--k", type=int, default=None, help="override K (default: by rating)")
    parser.add_argument(
        "--first", action="store_true", help="finished first (art. 11: no negative change)"
    )
    parser.add_argument("--explain", action="store_true", help="show every step of the sum")
    args = parser.parse_args(argv)
    try:
        result = rate_period(args.rating, args.opponents, args.score, k=args.k, first=args.first)
    except ValueError as error:
        parser.error(str(error))
    print(explain(result) if args.explain else result.new_rating)
    return 0


if __name__ == "__main__":
    sys.exit(main())
