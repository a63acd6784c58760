"""The server-rendered rating chart (pure, no database)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from ratings.chart import (
    BOTTOM,
    HEIGHT,
    LEFT,
    MAX_X_TICKS,
    MIN_SPAN,
    RIGHT,
    TIP_HEIGHT,
    TIP_WIDTH,
    TOP,
    WIDTH,
    rating_chart,
    rating_scale,
)


def days(n: int, start: date = date(2026, 11, 1)) -> list[date]:
    return [start + timedelta(days=i) for i in range(n)]


def xy(chart) -> list[tuple[float, float]]:
    return [(float(p.x), float(p.y)) for p in chart.points]


def test_points_span_the_plot_and_higher_ratings_are_higher_up() -> None:
    chart = rating_chart([1500, 1515, 1500, 1530], days(4))
    xs, ys = zip(*xy(chart), strict=True)
    assert xs[0] == LEFT and xs[-1] == WIDTH - RIGHT
    assert ys[3] < ys[1] < ys[0] == ys[2]  # SVG y grows downwards
    assert all(TOP <= y <= HEIGHT - BOTTOM for y in ys)
    assert (chart.low, chart.high) == (1500, 1530)
    assert chart.line == " ".join(f"{p.x},{p.y}" for p in chart.points)


def test_each_point_carries_its_value_change_and_date() -> None:
    dates = days(3)
    chart = rating_chart([1500, 1512, 1504], dates)
    assert [(p.value, p.delta, p.when) for p in chart.points] == [
        (1500, None, dates[0]),
        (1512, 12, dates[1]),
        (1504, -8, dates[2]),
    ]


@pytest.mark.parametrize(
    ("low", "high"),
    [(1500, 1500), (1487, 1502), (1420, 1610), (900, 2300), (1499, 1501), (1000, 1040)],
)
def test_the_rating_axis_has_round_values_and_holds_every_rating(low: int, high: int) -> None:
    bottom, top, step = rating_scale(low, high)
    assert bottom <= low and high <= top
    assert top - bottom >= MIN_SPAN
    assert bottom % step == 0 and top % step == 0 and step % 5 == 0
    assert (top - bottom) // step <= 4


def test_rating_ticks_are_round_and_placed_on_the_scale() -> None:
    chart = rating_chart([1487, 1502, 1530], days(3))
    values = [t.value for t in chart.rating_ticks]
    assert values == [1480, 1500, 1520, 1540]
    ys = [float(t.y) for t in chart.rating_ticks]
    assert ys[0] == HEIGHT - BOTTOM and ys[-1] == TOP  # the lowest line at the bottom


def test_few_date_ticks_first_and_last_always_one_per_day() -> None:
    dates = days(30)
    chart = rating_chart(list(range(1500, 1530)), dates)
    ticks = chart.date_ticks
    assert len(ticks) == MAX_X_TICKS
    assert ticks[0].when == dates[0] and ticks[-1].when == dates[-1]
    assert [t.anchor for t in ticks] == ["start", "middle", "middle", "end"]
    assert [t.with_year for t in ticks] == [True, False, False, True]

    # An evening of arena games: many points, one day, one date under the newest.
    evening = [datetime(2026, 12, 1, 20, 0) + timedelta(minutes=5 * i) for i in range(12)]
    chart = rating_chart([1500 + i for i in range(12)], evening)
    assert [t.when for t in chart.date_ticks] == [evening[-1]]
    # Under the newest point, at the plot's right edge: its label ends there, not past the
    # drawing's edge (it was clipped to "4 dic 2").
    (tick,) = chart.date_ticks
    assert (float(tick.x), tick.anchor) == (WIDTH - RIGHT, "end")


def test_a_new_year_is_written_on_its_tick() -> None:
    dates = [date(2026, 12, 30), date(2026, 12, 31), date(2027, 1, 1), date(2027, 1, 2)]
    chart = rating_chart([1500, 1510, 1520, 1530], dates)
    assert [t.with_year for t in chart.date_ticks] == [True, False, True, True]


def test_the_hover_label_stays_inside_the_drawing() -> None:
    chart = rating_chart([1500, 1600, 1400, 1600], days(4))
    for p in chart.points:
        assert 0 <= float(p.tip_x) <= WIDTH - TIP_WIDTH
        assert 0 <= float(p.tip_y) <= HEIGHT - TIP_HEIGHT
    top_point = chart.points[1]  # at the top edge: the label goes below it
    assert float(top_point.tip_y) > float(top_point.y)


def test_a_single_rating_is_one_point_in_the_middle() -> None:
    chart = rating_chart([1500], [date(2026, 12, 2)])
    (point,) = chart.points
    assert float(point.x) == LEFT + (WIDTH - RIGHT - LEFT) / 2
    assert chart.line == ""
    assert [t.anchor for t in chart.date_ticks] == ["middle"]


def test_coordinates_never_use_a_decimal_comma() -> None:
    chart = rating_chart([1500, 1487, 1502], days(3))
    numbers = [p.x + p.y + p.tip_x + p.tip_y for p in chart.points]
    numbers += [t.y for t in chart.rating_ticks] + [t.x for t in chart.date_ticks]
    assert all("," not in n for n in numbers)
    assert all(pair.count(",") == 1 for pair in chart.line.split())


def test_an_empty_history_has_no_chart() -> None:
    with pytest.raises(ValueError):
        rating_chart([], [])
    with pytest.raises(ValueError):
        rating_chart([1500, 1510], [date(2026, 12, 2)])
