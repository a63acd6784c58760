"""The round tournament's own options as rules, without Django (RULES 4.1, 4.4); what every
event shares is in `events.options`."""

from __future__ import annotations

# RULES 4.1 limits.
SEATS_MIN, SEATS_MAX = 4, 200
MINIMUM_MIN = 4
THRESHOLD_MIN, THRESHOLD_MAX = 7, 20


def format_for(n: int, threshold: int) -> str:
    """RULES 4.4: round robin below the threshold, Swiss at or above it."""
    return "round_robin" if n < threshold else "swiss"
