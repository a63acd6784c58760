"""The team match's rules (RULES §16) as plain Python (STYLE 1): the line-up's order, who sits
at which board at the start, the colours, the points. Nothing here reads the database.

Its one deliberate reading: "at most a one-board shift" (RULES 16.2) is judged player by
player against the *places* a player may hold in rating order — every place between the count
of better-rated players + 1 and the count of players rated at least as high — so players of
equal rating are interchangeable, and with distinct ratings the rule is exactly "swaps of
neighbours that share nobody".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

BOARDS_MIN = 2  # RULES 16.1
BOARDS_MAX = 12
WIN, DRAW, LOSS = 2, 1, 0  # RULES 16.5: a game's board points, as RULES 4.6
MATCH_WIN, MATCH_DRAW, MATCH_LOSS = 2, 1, 0  # RULES 16.5: match points


def board_points_label(value: int | None) -> str:
    """Board points in the site's units (2 a win, RULES 16.5) as every page shows them to
    players and the federations print them, 1 a win and ½ a draw: 4 reads 2, 7 reads 3½."""
    if value is None:
        return ""
    whole, half = divmod(value, 2)
    return f"{whole}½" if half and whole else ("½" if half else str(whole))


T = TypeVar("T")


@dataclass(frozen=True)
class Misplaced:
    """The first player of a line-up standing more than one place from rating order."""

    index: int  # 0-based place in the line-up (boards, then reserves)
    lowest: int  # the 1-based places they may hold: lowest..highest
    highest: int


def out_of_order(ratings: Sequence[int]) -> Misplaced | None:
    """RULES 16.2: the first player (by place) more than one place away from every place they
    may hold in rating order, or None when the line-up is in order. `ratings[i]` is the rating
    of the player at place i + 1."""
    for index, rating in enumerate(ratings):
        above = sum(1 for other in ratings if other > rating)
        level = sum(1 for other in ratings if other >= rating)  # the player included
        place = index + 1
        # RULES 16.2: above(p) <= place <= level(p) + 1.
        if not above <= place <= level + 1:
            return Misplaced(index=index, lowest=above + 1, highest=level)
    return None


def rating_order(players: Sequence[T], rating: Callable[[T], int]) -> list[T]:
    """The players best-rated first; equal ratings keep their given order (RULES 16.2: the
    captain's order, or who said they were available first)."""
    return sorted(players, key=lambda p: -rating(p))  # sorted() is stable


def seat(lineup: Sequence[T], *, boards: int, can_play: Callable[[T], bool]) -> list[T | None]:
    """RULES 16.4: boards 1..N taken by the line-up's players who can play, in its order; those
    below one left out move up, the reserves come in after them, and the boards nobody is left
    for (always the last ones) are empty (None)."""
    seated = [player for player in lineup if can_play(player)][:boards]
    return seated + [None] * (boards - len(seated))


def first_club_white(board: int, game: int) -> bool:
    """RULES 16.3: the first-named club has White on board 1 and colours alternate down the
    boards; the second game of a board reverses them."""
    white_on_odd = board % 2 == 1
    return white_on_odd if game == 1 else not white_on_odd


def match_points(first: int, second: int) -> tuple[int, int]:
    """RULES 16.5: 2 / 1 / 0 for winning, drawing, losing the match on board points."""
    if first > second:
        return MATCH_WIN, MATCH_LOSS
    if first < second:
        return MATCH_LOSS, MATCH_WIN
    return MATCH_DRAW, MATCH_DRAW


def forfeit_points(first_present: bool, second_present: bool) -> tuple[int, int]:
    """RULES 16.4: one game of a board empty on one side: the other side's win; empty on both
    sides: 0-0. Never played."""
    if first_present == second_present:
        return 0, 0
    return (WIN, LOSS) if first_present else (LOSS, WIN)
