"""The options every event has, as rules, without Django (RULES 4.1, 6, 7.2, 7.3, 8).

Forms and services of both kinds ask these functions, so each limit lives in one place.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from games.rules import openings

# RULES 4.1, 8: an event is scheduled between 5 minutes and 14 days ahead.
START_AT_LEAST = timedelta(minutes=5)
START_AT_MOST = timedelta(days=14)
FLOORS = tuple(range(1000, 2001, 100))  # RULES 7.2: 1000, 1100, ..., 2000
# RULES 7.3: a single game is fair up to class 2 openings.
FAIR_SINGLE_GAME_DEGREE = 2


class OpeningMode(StrEnum):
    """RULES 6: the nine opening modes (the value is what is stored)."""

    FREE = "free"
    RANDOM_1 = "random1"
    RANDOM_2 = "random2"
    RANDOM_3 = "random3"
    TABLE_1 = "table1"
    TABLE_2 = "table2"
    TABLE_3 = "table3"
    TABLE_ALL = "table_all"
    THEMATIC = "thematic"

    @property
    def uses_table(self) -> bool:
        return self in TABLE_MODES or self is OpeningMode.THEMATIC


TABLE_MODES = {
    OpeningMode.TABLE_1: 1,
    OpeningMode.TABLE_2: 2,
    OpeningMode.TABLE_3: 3,
    OpeningMode.TABLE_ALL: None,
}
RANDOM_PLIES = {OpeningMode.RANDOM_1: 1, OpeningMode.RANDOM_2: 2, OpeningMode.RANDOM_3: 3}


def mode_allowed(mode: str, variant: str) -> bool:
    """RULES 6: table draws and thematic openings only in Italian and English draughts."""
    return not OpeningMode(mode).uses_table or openings.uses_table(variant)


def needs_double_games(mode: str, thematic_number: int | None = None) -> bool:
    """RULES 7.3: a table draw up to class 3 or all 174, or a thematic opening of class 3 or
    more, is not fair in a single game."""
    mode = OpeningMode(mode)
    if mode in (OpeningMode.TABLE_3, OpeningMode.TABLE_ALL):
        return True
    if mode is OpeningMode.THEMATIC and thematic_number is not None:
        return openings.by_number(thematic_number).degree > FAIR_SINGLE_GAME_DEGREE
    return False


@dataclass(frozen=True)
class RatedOutcome:
    rated: bool
    floor: int | None
    switched_off: bool  # RULES 7.3: the opener asked for rated and got casual


def rated_outcome(
    *,
    rated: bool,
    floor: int | None,
    double_games: bool,
    mode: str,
    thematic_number: int | None,
) -> RatedOutcome:
    """RULES 7.3: created casual instead of refused (floor dropped) unless double games are on
    (an arena's games are always single: it passes False). RULES 7.2: casual events have no
    floor."""
    if not rated:
        return RatedOutcome(rated=False, floor=None, switched_off=False)
    if needs_double_games(mode, thematic_number) and not double_games:
        return RatedOutcome(rated=False, floor=None, switched_off=True)
    return RatedOutcome(rated=True, floor=floor, switched_off=False)
