"""A rating-history chart as plain SVG coordinates (pure, no Django).

The player page draws it server-side, so there is no script library and no CDN (the site works
offline): the template only writes the numbers computed here into an inline `<svg>`.

One deliberate reading: points are spaced evenly, one step per rating held (the start, then
after each change), not by time. A club's history comes in bursts (ten arena games in an
evening, then nothing for a month); on a time scale those ten changes would pile up on one
vertical line that no one could read or point at. The date axis therefore labels the points
it stands under, a few of them, and every point carries its own date.

Coordinates are pre-formatted with a dot: the page is localized, and Italian would write
"514,0". Dates are passed through untouched for the template to write in the reader's
language.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

WIDTH = 380
HEIGHT = 200
# The plot area inside the drawing: room on the left for the rating labels, below for dates.
LEFT = 42
RIGHT = 12
TOP = 12
BOTTOM = 24
MIN_SPAN = 40  # a flat history still gets a readable vertical scale
MAX_Y_INTERVALS = 4  # at most five rating lines
MAX_X_TICKS = 4  # a few dates, not one under every point
Y_STEPS = (5, 10, 20, 25, 50, 100, 200, 250, 500, 1000)
# The label shown on hover or focus: a box of two lines (value and change, then the date).
TIP_WIDTH = 96
TIP_HEIGHT = 36
TIP_GAP = 8


def _f(number: float) -> str:
    return f"{number:.1f}"


@dataclass(frozen=True)
class ChartPoint:
    x: str
    y: str
    value: int
    delta: int | None  # None for the first point, the rating held before any change shown
    when: date  # a date or a (local) datetime, written by the template
    tip_x: str  # top-left corner of the label box, kept inside the drawing
    tip_y: str


@dataclass(frozen=True)
class RatingTick:
    y: str
    value: int


@dataclass(frozen=True)
class DateTick:
    x: str
    when: date
    anchor: str  # SVG text-anchor: the first date starts at its point, the last ends there
    with_year: bool  # the first and last dates, and any date whose year differs from the one before


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int
    right: int  # x of the plot's right edge
    top: int
    bottom: int  # y of the plot's bottom edge
    line: str  # "x,y x,y …" for <polyline points>; empty for a single point
    points: list[ChartPoint]
    rating_ticks: list[RatingTick]
    date_ticks: list[DateTick]
    low: int
    high: int


def rating_scale(low: int, high: int) -> tuple[int, int, int]:
    """(bottom, top, step) of the rating axis: round values, at most MAX_Y_INTERVALS steps,
    at least MIN_SPAN tall, holding low..high."""
    middle = (low + high) / 2
    lo, hi = min(low, middle - MIN_SPAN / 2), max(high, middle + MIN_SPAN / 2)
    for step in Y_STEPS:
        bottom, top = math.floor(lo / step) * step, math.ceil(hi / step) * step
        if (top - bottom) / step <= MAX_Y_INTERVALS:
            return bottom, top, step
    step = Y_STEPS[-1]
    while True:  # a span beyond any real rating history; still round
        step *= 2
        bottom, top = math.floor(lo / step) * step, math.ceil(hi / step) * step
        if (top - bottom) / step <= MAX_Y_INTERVALS:
            return bottom, top, step


def _day(when: date) -> date:
    return when.date() if isinstance(when, datetime) else when


def _date_tick_indices(days: Sequence[date]) -> list[int]:
    """At most MAX_X_TICKS points, evenly spread, first and last always, one per day."""
    n = len(days)
    if n <= MAX_X_TICKS:
        wanted = list(range(n))
    else:
        wanted = sorted({round(i * (n - 1) / (MAX_X_TICKS - 1)) for i in range(MAX_X_TICKS)})
    chosen: list[int] = []
    for index in wanted:
        if chosen and days[chosen[-1]] == days[index]:
            if index == n - 1:  # the newest date wins its day: it is the one read first
                chosen[-1] = index
            continue
        chosen.append(index)
    return chosen


def rating_chart(
    values: Sequence[int], dates: Sequence[date], *, width: int = WIDTH, height: int = HEIGHT
) -> Chart:
    """The chart of ratings held, oldest first, each with the date it was reached."""
    if not values:
        raise ValueError("a chart needs at least one value")
    if len(dates) != len(values):
        raise ValueError("one date per value")
    low, high = min(values), max(values)
    bottom_value, top_value, step = rating_scale(low, high)
    right, bottom = width - RIGHT, height - BOTTOM
    plot_w, plot_h = right - LEFT, bottom - TOP

    def y_of(value: float) -> float:
        return TOP + plot_h * (1 - (value - bottom_value) / (top_value - bottom_value))

    n = len(values)
    xs = [LEFT + plot_w / 2] if n == 1 else [LEFT + i * plot_w / (n - 1) for i in range(n)]
    points = []
    for i, (x, value, when) in enumerate(zip(xs, values, dates, strict=True)):
        y = y_of(value)
        tip_x = min(max(x - TIP_WIDTH / 2, 0), width - TIP_WIDTH)
        above = y - TIP_GAP - TIP_HEIGHT
        tip_y = above if above >= 0 else y + TIP_GAP
        points.append(
            ChartPoint(
                x=_f(x),
                y=_f(y),
                value=value,
                delta=None if i == 0 else value - values[i - 1],
                when=when,
                tip_x=_f(tip_x),
                tip_y=_f(tip_y),
            )
        )
    rating_ticks = [
        RatingTick(y=_f(y_of(v)), value=v) for v in range(bottom_value, top_value + 1, step)
    ]
    days = [_day(d) for d in dates]
    indices = _date_tick_indices(days)
    date_ticks = []
    for k, index in enumerate(indices):
        first, last = k == 0, k == len(indices) - 1
        if len(indices) == 1:
            # One date for the whole history (one day's games: the newest point's, at the
            # right edge): the label ends there, inside the drawing.
            anchor = "middle" if n == 1 else "end" if index == n - 1 else "start"
        else:
            anchor = "start" if first else "end" if last else "middle"
        new_year = not first and days[index].year != days[indices[k - 1]].year
        date_ticks.append(
            DateTick(
                x=_f(xs[index]),
                when=dates[index],
                anchor=anchor,
                with_year=first or last or new_year,
            )
        )
    return Chart(
        width=width,
        height=height,
        left=LEFT,
        right=right,
        top=TOP,
        bottom=bottom,
        line="" if n == 1 else " ".join(f"{p.x},{p.y}" for p in points),
        points=points,
        rating_ticks=rating_ticks,
        date_ticks=date_ticks,
        low=low,
        high=high,
    )
