"""Elo Italia pure rules (REI, the FSI «Regolamento Elo Italia (REI)»; RULES 7.1). No database."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings.elo_italia import (
    Category,
    category,
    expected_percent,
    k_factor,
    main,
    rate_period,
    round_expected_tenths,
)

PROJECT_ROOT = Path(__file__).resolve().parents[2]

# The regulation's worked example ("ESEMPIO DI CALCOLO"): a Prima Nazionale at 1830, K 30.
EXAMPLE_OPPONENTS = [1824, 1898, 1830, 1850, 1720, 1800, 1860, 1790]
EXAMPLE_PERCENTS = [51, 41, 50, 47, 65, 54, 46, 56]

# The "TABELLA ELO" exactly as the regulation prints it (difference, % higher, % lower), parsed
# here independently of the module's table so that a typo in either one fails the tests.
REGULATION_TABLE_TEXT = """
0-3 50 50 146-153 70 30 4-10 51 49 154-162 71 29 11-17 52 48 163-170 72 28 18-25 53 47
171-179 73 27 26-32 54 46 180-188 74 26 33-39 55 45 189-197 75 25 40-46 56 44 198-206 76 24
47-53 57 43 207-215 77 23 54-61 58 42 216-225 78 22 62-68 59 41 226-235 79 21 69-76 60 40
236-245 80 20 77-83 61 39 246-256 81 19 84-91 62 38 257-267 82 18 92-98 63 37 268-278 83 17
99-106 64 36 279-290 84 16 107-113 65 35 291-302 85 15 114-121 66 34 303-315 86 14
122-129 67 33 316-328 87 13 130-137 68 32 329-344 88 12 138-145 69 31 345 e oltre 89 11
"""


def regulation_rows() -> list[tuple[int, int, int, int]]:
    """(low, high, % higher, % lower) for every row; "345 e oltre" runs to the 350 cap."""
    rows = [
        (int(low), int(high), int(plus), int(minus))
        for low, high, plus, minus in re.findall(r"(\d+)-(\d+) (\d+) (\d+)", REGULATION_TABLE_TEXT)
    ]
    last = re.search(r"(\d+) e oltre (\d+) (\d+)", REGULATION_TABLE_TEXT)
    assert last is not None
    rows.append((int(last[1]), 350, int(last[2]), int(last[3])))
    rows.sort()
    assert len(rows) == 40
    return rows


ROWS = regulation_rows()
BOUNDARIES = sorted(
    {(low, plus, minus) for low, _, plus, minus in ROWS}
    | {(high, plus, minus) for _, high, plus, minus in ROWS}
)


def test_regulation_table_is_contiguous_and_complementary() -> None:
    assert ROWS[0][0] == 0
    for (_, high, _, _), (low, _, _, _) in zip(ROWS, ROWS[1:], strict=False):
        assert low == high + 1
    assert all(plus + minus == 100 for _, _, plus, minus in ROWS)


@pytest.mark.parametrize(("difference", "higher", "lower"), BOUNDARIES)
def test_every_boundary_row_of_the_table(difference: int, higher: int, lower: int) -> None:
    # REI A: the higher-rated player expects % +, the lower-rated one % -.
    assert expected_percent(1500 + difference, 1500) == higher
    assert expected_percent(1500, 1500 + difference) == lower


@pytest.mark.parametrize("difference", [345, 350, 351, 400, 1000, 2500])
def test_differences_over_350_count_as_350(difference: int) -> None:
    # REI A: over 350 counts as 350 (the 345+ row: 89 / 11).
    assert expected_percent(1000 + difference, 1000) == 89
    assert expected_percent(1000, 1000 + difference) == 11


def test_equal_ratings_expect_half() -> None:
    assert expected_percent(1830, 1830) == 50


@pytest.mark.parametrize(
    ("total_percent", "tenths"),
    [
        (410, 41),  # 4,10 -> 4,1
        (411, 41),  # 4,11: second decimal 1 -> down
        (415, 41),  # 4,15: second decimal 5 -> down (REI B: from 0,01 to 0,05 to zero)
        (416, 42),  # 4,16: second decimal 6 -> up (REI B: from 0,06 to 0,09 to ten)
        (419, 42),  # 4,19 -> 4,2
        (495, 49),
        (496, 50),  # 4,96 -> 5,0: the carry crosses the unit
        (0, 0),
    ],
)
def test_expected_total_rounding(total_percent: int, tenths: int) -> None:
    assert round_expected_tenths(total_percent) == tenths


def test_pa_rounding_x_x5_goes_down_in_a_period() -> None:
    # 57 + 58 = 1,15 -> PA 1,1; with one win and one loss V = 30 x (1 - 1,1) = -3.
    result = rate_period(1550, [1500, 1495], 1)
    assert [e.percent for e in result.expectations] == [57, 58]
    assert result.expected == Decimal("1.1")
    assert result.new_rating == 1547


def test_pa_rounding_x_x6_goes_up_in_a_period() -> None:
    # 58 + 58 = 1,16 -> PA 1,2; V = 30 x (1 - 1,2) = -6.
    result = rate_period(1555, [1500, 1497], 1)
    assert [e.percent for e in result.expectations] == [58, 58]
    assert result.expected == Decimal("1.2")
    assert result.new_rating == 1549


def test_worked_example_of_the_regulation() -> None:
    result = rate_period(1830, EXAMPLE_OPPONENTS, 5)
    assert [e.percent for e in result.expectations] == EXAMPLE_PERCENTS
    assert [e.difference for e in result.expectations] == [6, -68, 0, -20, 110, 30, -30, 40]
    assert result.expected_percent_total == 410
    assert result.expected == Decimal("4.1")
    assert result.k == 30
    assert result.change == Decimal("27")
    assert result.new_rating == 1857
    assert result.delta == 27


@pytest.mark.parametrize(
    ("rating", "k"),
    [(1000, 30), (2199, 30), (2200, 20), (2399, 20), (2400, 10), (2800, 10)],
)
def test_k_bands(rating: int, k: int) -> None:
    assert k_factor(rating) == k


@pytest.mark.parametrize(("rating", "gain"), [(2199, 15), (2200, 10), (2399, 10), (2400, 5)])
def test_k_band_is_used_by_the_period(rating: int, gain: int) -> None:
    # A win against an equal opponent: P - PA = 0,5, so V = K / 2.
    assert rate_period(rating, [rating], 1).new_rating == rating + gain


def test_k_can_be_overridden() -> None:
    assert rate_period(1830, EXAMPLE_OPPONENTS, 5, k=20).new_rating == 1848


@pytest.mark.parametrize(
    ("k", "new_rating"),
    [
        (25, 1513),  # V = 25 x 0,5 = 12,5 -> 1512,5 -> 1513 (REI D: ,5 up)
        (23, 1512),  # V = 11,5 -> 1511,5 -> 1512
        (21, 1511),  # V = 10,5 -> 1510,5 -> 1511
    ],
)
def test_new_rating_rounds_half_up(k: int, new_rating: int) -> None:
    assert rate_period(1500, [1500], 1, k=k).new_rating == new_rating


@pytest.mark.parametrize(("k", "new_rating"), [(25, 1488), (23, 1489), (27, 1487)])
def test_negative_change_rounds_half_up_too(k: int, new_rating: int) -> None:
    # V = -12,5 -> 1487,5 -> 1488; -11,5 -> 1488,5 -> 1489; -13,5 -> 1486,5 -> 1487.
    assert rate_period(1500, [1500], 0, k=k).new_rating == new_rating


def test_art_11_first_place_keeps_a_negative_change_out() -> None:
    # 4 / 8 against the example field: V = 30 x (4 - 4,1) = -3.
    assert rate_period(1830, EXAMPLE_OPPONENTS, 4).new_rating == 1827
    protected = rate_period(1830, EXAMPLE_OPPONENTS, 4, first=True)
    assert protected.new_rating == 1830
    assert protected.first_protected
    assert protected.change == Decimal("-3")


def test_art_11_does_not_touch_a_positive_change() -> None:
    result = rate_period(1830, EXAMPLE_OPPONENTS, 5, first=True)
    assert result.new_rating == 1857
    assert not result.first_protected


def test_half_points_and_italian_decimal_comma() -> None:
    assert rate_period(1830, EXAMPLE_OPPONENTS, "4,5").new_rating == 1842
    assert rate_period(1830, EXAMPLE_OPPONENTS, Decimal("4.5")).new_rating == 1842


@pytest.mark.parametrize("score", ["9", "-1", "4.25", "x"])
def test_impossible_scores_are_refused(score: str) -> None:
    with pytest.raises(ValueError):
        rate_period(1830, EXAMPLE_OPPONENTS, score)


def test_a_period_without_games_changes_nothing() -> None:
    assert rate_period(1700, [], 0).new_rating == 1700


@pytest.mark.parametrize(
    ("rating", "code"),
    [
        (2400, Category.INTERNATIONAL_MASTER),
        (2399, Category.MASTER),
        (2200, Category.MASTER),
        (2199, Category.CANDIDATE_MASTER),
        (2000, Category.CANDIDATE_MASTER),
        (1999, Category.FIRST_NATIONAL),
        (1800, Category.FIRST_NATIONAL),
        (1799, Category.SECOND_NATIONAL),
        (1600, Category.SECOND_NATIONAL),
        (1599, Category.THIRD_NATIONAL),
        (1500, Category.THIRD_NATIONAL),
        (1499, Category.FIRST_SOCIAL),
        (1400, Category.FIRST_SOCIAL),
        (1399, Category.LOWER),
        (800, Category.LOWER),
    ],
)
def test_categories(rating: int, code: Category) -> None:
    assert category(rating) is code


@given(
    st.integers(min_value=800, max_value=2800),
    st.lists(st.integers(min_value=800, max_value=2800), min_size=1, max_size=12),
    st.data(),
)
def test_period_properties(rating: int, opponents: list[int], data: st.DataObject) -> None:
    halves = data.draw(st.integers(min_value=0, max_value=2 * len(opponents)))
    result = rate_period(rating, opponents, Decimal(halves) / 2)
    # Scoring more never lowers the new rating; a perfect score never loses points,
    # a zero score never gains; the symmetric expectations of a pair add up to 100.
    if halves < 2 * len(opponents):
        better = rate_period(rating, opponents, Decimal(halves + 1) / 2)
        assert better.new_rating >= result.new_rating
    if halves == 2 * len(opponents):
        assert result.delta >= 0
    if halves == 0:
        assert result.delta <= 0
    for opponent in opponents:
        assert expected_percent(rating, opponent) + expected_percent(opponent, rating) == 100
    assert abs(result.delta) <= result.k * len(opponents)


# --- command line --------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    # No Django settings in the environment: the module must not need them.
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "-m", "ratings.elo_italia", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


EXAMPLE_ARGS = ("--rating", "1830", "--opponents", ",".join(map(str, EXAMPLE_OPPONENTS)))


def test_cli_worked_example() -> None:
    completed = run_cli(*EXAMPLE_ARGS, "--score", "5")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "1857"


def test_cli_explain_shows_each_game_pa_and_v() -> None:
    completed = run_cli(*EXAMPLE_ARGS, "--score", "5", "--explain")
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    for opponent, percent in zip(EXAMPLE_OPPONENTS, EXAMPLE_PERCENTS, strict=True):
        assert re.search(rf"\b{opponent}\s+[+-]\d+\s+{percent}\b", out)
    assert "PA = 4,1" in out
    assert "V = K(P-PA) = 30(5,0-4,1) = 27,0" in out
    assert out.strip().endswith("Nuovo indice = 1857")


def test_cli_k_and_first(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*EXAMPLE_ARGS, "--score", "4", "--first"]) == 0
    assert capsys.readouterr().out.strip() == "1830"
    assert main([*EXAMPLE_ARGS, "--score", "5", "--k", "10"]) == 0
    assert capsys.readouterr().out.strip() == "1839"


def test_cli_refuses_an_impossible_score() -> None:
    completed = run_cli(*EXAMPLE_ARGS, "--score", "9")
    assert completed.returncode == 2
    assert "impossible" in completed.stderr


@pytest.mark.parametrize(
    "module", ["ratings.elo_italia", "ratings.chart", "games.rules.timecontrol"]
)
def test_pure_modules_import_nothing_from_django(module: str) -> None:
    # STYLE 1: the rules are plain Python; checked in a fresh interpreter.
    code = f"import sys, {module}; sys.exit(any(m.split('.')[0] == 'django' for m in sys.modules))"
    completed = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
