"""Time controls and their cadence (RULES 2). Pure Python, no Django.

A time control is a base time plus a Fischer increment per move. Its estimated duration is
`base + 60 × increment` seconds (FIDE's convention), and the estimate decides the cadence, which
in turn picks the rating a game moves (RULES 7.1: one rating per variant and cadence).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

# RULES 2: cadence limits on the estimated duration, in seconds.
BLITZ_FROM = 3 * 60  # bullet < 3 min
BLITZ_UP_TO = 10 * 60  # blitz 3-10 min inclusive
CLASSICAL_FROM = 60 * 60  # rapid over 10 and under 60 min; classical 60 min or more
ESTIMATED_MOVES = 60  # FIDE: the increment counts for 60 moves


class Cadence(StrEnum):
    """RULES 2 cadences ("cadenza"); the value is the code stored everywhere."""

    BULLET = "bullet"
    BLITZ = "blitz"  # "lampo"
    RAPID = "rapid"  # "rapido"
    CLASSICAL = "classical"  # "classica"


def cadence_for(estimated_seconds: int) -> Cadence:
    """The cadence of an estimated duration in seconds (RULES 2)."""
    if estimated_seconds < BLITZ_FROM:
        return Cadence.BULLET
    if estimated_seconds <= BLITZ_UP_TO:
        return Cadence.BLITZ
    if estimated_seconds < CLASSICAL_FROM:
        return Cadence.RAPID
    return Cadence.CLASSICAL


@dataclass(frozen=True)
class TimeControl:
    """Base time and Fischer increment, both in whole seconds."""

    base_seconds: int
    increment_seconds: int

    def __post_init__(self) -> None:
        if self.base_seconds < 0 or self.increment_seconds < 0:
            raise ValueError("base time and increment cannot be negative")
        if self.base_seconds == 0 and self.increment_seconds == 0:
            raise ValueError("a time control needs a base time or an increment")

    @property
    def estimated_seconds(self) -> int:
        """RULES 2: base + 60 × increment (FIDE's estimate of a game's length per player)."""
        return self.base_seconds + ESTIMATED_MOVES * self.increment_seconds

    @property
    def cadence(self) -> Cadence:
        return cadence_for(self.estimated_seconds)

    def __str__(self) -> str:
        """The usual notation, minutes + seconds: "3+2", "0.5+0", "90+30"."""
        minutes, seconds = divmod(self.base_seconds, 60)
        base = str(minutes) if seconds == 0 else f"{self.base_seconds / 60:g}"
        return f"{base}+{self.increment_seconds}"


def clock_text(ms: int) -> str:
    """A clock comment's figure, `H:MM:SS` (the `[%clk]` command lichess and chess.com write,
    whole seconds left, never below 0)."""
    seconds = max(0, ms) // 1000
    return f"{seconds // 3600}:{seconds // 60 % 60:02}:{seconds % 60:02}"
