"""A rating-history line chart as plain SVG coordinates (pure, no Django).

The player page draws it server-side, so there is no script and no CDN: the template only
writes the numbers computed here into an inline `<svg>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

WIDTH = 320
HEIGHT = 90
PADDING = 6
MIN_SPAN = 40  # a flat history still gets a readable vertical scale


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    # Pre-formatted with a dot: the page is localized, and Italian would write "514,0".
    points: str  # "x,y x,y …" for <polyline points>
    last_x: str
    last_y: str
    low: int
    high: int


def rating_chart(values: Sequence[int], *, width: int = WIDTH, height: int = HEIGHT) -> Chart:
    """Evenly spaced points, one per rating held (the start, then after each change)."""
    if not values:
        raise ValueError("a chart needs at least one value")
    low, high = min(values), max(values)
    span = max(high - low, MIN_SPAN)
    middle = (low + high) / 2
    bottom = middle - span / 2
    inner_w, inner_h = width - 2 * PADDING, height - 2 * PADDING
    step = inner_w / (len(values) - 1) if len(values) > 1 else 0.0
    coords = [
        (PADDING + i * step, PADDING + inner_h * (1 - (value - bottom) / span))
        for i, value in enumerate(values)
    ]
    if len(coords) == 1:  # a single point: draw it as a flat line across
        coords = [(PADDING, coords[0][1]), (width - PADDING, coords[0][1])]
    return Chart(
        width=width,
        height=height,
        points=" ".join(f"{x:.1f},{y:.1f}" for x, y in coords),
        last_x=f"{coords[-1][0]:.1f}",
        last_y=f"{coords[-1][1]:.1f}",
        low=low,
        high=high,
    )
