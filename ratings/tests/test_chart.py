"""The server-rendered rating chart (pure, no database)."""

from __future__ import annotations

import pytest

from ratings.chart import HEIGHT, PADDING, WIDTH, rating_chart


def coordinates(points: str) -> list[tuple[float, float]]:
    return [tuple(map(float, pair.split(","))) for pair in points.split()]  # type: ignore[misc]


def test_points_span_the_width_and_higher_ratings_are_higher_up() -> None:
    chart = rating_chart([1500, 1515, 1500, 1530])
    xs, ys = zip(*coordinates(chart.points), strict=True)
    assert xs[0] == PADDING and xs[-1] == WIDTH - PADDING
    assert ys[3] < ys[1] < ys[0] == ys[2]  # SVG y grows downwards
    assert all(PADDING <= y <= HEIGHT - PADDING for y in ys)
    assert (chart.low, chart.high) == (1500, 1530)
    assert (chart.last_x, chart.last_y) == (f"{xs[-1]:.1f}", f"{ys[-1]:.1f}")


def test_a_single_rating_is_a_flat_line() -> None:
    chart = rating_chart([1500])
    (x0, y0), (x1, y1) = coordinates(chart.points)
    assert y0 == y1 and x0 < x1


def test_coordinates_never_use_a_decimal_comma() -> None:
    chart = rating_chart([1500, 1487, 1502])
    assert "," not in chart.last_x + chart.last_y
    assert all(pair.count(",") == 1 for pair in chart.points.split())


def test_an_empty_history_has_no_chart() -> None:
    with pytest.raises(ValueError):
        rating_chart([])
